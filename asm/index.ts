// The one WebAssembly module: every kernel is exported from here. Kernels take raw pointers into
// the host-owned shared memory and never allocate (see src/cpu/memory.ts).
export { probe } from "./probe";
export { verifySuffixArray, firstViolation } from "./verify";
export { sais } from "./sais";
