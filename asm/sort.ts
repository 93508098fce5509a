// Serial in-place sort of u64 values: the leaf that sorts a group too small to share between workers.
// Introsort (quicksort, median of three, insertion sort below a cutoff, heapsort past a depth limit),
// so the worst case stays O(len log len).

@inline const INSERTION_MAX: u32 = 16;

@inline
function at(ptr: usize, j: u32): usize {
  return ptr + (<usize>j << 3);
}

function insertionSort(ptr: usize, lo: u32, hi: u32): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = load<u64>(at(ptr, i));
    let j = i;
    while (j > lo && load<u64>(at(ptr, j - 1)) > v) {
      store<u64>(at(ptr, j), load<u64>(at(ptr, j - 1)));
      j--;
    }
    store<u64>(at(ptr, j), v);
  }
}

function siftDown(ptr: usize, base: u32, root: u32, len: u32): void {
  const v = load<u64>(at(ptr, base + root));
  let r = root;
  while (true) {
    let c: u32 = 2 * r + 1;
    if (c >= len) break;
    if (c + 1 < len && load<u64>(at(ptr, base + c + 1)) > load<u64>(at(ptr, base + c))) c++;
    const cv = load<u64>(at(ptr, base + c));
    if (cv <= v) break;
    store<u64>(at(ptr, base + r), cv);
    r = c;
  }
  store<u64>(at(ptr, base + r), v);
}

function heapSort(ptr: usize, lo: u32, hi: u32): void {
  const len = hi - lo;
  for (let r = len >> 1; r-- > 0;) siftDown(ptr, lo, r, len);
  for (let end = len - 1; end > 0; end--) {
    const top = load<u64>(at(ptr, lo));
    store<u64>(at(ptr, lo), load<u64>(at(ptr, lo + end)));
    store<u64>(at(ptr, lo + end), top);
    siftDown(ptr, lo, 0, end);
  }
}

function introSort(ptr: usize, lo: u32, hi: u32, depth: i32): void {
  while (hi - lo > INSERTION_MAX) {
    if (depth-- == 0) {
      heapSort(ptr, lo, hi);
      return;
    }
    const mid = lo + ((hi - lo) >> 1);
    const a = load<u64>(at(ptr, lo));
    const b = load<u64>(at(ptr, mid));
    const c = load<u64>(at(ptr, hi - 1));
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    // Lomuto partition without branches on the data (a comparison of random keys mispredicts half
    // the time): every value is swapped to the boundary and the boundary moves by (value < pivot).
    // Afterwards [lo, j) < pivot at j <= [j + 1, hi).
    const p = pivot == a ? lo : pivot == b ? mid : hi - 1;
    store<u64>(at(ptr, p), load<u64>(at(ptr, hi - 1)));
    store<u64>(at(ptr, hi - 1), pivot);
    let boundary = lo;
    for (let i = lo; i < hi - 1; i++) {
      const v = load<u64>(at(ptr, i));
      store<u64>(at(ptr, i), load<u64>(at(ptr, boundary)));
      store<u64>(at(ptr, boundary), v);
      boundary += <u32>(v < pivot);
    }
    store<u64>(at(ptr, hi - 1), load<u64>(at(ptr, boundary)));
    store<u64>(at(ptr, boundary), pivot);
    const j = boundary;
    if (j - lo < hi - j - 1) {
      introSort(ptr, lo, j, depth);
      lo = j + 1;
    } else {
      introSort(ptr, j + 1, hi, depth);
      hi = j;
    }
  }
  insertionSort(ptr, lo, hi);
}

/** Sorts ptr[lo..hi) (u64 values) ascending, in place. */
export function sortU64(ptr: usize, lo: u32, hi: u32): void {
  if (hi - lo < 2) return;
  introSort(ptr, lo, hi, 2 * (32 - clz<u32>(hi - lo)));
}
