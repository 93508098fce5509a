// An engine that runs in its own worker thread, reached through comlink. Why: a CPU engine's host
// steps (and every kernel, when threads = 1) run on the thread that calls it; a server or an
// interactive tool that must keep its event loop free creates a remote engine instead. The SA comes
// back transferred, not copied; the text goes over as a copy.
import { Worker } from "node:worker_threads";
import * as Comlink from "comlink";
import nodeAdapter from "comlink/dist/umd/node-adapter.js";
import { packagePath } from "../paths.js";
import { checkThreads, defaultThreads } from "../cpu/executor.js";
import { failure, SufsortError } from "../errors.js";
import type { BuildOptions, BuildResult, Engine, EngineOptions } from "./engine.js";
import type { RemoteEngineApi, RemoteReply } from "../../workers/engine.js";

type NodeEndpoint = typeof import("comlink/dist/umd/node-adapter.js").default;
/** comlink's Node adapter (a UMD module: Node hands its function over as the default export). */
export const nodeEndpoint: NodeEndpoint = nodeAdapter as unknown as NodeEndpoint;

/** An engine (see engine.ts) whose builds run in a worker thread; close() ends the worker. */
export async function createRemoteEngine(options: EngineOptions = {}): Promise<Engine> {
  const threads = checkThreads(options.threads ?? defaultThreads());
  const worker = new Worker(packagePath("dist", "workers", "engine.js"), { workerData: { threads } });
  const remote = Comlink.wrap<RemoteEngineApi>(nodeEndpoint(worker));
  let closed = false;
  return {
    threads,
    async suffixArray(text: Uint8Array, build: BuildOptions = {}): Promise<BuildResult> {
      if (closed) throw failure("the engine is closed");
      const { onProgress, ...rest } = build;
      // comlink proxies only top-level arguments, so the callback travels on its own
      const progress = onProgress ? Comlink.proxy(onProgress) : undefined;
      const reply = (await remote.suffixArray(text, rest, progress)) as RemoteReply;
      if ("error" in reply) throw new SufsortError(reply.error.message, reply.error.exitCode, reply.error.overLimit);
      return reply.result;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await remote.close();
      remote[Comlink.releaseProxy]();
      await worker.terminate();
    },
  };
}
