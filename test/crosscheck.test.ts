// crosscheck: agreement is reported as equal, a wrong or failing algorithm is caught.
import { describe, expect, it } from "vitest";
import { crosscheck } from "../src/engine/crosscheck.js";
import { registerSorter, type SuffixSorter } from "../src/engine/registry.js";
import { randomText } from "./support/inputs.js";

const base = { engine: "cpu" as const, maxLength: 2 ** 31 - 1, scratchBytes: () => 0 };

const reversed: SuffixSorter = {
  ...base,
  name: "test-reversed",
  description: "wrong on purpose: the identity permutation",
  async build(ctx) {
    const sa = ctx.heap.u32(ctx.saPtr, ctx.n);
    for (let i = 0; i < ctx.n; i++) sa[i] = i;
  },
};

const throwing: SuffixSorter = {
  ...base,
  name: "test-throwing",
  description: "fails on purpose",
  async build() {
    throw new Error("no device");
  },
};

describe("crosscheck", () => {
  it("marks SA-IS as the reference and catches a wrong and a failing algorithm", async () => {
    registerSorter(reversed);
    registerSorter(throwing);
    const rows = await crosscheck(randomText(5000, 4, 3));
    expect(rows[0]).toMatchObject({ algo: "sais", equal: true, note: "reference" });
    expect(rows.find((r) => r.algo === "test-reversed")).toMatchObject({ equal: false });
    expect(rows.find((r) => r.algo === "test-reversed")?.note).toMatch(/first difference at SA\[0\]/);
    expect(rows.find((r) => r.algo === "test-throwing")).toMatchObject({ equal: null, seconds: null, note: "no device" });
  });
});
