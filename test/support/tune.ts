// SUFSORT_GPU_TUNE for the length of one call: tests lower the thresholds that pick a GPU or I/O path.

/** Runs `body` with SUFSORT_GPU_TUNE set to `tune` ("" for none), restoring it afterwards, also
 * when `body` throws. */
export async function withTune<T>(tune: string, body: () => Promise<T>): Promise<T> {
  const before = process.env.SUFSORT_GPU_TUNE;
  if (tune) process.env.SUFSORT_GPU_TUNE = tune;
  else delete process.env.SUFSORT_GPU_TUNE;
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env.SUFSORT_GPU_TUNE;
    else process.env.SUFSORT_GPU_TUNE = before;
  }
}
