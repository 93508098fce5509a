// Worker entry of a remote engine (src/engine/remote.ts): owns one CPU engine and serves it over
// comlink, so that the thread which asked for a build never runs any of it.
import { parentPort, workerData } from "node:worker_threads";
import * as Comlink from "comlink";
import { createEngine, type BuildOptions, type BuildResult } from "../src/engine/engine.js";
import { SufsortError } from "../src/errors.js";
import { nodeEndpoint } from "../src/engine/remote.js";

const engine = await createEngine({ threads: (workerData as { threads: number }).threads });

const api = {
  /** The result, or a SufsortError's fields: comlink would rethrow it as a plain Error, without its
   * exit code. */
  async suffixArray(text: Uint8Array, options: BuildOptions, onProgress?: (fraction: number) => void): Promise<RemoteReply> {
    try {
      const { sa, ...result } = await engine.suffixArray(text, { ...options, onProgress });
      // the SA as its buffer, offset and length: a view of 4 GiB or more would arrive short
      // (src/cpu/shared-views.ts), and a shared buffer cannot be transferred (engines refuse texts
      // beyond the heap, so neither happens today)
      const reply = { result, sa: { buffer: sa.buffer, byteOffset: sa.byteOffset, length: sa.length } };
      return sa.buffer instanceof SharedArrayBuffer ? reply : Comlink.transfer(reply, [sa.buffer]);
    } catch (e) {
      if (e instanceof SufsortError) return { error: { message: e.message, exitCode: e.exitCode, overLimit: e.overLimit } };
      throw e;
    }
  },
  close: () => engine.close(),
};
export type RemoteEngineApi = typeof api;
export type RemoteReply =
  | { result: Omit<BuildResult, "sa">; sa: { buffer: ArrayBufferLike; byteOffset: number; length: number } }
  | { error: { message: string; exitCode: number; overLimit: boolean } };

Comlink.expose(api, nodeEndpoint(parentPort!));
