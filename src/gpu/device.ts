// The one place that decides GPU hardware: which adapter, which limits and features, and how the
// device is released. A hardware adapter (Vulkan on Linux) is the default; the software adapter
// (Mesa llvmpipe through Dawn's OpenGL ES backend) is used only when asked for by mode 'software'
// or SUFSORT_GPU=software. Device loss and validation errors become SufsortErrors, never hangs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { failure, SufsortError } from "../errors.js";
import { BufferPool } from "./buffers.js";

/** 'hardware': a real GPU or nothing; 'software': llvmpipe; 'auto': hardware if present, else none. */
export type GpuMode = "hardware" | "software" | "auto";

/** Features the kernels can use when present; every kernel also has a path without them. */
export interface GpuFeatures {
  subgroups: boolean;
  /** The fewest lanes a subgroup may have (the adapter's subgroupMinSize; 0 when not reported). */
  subgroupMinSize: number;
  timestampQuery: boolean;
}

/** Limits the primitives need; requested up to what the adapter offers. */
const WANTED_INVOCATIONS = 256;
/** Invocations per workgroup asked for beyond that where the adapter offers them (wider blocksorts). */
const WANTED_WIDE_INVOCATIONS = 1024;
const WANTED_STORAGE_BUFFERS = 10;

let globalsInstalled = false;

/** Longest wait for submitted GPU work before it is reported as stuck (a kernel that never ends
 * would otherwise hang the process: no watchdog ends compute work on a headless GPU). */
const GPU_WAIT_LIMIT_MS = 1000 * positiveOr(Number(process.env.SUFSORT_GPU_WAIT_S), 600);

function positiveOr(value: number, fallback: number): number {
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * One Dawn instance per backend, shared by the contexts open on it and dropped with the last one.
 * Seen on the H200 (Vulkan): a test process that had opened three devices crashed
 * ("std::system_error: Invalid argument") or hung in Dawn's teardown at exit, with or without a
 * shared instance; processes that opened one device always exited cleanly. So: open one context
 * per process and reuse it (the engine should keep it), and release it once at the end. (That
 * message is also what the freed instance of release()'s comment caused on the software adapter.)
 */
const instances = new Map<string, { gpu: GPU; users: number }>();

/** Dawn's bindings, loaded on first use so that CPU-only work never needs the native module. */
let dawn: typeof import("webgpu") | undefined;

function openInstance(backend: string, flags: string[]): GPU {
  if (!dawn) throw new Error("sufsort: Dawn not loaded");
  let entry = instances.get(backend);
  if (!entry) {
    entry = { gpu: dawn.create(flags), users: 0 };
    instances.set(backend, entry);
  }
  entry.users++;
  return entry.gpu;
}

function closeInstance(gpu: GPU): void {
  for (const [backend, entry] of instances) {
    if (entry.gpu === gpu && --entry.users === 0) instances.delete(backend);
  }
}

/** A device with its pools and caches; everything a primitive needs to run. */
export class GpuContext {
  readonly device: GPUDevice;
  readonly adapterInfo: string;
  readonly software: boolean;
  readonly features: GpuFeatures;
  readonly pool: BufferPool;
  /** Largest byte length one storage binding may cover. */
  readonly maxBindingBytes: number;
  readonly maxWorkgroupsPerDimension: number;
  /** Pipelines by key (primitive + compile-time parameters); filled by src/gpu/kernels.ts. */
  readonly pipelines = new Map<string, GPUComputePipeline>();
  private gpu: GPU | undefined;
  private lostError: SufsortError | undefined;
  private uncaptured: string[] = [];
  private readonly lost: Promise<never>;

  constructor(gpu: GPU, device: GPUDevice, adapterInfo: string, software: boolean, features: GpuFeatures) {
    this.gpu = gpu; // keep the instance referenced while the device lives (Dawn segfaults otherwise)
    this.device = device;
    this.adapterInfo = adapterInfo;
    this.software = software;
    this.features = features;
    this.maxBindingBytes = device.limits.maxStorageBufferBindingSize;
    this.maxWorkgroupsPerDimension = device.limits.maxComputeWorkgroupsPerDimension;
    this.pool = new BufferPool(device);
    this.lost = device.lost.then((info) => {
      this.lostError = failure(`GPU device lost (${info.reason}): ${info.message || "no message"}`);
      throw this.lostError;
    });
    this.lost.catch(() => undefined); // observed through check()/race(), not as an unhandled rejection
    device.onuncapturederror = (event: GPUUncapturedErrorEvent) => {
      this.uncaptured.push(event.error.message);
    };
  }

  /** True once release() ran or the device was lost. */
  get closed(): boolean {
    return this.gpu === undefined || this.lostError !== undefined;
  }

  /** Throws the first validation/device error seen since the last check. */
  check(): void {
    if (this.lostError) throw this.lostError;
    if (this.gpu === undefined) throw failure("GPU context used after release()");
    if (this.uncaptured.length > 0) {
      // Dawn's messages run over several lines ("- While calling ..."): the first says what failed.
      const all = this.uncaptured;
      const first = all[0].split("\n").find((line) => line.trim() !== "") ?? "unknown error";
      this.uncaptured = [];
      const more = all.length > 1 ? ` (and ${all.length - 1} more)` : "";
      throw Object.assign(failure(`GPU error: ${first.trim()}${more}`), { details: all.join("\n") });
    }
  }

  /** Awaits `work` unless the device is lost first; then checks for errors. */
  async race<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failure(`GPU work did not finish within ${GPU_WAIT_LIMIT_MS / 1000} s (SUFSORT_GPU_WAIT_S)`)), GPU_WAIT_LIMIT_MS);
      timer.unref();
    });
    try {
      const value = await Promise.race([work, this.lost, stuck]);
      this.check();
      return value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until every submitted command has finished (or the device is lost). */
  async finish(): Promise<void> {
    await this.race(this.device.queue.onSubmittedWorkDone());
  }

  /**
   * Destroys the pooled buffers and the device, and drops the instance once the device's loss has
   * been reported, so the process can exit. Not before: Dawn's Node bindings poll the instance
   * through a raw pointer while any callback of the device is pending (its loss, which destroy()
   * raises, among them), so an instance collected before that is polled after it was freed. That
   * hung a test process on a freed mutex in InstanceBase::ProcessEvents, or killed it with
   * "std::system_error: Invalid argument" (Node 22: 1 in 6 runs of test/gpu/device.test.ts).
   */
  release(): void {
    if (this.gpu === undefined) return;
    const gpu = this.gpu;
    this.gpu = undefined;
    this.pool.destroyAll();
    this.pipelines.clear();
    this.device.destroy();
    void this.lost.catch(() => undefined).then(() => setImmediate(() => closeInstance(gpu)));
  }
}

/** The mode from an explicit option, else SUFSORT_GPU, else 'auto'. */
export function resolveGpuMode(option?: string): GpuMode {
  const value = option ?? process.env.SUFSORT_GPU ?? "auto";
  if (value === "hardware" || value === "software" || value === "auto") return value;
  throw new SufsortError(`invalid GPU mode '${value}' (expected hardware, software or auto)`, 2);
}

export interface AcquireOptions {
  /** Which adapter to accept; default resolveGpuMode() (SUFSORT_GPU or 'auto'). */
  mode?: GpuMode;
  /** Throw a SufsortError instead of returning null when no adapter is found. */
  required?: boolean;
}

/** Whether libvulkan.so.1 is in a library folder the dynamic loader searches. */
function hasVulkanLoader(): boolean {
  const dirs = [
    ...(process.env.LD_LIBRARY_PATH ?? "").split(":").filter((d) => d !== ""),
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
    "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib",
  ];
  return dirs.some((d) => existsSync(join(d, "libvulkan.so.1")));
}

/**
 * Opens a device. Returns null when none fits the mode (or throws when `required`).
 * The caller owns the context and must call release() when done.
 */
export async function acquireGpu(options: AcquireOptions = {}): Promise<GpuContext | null> {
  const mode = options.mode ?? resolveGpuMode();
  const software = mode === "software";
  try {
    dawn ??= await import("webgpu");
  } catch (error) {
    return none(options, mode, `cannot load Dawn (the webgpu package): ${(error as Error).message.split("\n")[0]}`);
  }
  if (!globalsInstalled) {
    Object.assign(globalThis, dawn.globals); // GPUBufferUsage, GPUMapMode, ... as in a browser
    globalsInstalled = true;
  }
  if (software) process.env.EGL_PLATFORM ??= "surfaceless";
  // Without a Vulkan loader Dawn finds no hardware adapter anyway, after printing a multi-line
  // warning to stderr: say so in one line instead.
  if (!software && process.platform === "linux" && !hasVulkanLoader()) {
    return none(options, mode, "no Vulkan loader (libvulkan.so.1) on this machine");
  }
  let gpu: GPU;
  try {
    // Full-precision timestamps: Dawn quantizes them (to ~65 us) unless told otherwise.
    gpu = software
      ? openInstance("opengles", ["backend=opengles"])
      : openInstance("default", ["disable-dawn-features=timestamp_quantization"]);
  } catch (error) {
    return none(options, mode, `cannot load Dawn: ${(error as Error).message}`);
  }
  const adapter = await gpu.requestAdapter(software ? { featureLevel: "compatibility" } : { powerPreference: "high-performance" });
  if (!adapter) return none(options, mode, "no adapter", gpu);
  const info = describe(adapter);
  const isSoftware = (adapter.info as { adapterType?: string }).adapterType === "cpu" || /llvmpipe|swiftshader|lavapipe|software/i.test(info);
  if (!software && isSoftware) return none(options, mode, `only a software adapter (${info}); ask for it with --gpu software`, gpu);

  const limits = adapter.limits;
  const requiredLimits: Record<string, number> = {
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    maxBufferSize: limits.maxBufferSize,
    maxComputeWorkgroupSizeX: Math.min(WANTED_WIDE_INVOCATIONS, limits.maxComputeWorkgroupSizeX),
    maxComputeInvocationsPerWorkgroup: Math.min(WANTED_WIDE_INVOCATIONS, limits.maxComputeInvocationsPerWorkgroup),
    maxStorageBuffersPerShaderStage: Math.min(WANTED_STORAGE_BUFFERS, limits.maxStorageBuffersPerShaderStage),
    maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
    maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
  };
  if (requiredLimits.maxComputeInvocationsPerWorkgroup < WANTED_INVOCATIONS) {
    return none(options, mode, `adapter ${info} allows only ${limits.maxComputeInvocationsPerWorkgroup} invocations per workgroup`, gpu);
  }
  const features: GpuFeatures = {
    subgroups: adapter.features.has("subgroups") && process.env.SUFSORT_GPU_SUBGROUPS !== "0",
    subgroupMinSize: (adapter.info as { subgroupMinSize?: number }).subgroupMinSize ?? 0,
    timestampQuery: adapter.features.has("timestamp-query") && process.env.SUFSORT_GPU_TIMESTAMPS !== "0",
  };
  const requiredFeatures: GPUFeatureName[] = [];
  if (features.subgroups) requiredFeatures.push("subgroups" as GPUFeatureName);
  if (features.timestampQuery) requiredFeatures.push("timestamp-query");
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ requiredLimits, requiredFeatures, label: "sufsort" });
  } catch (error) {
    return none(options, mode, `requestDevice failed on ${info}: ${(error as Error).message}`, gpu);
  }
  return new GpuContext(gpu, device, info, isSoftware, features);
}

function describe(adapter: GPUAdapter): string {
  const i = adapter.info;
  return [i.vendor, i.architecture, i.device, i.description].filter((s) => s).join(" ") || "unknown adapter";
}

function none(options: AcquireOptions, mode: GpuMode, why: string, gpu?: GPU): null {
  if (gpu) closeInstance(gpu);
  if (options.required) {
    const hint = mode === "software" ? " (the software adapter needs Mesa's EGL: libegl1 libegl-mesa0 libgl1-mesa-dri libegl-dev)" : "";
    throw failure(`no ${mode === "auto" ? "" : mode + " "}GPU available: ${why}${hint}`);
  }
  return null;
}
