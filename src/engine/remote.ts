// An engine that runs in its own worker thread, reached through comlink. Why: a CPU engine's host
// steps (and every kernel, when threads = 1) run on the thread that calls it; a server or an
// interactive tool that must keep its event loop free creates a remote engine instead. The SA comes
// back transferred (as its buffer, offset and length), not copied; the text goes over as a copy.
import { Worker } from "node:worker_threads";
import * as Comlink from "comlink";
import nodeAdapter from "comlink/dist/umd/node-adapter.js";
import { packagePath } from "../paths.js";
import { checkThreads, checkWorkerAddressSpace, defaultThreads, workerExecArgv } from "../cpu/executor.js";
import { failure, SufsortError } from "../errors.js";
import type { BuildOptions, BuildResult, Engine, EngineOptions } from "./engine.js";
import type { RemoteEngineApi, RemoteReply } from "../../workers/engine.js";

type NodeEndpoint = typeof import("comlink/dist/umd/node-adapter.js").default;
/** comlink's Node adapter (a UMD module: Node hands its function over as the default export). */
export const nodeEndpoint: NodeEndpoint = nodeAdapter as unknown as NodeEndpoint;

/** An engine (see engine.ts) whose builds run in a worker thread; close() ends the worker. */
export async function createRemoteEngine(options: EngineOptions = {}): Promise<Engine> {
  const threads = checkThreads(options.threads ?? defaultThreads());
  checkWorkerAddressSpace(1); // the engine's own worker (its pool checks for its workers in there)
  // the pool's flags (executor.ts workerExecArgv): e.g. the parent's --input-type, which a worker
  // started from a file refuses, is left out
  const execArgv = workerExecArgv();
  const worker = new Worker(packagePath("dist", "workers", "engine.js"), { workerData: { threads }, ...(execArgv ? { execArgv } : {}) });
  const remote = Comlink.wrap<RemoteEngineApi>(nodeEndpoint(worker));
  let closed = false;
  // A worker that fails to start (its engine's memory refused) or dies rejects every call from
  // then on, instead of an uncaught 'error' event ending the caller's process or a call that
  // never returns.
  let dead: SufsortError | undefined;
  const died = new Promise<never>((_, reject) => {
    const fail = (error: SufsortError) => {
      dead ??= error;
      reject(dead);
    };
    worker.on("error", (e: Error & { exitCode?: number }) => fail(new SufsortError(`engine worker: ${e.message}`, e.exitCode ?? 1)));
    worker.on("exit", (code) => {
      if (!closed) fail(failure(`the engine's worker exited (code ${code})`));
    });
  });
  died.catch(() => undefined);
  return {
    threads,
    async suffixArray(text: Uint8Array, build: BuildOptions = {}): Promise<BuildResult> {
      if (closed) throw failure("the engine is closed");
      if (dead) throw dead;
      const { onProgress, ...rest } = build;
      // comlink proxies only top-level arguments, so the callback travels on its own
      const progress = onProgress ? Comlink.proxy(onProgress) : undefined;
      const reply = (await Promise.race([remote.suffixArray(text, rest, progress), died])) as RemoteReply;
      if ("error" in reply) throw new SufsortError(reply.error.message, reply.error.exitCode, reply.error.overLimit);
      return { ...reply.result, sa: new Uint32Array(reply.sa.buffer, reply.sa.byteOffset, reply.sa.length) };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (!dead) await Promise.race([remote.close(), died]).catch(() => undefined);
      remote[Comlink.releaseProxy]();
      await worker.terminate();
    },
  };
}
