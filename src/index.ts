// Public API of sufsort.
export {};
