// The console's table of the report's groups: each (split, source) with its NLL and bits per byte, each beside its
// interval, the counts beside them. A join of two metrics (perplexity, bits per byte), so built here, by the renderer,
// from report.json's values; neither evaluator reads the other's.
import { formatTable } from "../../util/render/table.ts";
import { reasonOf } from "../metrics/reasoned.ts";
import type { Report } from "../report/types.ts";
import { f4, interval, shown } from "./format.ts";

/** The table's lines: in a cell an interval without a value shows the first clause of its reason; the whole reason follows once. */
export function groupTableLines(r: Report): string[] {
  const p = r.perplexity;
  const reasons = new Set<string>();
  const cellOf = (record: object, key: string) => {
    const s = interval(record, key);
    if (!s.startsWith("[n/a (")) return s;
    const why = reasonOf(record, key);
    reasons.add(why);
    return `n/a (${why.split(":")[0]})`;
  };
  const table = formatTable(
    ["split/source", "NLL", "NLL 95%", "perplexity", "targets", "bits/byte", "bits/byte 95%", "bytes", "bits/char", "chars"],
    p.groups.map((g, i) => {
      const bpb = r.bits_per_byte.groups[i];
      return [
        `${g.split}/${g.source}`,
        f4(g.nll),
        cellOf(g, "block_bootstrap_95"),
        f4(g.perplexity),
        String(g.targets),
        shown(bpb, "bits_per_byte"),
        cellOf(bpb, "block_bootstrap_95"),
        String(bpb.bytes),
        shown(bpb, "bits_per_char"),
        String(bpb.chars),
      ];
    }),
    ["l", "r", "l", "r", "r", "r", "l", "r", "r", "r"],
  );
  return [
    `perplexity by split/source (stride ${p.stride}, context ${p.context_length}; NLL in nats per target, bits per byte of UTF-8 text; 95% moving-block bootstrap over windows):`,
    ...table,
    ...[...reasons].map((why) => `  n/a interval: ${why}`),
  ];
}
