// The one WebAssembly module: every kernel is exported from here. Kernels take raw pointers into
// the host-owned shared memory and never allocate (see src/cpu/memory.ts).
export { probe } from "./probe";
export { verifySuffixArray, firstViolation, verifyMarkBlock, verifyFirstBlock, verifyInducedBlock, verifyInducedMapped } from "./verify";
export { sais, saisHelper, saisHelperBytes, saisHelperAlive, saisHelperExit, saisHelperFailed, saisHelperReset, saisHelperTeam, saisReduced, saisReduced16, saisMapRanks, induceWindow, nameWindow, rankDirectory, lmsWindow, lmsFromBitmap, ringBytes, spillBytes, spillInit, spillDescriptors, spillPool } from "./sais";
export * from "./scan";
export * from "./radix";
export * from "./pack";
export * from "./gather";
export { mergeSplitU32, mergeSliceU32 } from "./merge";
export * from "./sort";
export * from "./range";
export * from "./skew";
export { sortHeadedGroupsU64 } from "./hybrid";
export { bwtFromSA, byteHistogram, psiFromBWT, unbwtWalk, markRows } from "./bwt";
export { phiFromSA, plcpFromPhi, lcpFromPlcp } from "./lcp";
export { fmMarkRows, fmGatherSamples, fmFillBlocks, fmRangeCounts, fmCheck, fmCount, fmLocate } from "./fmindex";
export { unpackHelper, unpackMailboxBytes, unpackBits } from "./unpack";
export { packText } from "./text";
export { repeatGram, repeatGear, repeatAnchors, repeatShared } from "./repeats";
