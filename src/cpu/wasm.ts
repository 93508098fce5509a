// Loads the AssemblyScript module (dist/sufsort.wasm) once per thread and instantiates it on a shared
// memory. Every thread (main or worker) calls `instantiate` with the same Module and Memory.
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { packagePath } from "../paths.js";

/** The kernels exported by asm/index.ts (pointers are byte offsets into the shared memory). */
export interface Kernels {
  probe(ptr: number, n: number): number;
  [name: string]: unknown;
}

let compiled: WebAssembly.Module | undefined;

/** The compiled module, read and compiled once per thread. */
export function wasmModule(): WebAssembly.Module {
  if (compiled === undefined) {
    // V8 runs a long first call in its baseline tier (Liftoff) and never switches to optimised
    // code inside it: one sais call ran 2x slower the first time. Compile optimised from the start.
    setFlagsFromString("--no-liftoff");
    const bytes = readFileSync(packagePath("dist", "sufsort.wasm"));
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

/** Instantiates the kernels on `memory` (the module may be passed in from another thread). */
export function instantiate(memory: WebAssembly.Memory, module: WebAssembly.Module = wasmModule()): Kernels {
  const instance = new WebAssembly.Instance(module, {
    env: {
      memory,
      abort(_msg: number, _file: number, line: number, column: number): never {
        throw new Error(`sufsort: WebAssembly kernel aborted at ${line}:${column}`);
      },
    },
  });
  return instance.exports as unknown as Kernels;
}
