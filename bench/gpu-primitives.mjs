#!/usr/bin/env node
// Throughput of the GPU primitives next to the device's streaming bandwidth (needs `npm run build`).
//   node bench/gpu-primitives.mjs [--sizes 20,22,24,26,27,28] [--only scan,radix32,...] [--repeats 5]
//                                 [--gpu hardware|software] [--check] [--json rows.json]
import { benchGpuMain } from "../dist/src/gpu/bench-main.js";

process.exitCode = await benchGpuMain(process.argv.slice(2));
