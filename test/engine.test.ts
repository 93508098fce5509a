// The build path: which inputs take the TypeScript path beyond the WebAssembly memory, and that
// path's results (forced here on small inputs).
import { describe, expect, it } from "vitest";
import { buildLarge, resolveSorter, usesLargePath, fitsHeap, MAX_INPUT_BYTES } from "../src/engine/build.js";
import { naiveSuffixArray, randomText, hardFamilies } from "./support/inputs.js";

describe("build path", () => {
  it("sends only inputs beyond the 4 GiB WebAssembly memory to the TypeScript SA-IS", () => {
    const sais = resolveSorter("sais");
    expect(usesLargePath(0, sais)).toBe(false);
    expect(usesLargePath(100_000_000, sais)).toBe(false);
    expect(fitsHeap(MAX_INPUT_BYTES, sais)).toBe(false);
    expect(usesLargePath(MAX_INPUT_BYTES, sais)).toBe(true);
  });

  it("the large path builds and verifies correct suffix arrays", async () => {
    for (const t of [new Uint8Array(0), Uint8Array.of(7), randomText(3000, 4, 1), randomText(3000, 256, 2), ...hardFamilies(2000).map(([, t]) => t)]) {
      const r = await buildLarge(t, { verify: true });
      expect(r.verdict).toEqual({ ok: true });
      expect(r.sa).toEqual(naiveSuffixArray(t));
    }
  });
});
