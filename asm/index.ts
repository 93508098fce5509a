// The one WebAssembly module: every kernel is exported from here. Kernels take raw pointers into
// the host-owned shared memory and never allocate (see src/cpu/memory.ts).
export { probe } from "./probe";
export * from "./scan";
export * from "./radix";
export * from "./pack";
export * from "./gather";
export { mergeSplitU32, mergeSliceU32 } from "./merge";
export * from "./sort";
export * from "./range";
export * from "./skew";
