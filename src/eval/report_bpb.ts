// The report's bits per byte: Σ(nats / ln 2) / Σ bytes of the scored targets per (split, source), from the
// headline windows; bits per character beside it. The number only: its interval is the intervals evaluator's.
import { htmlTable } from "../util/render/html.ts";
import { BPB_DEFINITION } from "./bpb.ts";
import { notShown, type Aggregation, type Evaluator } from "./evaluator.ts";
import { groupBpb } from "./grouped.ts";
import { fixed, para } from "./report_format.ts";

export interface BpbValue {
  readonly stride: number;
  readonly definition: string;
  readonly groups: ReturnType<typeof groupBpb>[];
}

export const BYTE_WEIGHTED: Aggregation = { kind: "ratio-of-sums", numerator: "total_nll / ln 2", denominator: "bytes", over: "the windows of a (split, source) group" };

export const bpbEvaluator: Evaluator<BpbValue> = {
  key: "bits_per_byte", id: "bits-per-byte", version: 1, aggregation: BYTE_WEIGHTED,
  identity: { key: "bits_per_byte", settings: ({ settings: s }) => ({ stride: s.stride, definition: BPB_DEFINITION }) },
  compute: (ctx) => ({ stride: ctx.settings.stride, definition: BPB_DEFINITION, groups: ctx.groups.map((g) => groupBpb(g, ctx.documents, ctx.tokenizer)) }),
  render: {
    html: (b, r) => [{
      heading: `Bits per byte (stride ${b.stride})`,
      html: para(b.definition) + htmlTable(["split", "source", "targets", "bytes", "chars", "bytes/target", "bits per byte", "95% block bootstrap", "bits per char"],
        b.groups.map((g, i) => {
          const iv = r.intervals.bits_per_byte_by_group[i];
          const cell = iv.block_bootstrap_95 ? { num: `[${fixed(iv.block_bootstrap_95.lo)}, ${fixed(iv.block_bootstrap_95.hi)}]` } : `n/a (${iv.block_bootstrap_95_reason ?? "undefined"})`;
          return [g.split, g.source, g.targets, g.bytes, g.chars, { num: fixed(g.bytes_per_target) }, { num: fixed(g.bits_per_byte) }, cell, { num: fixed(g.bits_per_char) }];
        })),
    }],
    // the console shows bits per byte in the perplexity table, beside the NLL of the same group
    markdown: notShown, console: notShown, figures: notShown,
  },
};
