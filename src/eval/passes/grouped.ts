// Perplexity and bits per byte grouped by (split, source) from window scores, with target, byte and
// character counts beside every number. A reduction of sums only: no model and no averaging of means.
import type { Document, Split } from "../../data/documents.ts";
import type { Tokenizer } from "../../data/tokenizer.ts";
import { bpbRecord, scoredBytes, scoredChars } from "../metrics/bpb.ts";
import { meanNll, perplexity } from "../metrics/summary.ts";
import type { WindowedResult, WindowScore } from "./windowed.ts";

/** The windows of one (split, source) group, in document order. */
export interface WindowGroup {
  readonly split: Split;
  readonly source: string;
  readonly stride: number;
  readonly windows: readonly WindowScore[];
}

/** Group the windows of several results (one per split, all at one stride) by (split, source). */
export function groupWindows(results: readonly WindowedResult[]): WindowGroup[] {
  const strides = new Set(results.map((r) => r.stride));
  if (strides.size > 1) throw new Error(`refusing to group results of different strides (${[...strides].join(", ")})`);
  const groups = new Map<string, { split: Split; source: string; stride: number; windows: WindowScore[] }>();
  for (const r of results) {
    for (const w of r.windows) {
      const key = JSON.stringify([w.split, w.source]);
      if (!groups.has(key)) groups.set(key, { split: w.split, source: w.source, stride: r.stride, windows: [] });
      groups.get(key)!.windows.push(w);
    }
  }
  return [...groups.values()];
}

/** Source name of the per-split group that merges every source. */
export const ALL_SOURCES = "(all sources)";

/** Groups by (split, source), plus one merged group per split that has more than one source. */
export function groupWindowsWithOverall(results: readonly WindowedResult[]): WindowGroup[] {
  const groups = groupWindows(results);
  const overall = results
    .filter((r) => new Set(r.windows.map((w) => w.source)).size > 1)
    .map((r) => ({ split: r.split, source: ALL_SOURCES, stride: r.stride, windows: r.windows }));
  return [...groups, ...overall];
}

/** One row of the grouped table; `nll` is nats per target and `perplexity` its exp, both from the sums. */
export interface GroupRecord {
  split: Split;
  source: string;
  stride: number;
  documents: number;
  windows: number;
  targets: number;
  total_nll: number;
  nll: number;
  perplexity: number;
}

export function groupRecord(g: WindowGroup): GroupRecord {
  const total = g.windows.reduce((s, w) => s + w.totalNll, 0);
  const targets = g.windows.reduce((n, w) => n + w.scored, 0);
  const s = { totalNll: total, targets };
  return {
    split: g.split,
    source: g.source,
    stride: g.stride,
    documents: new Set(g.windows.map((w) => w.doc)).size,
    windows: g.windows.length,
    targets,
    total_nll: total,
    nll: meanNll(s),
    perplexity: perplexity(s),
  };
}

/**
 * Bits per byte and per character of one group. Bytes are summed over the windows' scored targets and
 * must equal the documents' scored bytes (each target is scored once); a mismatch is refused.
 */
export function groupBpb(g: WindowGroup, docs: readonly Document[], tokenizer: Pick<Tokenizer, "bytesOf" | "decode">) {
  const ids = new Set(g.windows.map((w) => w.doc));
  const members = docs.filter((d) => ids.has(d.id));
  const bytes = members.reduce((n, d) => n + scoredBytes(tokenizer, d.ids), 0);
  const windowBytes = g.windows.reduce((n, w) => n + w.bytes, 0);
  if (windowBytes !== bytes) throw new Error(`${g.split}/${g.source}: windows scored ${windowBytes} bytes but the documents hold ${bytes}`);
  const chars = members.reduce((n, d) => n + scoredChars(tokenizer, d.ids), 0);
  const r = groupRecord(g);
  return { split: g.split, source: g.source, stride: g.stride, ...bpbRecord(r.total_nll, r.targets, bytes, chars) };
}
