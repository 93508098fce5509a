/*
 * Benchmark driver for the peer libdivsufsort (Debian libdivsufsort-dev 2.0.1).
 *
 *   divsufsort-driver FILE RUNS [--out SA_FILE] [--cold]
 *
 * Reads FILE, runs divsufsort() RUNS times into one suffix-array buffer, timing only the call with
 * CLOCK_MONOTONIC, and prints one JSON line {"n":N,"seconds":[...]}. The buffer's pages are
 * touched before the first run, as sufsort's bench touches its heap in an untimed first build;
 * with --cold they are not, and the first run pays their first touch, as a one-shot
 * `sufsort build` does (compare those two). With --out, writes the suffix array of the last run
 * as little-endian uint32 (the machines we run on are little-endian; divsufsort's saidx_t is int32).
 *
 * Build: cc -O3 -o bench/peers/build/divsufsort-driver bench/peers/divsufsort.c -ldivsufsort
 */
#include <divsufsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what) {
  fprintf(stderr, "divsufsort-driver: %s\n", what);
  exit(1);
}

static unsigned char *read_file(const char *path, long *length) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) die("cannot open input file");
  if (fseek(f, 0, SEEK_END) != 0) die("cannot seek input file");
  long n = ftell(f);
  if (n < 0 || n > 0x7fffffffL) die("input must be at most 2^31-1 bytes");
  rewind(f);
  unsigned char *text = malloc(n > 0 ? (size_t)n : 1);
  if (text == NULL) die("out of memory for the text");
  if (n > 0 && fread(text, 1, (size_t)n, f) != (size_t)n) die("cannot read input file");
  fclose(f);
  *length = n;
  return text;
}

int main(int argc, char **argv) {
  const char *usage = "usage: divsufsort-driver FILE RUNS [--out SA_FILE] [--cold]";
  if (argc < 3) die(usage);
  const char *out_path = NULL;
  int cold = 0;
  for (int a = 3; a < argc; a++) {
    if (strcmp(argv[a], "--out") == 0 && a + 1 < argc) {
      out_path = argv[++a];
    } else if (strcmp(argv[a], "--cold") == 0) {
      cold = 1;
    } else {
      die(usage);
    }
  }
  int runs = atoi(argv[2]);
  if (runs < 1) die("RUNS must be a positive integer");

  long n = 0;
  unsigned char *text = read_file(argv[1], &n);
  saidx_t *sa = malloc(n > 0 ? (size_t)n * sizeof(saidx_t) : sizeof(saidx_t));
  if (sa == NULL) die("out of memory for the suffix array");
  /* A fresh page's first touch is the kernel's work, not the sort's: on the 2-core VM about 4 s per
   * GiB, which made a single run 20-36% slower than the next ones in the same process. Not zeros:
   * the compiler turns malloc and a zeroing memset into calloc, which touches nothing. */
  if (!cold) memset(sa, 0xff, n > 0 ? (size_t)n * sizeof(saidx_t) : sizeof(saidx_t));

  printf("{\"n\":%ld,\"seconds\":[", n);
  for (int r = 0; r < runs; r++) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    saint_t status = divsufsort(text, sa, (saidx_t)n);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (status != 0) die("divsufsort failed");
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) * 1e-9;
    printf("%s%.6f", r > 0 ? "," : "", seconds);
  }
  printf("]}\n");

  if (out_path != NULL) {
    FILE *f = fopen(out_path, "wb");
    if (f == NULL) die("cannot open the output file");
    if (n > 0 && fwrite(sa, sizeof(saidx_t), (size_t)n, f) != (size_t)n) die("cannot write the output file");
    if (fclose(f) != 0) die("cannot write the output file");
  }
  free(sa);
  free(text);
  return 0;
}
