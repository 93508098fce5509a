/*
 * Benchmark driver for the peer libdivsufsort (Debian libdivsufsort-dev 2.0.1).
 *
 *   divsufsort-driver FILE RUNS [--out SA_FILE]
 *
 * Reads FILE, runs divsufsort() RUNS times, timing only the call with CLOCK_MONOTONIC, and prints
 * one JSON line {"n":N,"seconds":[...]}. With --out, writes the suffix array of the last run as
 * little-endian uint32 (the machines we run on are little-endian; divsufsort's saidx_t is int32).
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
  if (argc != 3 && argc != 5) die("usage: divsufsort-driver FILE RUNS [--out SA_FILE]");
  const char *out_path = NULL;
  if (argc == 5) {
    if (strcmp(argv[3], "--out") != 0) die("usage: divsufsort-driver FILE RUNS [--out SA_FILE]");
    out_path = argv[4];
  }
  int runs = atoi(argv[2]);
  if (runs < 1) die("RUNS must be a positive integer");

  long n = 0;
  unsigned char *text = read_file(argv[1], &n);
  saidx_t *sa = malloc(n > 0 ? (size_t)n * sizeof(saidx_t) : sizeof(saidx_t));
  if (sa == NULL) die("out of memory for the suffix array");

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
