// Typed arrays over SharedArrayBuffers sent to workers as their buffer, offset and length: V8's
// message serializer keeps a view's byte length modulo 2^32, so a view of 4 GiB or more arrived
// short (the psi of a BWT of 2^31 - 1 bytes, 2^31 entries, arrived empty; the walk over it then
// failed). PlainSteps packs its tasks' arguments; workers/plain.ts unpacks them.

const VIEW_TYPES = { Uint8Array, Uint16Array, Uint32Array, Int32Array, Float64Array };
type ViewType = keyof typeof VIEW_TYPES;

/** A typed array over a SharedArrayBuffer as what makes it again. */
interface PackedView {
  sharedView: ViewType;
  buffer: SharedArrayBuffer;
  byteOffset: number;
  length: number;
}

function isArgs(args: unknown): args is Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args) && !ArrayBuffer.isView(args);
}

/** `args` (an object of a step's arguments) with each typed array over a SharedArrayBuffer packed. */
export function packViews<A>(args: A): A {
  if (!isArgs(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const type = ArrayBuffer.isView(value) && value.buffer instanceof SharedArrayBuffer ? value.constructor.name : "";
    if (type in VIEW_TYPES) {
      const view = value as Uint8Array;
      out[key] = { sharedView: type as ViewType, buffer: view.buffer as unknown as SharedArrayBuffer, byteOffset: view.byteOffset, length: view.length } satisfies PackedView;
    } else {
      out[key] = value;
    }
  }
  return out as A;
}

/** packViews undone. */
export function unpackViews<A>(args: A): A {
  if (!isArgs(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const packed = value as Partial<PackedView> | null;
    out[key] = typeof packed === "object" && packed !== null && typeof packed.sharedView === "string" && packed.sharedView in VIEW_TYPES && packed.buffer instanceof SharedArrayBuffer
      ? new VIEW_TYPES[packed.sharedView](packed.buffer as unknown as ArrayBuffer, packed.byteOffset, packed.length)
      : value;
  }
  return out as A;
}
