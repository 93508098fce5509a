// The linear verifier: accepts every correct SA, rejects every corruption, and names a real fault.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { suffixArray, verifySuffixArray } from "../src/index.js";
import { hardFamilies, naiveSuffixArray, randomText, rng } from "./support/inputs.js";
import { verifyLarge } from "../src/engine/verify-large.js";

/** Whether adjacent entries k, k+1 of sa violate the definition (the verifier's message must point at one). */
function violatesAt(t: Uint8Array, sa: Uint32Array, k: number): boolean {
  const n = t.length;
  const rank = new Int32Array(n);
  sa.forEach((s, r) => (rank[s] = r));
  const i = sa[k];
  const j = sa[k + 1];
  if (t[i] !== t[j]) return t[i] > t[j];
  const ri = i + 1 < n ? rank[i + 1] : -1;
  const rj = j + 1 < n ? rank[j + 1] : -1;
  return ri >= rj;
}

describe("verifySuffixArray", () => {
  it("accepts correct suffix arrays of random texts of every alphabet size", async () => {
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let n = 0; n < 300; n += 7) {
        const t = randomText(n, sigma, n * 31 + sigma);
        expect(await verifySuffixArray(t, naiveSuffixArray(t))).toEqual({ ok: true });
      }
    }
  });

  it("accepts correct suffix arrays of the hard families", async () => {
    for (const [, t] of hardFamilies(2000)) {
      expect(await verifySuffixArray(t, naiveSuffixArray(t))).toEqual({ ok: true });
    }
  });

  it("accepts the empty and 1-byte inputs", async () => {
    expect(await verifySuffixArray(new Uint8Array(0), new Uint32Array(0))).toEqual({ ok: true });
    expect(await verifySuffixArray(new Uint8Array([0]), Uint32Array.of(0))).toEqual({ ok: true });
  });

  it("rejects two swapped entries, naming an out-of-order pair", async () => {
    const t = randomText(1000, 4, 5);
    const sa = naiveSuffixArray(t);
    const r = rng(9);
    for (let trial = 0; trial < 50; trial++) {
      const bad = sa.slice();
      const a = Math.floor(r() * 1000);
      let b = Math.floor(r() * 1000);
      if (a === b) b = (b + 1) % 1000;
      [bad[a], bad[b]] = [bad[b], bad[a]];
      const v = await verifySuffixArray(t, bad);
      expect(v.ok).toBe(false);
      if (!v.ok) {
        expect(v.kind).toBe("order");
        expect(violatesAt(t, bad, v.position)).toBe(true);
      }
    }
  });

  it("rejects a duplicate entry", async () => {
    const t = new TextEncoder().encode("mississippi");
    const sa = naiveSuffixArray(t);
    sa[7] = sa[3];
    const v = await verifySuffixArray(t, sa);
    expect(v).toMatchObject({ ok: false, kind: "duplicate" });
  });

  it("rejects an entry out of range", async () => {
    const t = new TextEncoder().encode("banana");
    const sa = Uint32Array.of(5, 3, 1, 0, 4, 6);
    expect(await verifySuffixArray(t, sa)).toMatchObject({ ok: false, kind: "range", position: 5 });
    sa[0] = 0xffffffff;
    expect(await verifySuffixArray(t, sa)).toMatchObject({ ok: false, kind: "range", position: 0 });
  });

  it("rejects a wrong length", async () => {
    const t = new TextEncoder().encode("banana");
    expect(await verifySuffixArray(t, Uint32Array.of(5, 3, 1, 0, 4))).toMatchObject({ ok: false, kind: "length" });
    expect(await verifySuffixArray(t, Uint32Array.of(5, 3, 1, 0, 4, 2, 6))).toMatchObject({ ok: false, kind: "length" });
  });

  it("rejects every permutation that is not the suffix array (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 40, max: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }),
        async (t, swaps) => {
          const sa = naiveSuffixArray(t);
          const bad = sa.slice();
          for (const [a, b] of swaps) {
            const i = a % t.length;
            const j = b % t.length;
            [bad[i], bad[j]] = [bad[j], bad[i]];
          }
          const same = bad.every((x, k) => x === sa[k]);
          const v = await verifySuffixArray(t, bad);
          expect(v.ok).toBe(same);
          if (!v.ok) expect(violatesAt(t, bad, v.position)).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 42 },
    );
  });

  it("checks a 32 MiB random input built by the default algorithm, and catches one corruption in it", async () => {
    const t = randomText(32 << 20, 256, 2024);
    const sa = await suffixArray(t);
    expect(sa.length).toBe(t.length);
    expect(await verifySuffixArray(t, sa)).toEqual({ ok: true });
    const bad = sa.slice();
    const k = 12_345_678;
    [bad[k], bad[k + 1]] = [bad[k + 1], bad[k]];
    const v = await verifySuffixArray(t, bad);
    expect(v).toMatchObject({ ok: false, kind: "order", position: k });
  });
});

describe("verifyLarge (the TypeScript twin for inputs beyond the WebAssembly memory)", () => {
  it("gives the same verdict as the WebAssembly verifier on correct and corrupted arrays", async () => {
    const r = rng(3);
    for (let trial = 0; trial < 300; trial++) {
      const n = Math.floor(r() * 200);
      const t = randomText(n, [1, 2, 4, 26, 256][trial % 5], trial);
      const sa = naiveSuffixArray(t);
      if (n > 0 && trial % 4 !== 0) {
        const a = Math.floor(r() * n);
        const b = Math.floor(r() * n);
        if (trial % 4 === 1) [sa[a], sa[b]] = [sa[b], sa[a]];
        else if (trial % 4 === 2) sa[a] = sa[b];
        else sa[a] = n + b;
      }
      expect(verifyLarge(t, sa)).toEqual(await verifySuffixArray(t, sa));
    }
    const t = new TextEncoder().encode("banana");
    expect(verifyLarge(t, Uint32Array.of(5, 3, 1))).toEqual(await verifySuffixArray(t, Uint32Array.of(5, 3, 1)));
  });
});
