// Worker entry of a remote engine (src/engine/remote.ts): owns one CPU engine and serves it over
// comlink, so that the thread which asked for a build never runs any of it.
import { parentPort, workerData } from "node:worker_threads";
import * as Comlink from "comlink";
import { createEngine, type BuildOptions } from "../src/engine/engine.js";
import { nodeEndpoint } from "../src/engine/remote.js";

const engine = await createEngine({ threads: (workerData as { threads: number }).threads });

const api = {
  async suffixArray(text: Uint8Array, options: BuildOptions, onProgress?: (fraction: number) => void) {
    const result = await engine.suffixArray(text, { ...options, onProgress });
    return Comlink.transfer(result, [result.sa.buffer]);
  },
  close: () => engine.close(),
};
export type RemoteEngineApi = typeof api;

Comlink.expose(api, nodeEndpoint(parentPort!));
