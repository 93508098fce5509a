// Cross-checking: every available algorithm against SA-IS on one text, byte for byte.
import { buildSuffixArray } from "./build.js";
import { firstDifference } from "./compare.js";
import { listSorters, type SuffixSorter } from "./registry.js";

export interface CrosscheckRow {
  algo: string;
  engine: string;
  /** Construction time, or null when the algorithm failed. */
  seconds: number | null;
  /** Equal to SA-IS; null when the algorithm failed. */
  equal: boolean | null;
  note: string;
}

/** Builds with SA-IS, then with each other sorter (default: all registered), comparing each result. */
export async function crosscheck(text: Uint8Array, options: { threads?: number; sorters?: SuffixSorter[] } = {}): Promise<CrosscheckRow[]> {
  const reference = await buildSuffixArray(text, { algo: "sais", threads: options.threads });
  const expected = reference.sa.slice();
  const rows: CrosscheckRow[] = [{ algo: "sais", engine: "cpu", seconds: reference.seconds, equal: true, note: "reference" }];
  for (const sorter of options.sorters ?? listSorters()) {
    if (sorter.name === "sais") continue;
    try {
      const r = await buildSuffixArray(text, { algo: sorter.name, threads: options.threads });
      const at = firstDifference(r.sa, expected);
      rows.push({ algo: r.algo, engine: r.engine, seconds: r.seconds, equal: at < 0, note: at < 0 ? "" : `first difference at SA[${at}]` });
    } catch (e) {
      rows.push({ algo: sorter.name, engine: sorter.engine, seconds: null, equal: null, note: (e as Error).message });
    }
  }
  return rows;
}
