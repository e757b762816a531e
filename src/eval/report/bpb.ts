// The report's bits per byte: Σ nats / (ln 2 · Σ bytes) of the scored targets per (split, source), from the headline
// windows, with its interval from the same declaration; bits per character beside it.
import { htmlTable } from "../../util/render/html.ts";
import type { RatioOfSums } from "../metrics/aggregate.ts";
import { BPB_DEFINITION } from "../metrics/bpb.ts";
import { reasoned, reasonedRecord } from "../metrics/reasoned.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { groupBpb } from "../passes/grouped.ts";
import { fixed, para } from "../render/format.ts";
import { blockIntervalSettings, groupInterval } from "./group_interval.ts";
import type { BpbValue } from "./types.ts";

const NO_BYTES = "the scored targets stand for no bytes (BOS, EOS and PAD count 0)";

/** Σ nats / (ln 2 · Σ bytes) over a group's windows (bpb.ts bitsPerByte's arithmetic), each bootstrap replicate the same ratio. */
export const BYTE_WEIGHTED = {
  kind: "ratio-of-sums",
  numerator: "total_nll",
  denominator: "bytes",
  over: "the windows of a (split, source) group",
  interval: "block-bootstrap-95",
  ratio: (nats: number, bytes: number) => nats / (Math.LN2 * bytes),
  noDenominator: NO_BYTES,
} as const satisfies RatioOfSums;

export const bpbEvaluator: Evaluator<BpbValue> = {
  key: "bits_per_byte",
  id: "bits-per-byte",
  version: 2,
  aggregation: BYTE_WEIGHTED,
  identity: {
    key: "bits_per_byte",
    settings: ({ settings: s }) => ({ stride: s.stride, definition: BPB_DEFINITION, interval: blockIntervalSettings(s) }),
  },
  compute: (ctx) => ({
    stride: ctx.settings.stride,
    definition: BPB_DEFINITION,
    interval: blockIntervalSettings(ctx.settings),
    groups: ctx.groups.map((g) => {
      const a = groupInterval(
        BYTE_WEIGHTED,
        g,
        { numerator: (w) => w.totalNll, denominator: (w) => w.bytes },
        ctx,
        `bpb/${g.split}/${g.source}`,
      );
      return {
        ...groupBpb(g, ctx.documents, ctx.tokenizer),
        ...reasoned("bits_per_byte", a.value, NO_BYTES),
        ...reasonedRecord("block_bootstrap_95", a.interval, a.interval_reason ?? ""),
      };
    }),
  }),
  render: {
    html: (b) => [
      {
        heading: `Bits per byte (stride ${b.stride})`,
        html:
          para(b.definition) +
          htmlTable(
            ["split", "source", "targets", "bytes", "chars", "bytes/target", "bits per byte", "95% block bootstrap", "bits per char"],
            b.groups.map((g) => {
              const cell = g.block_bootstrap_95
                ? { num: `[${fixed(g.block_bootstrap_95.lo)}, ${fixed(g.block_bootstrap_95.hi)}]` }
                : `n/a (${g.block_bootstrap_95_reason ?? "undefined"})`;
              return [
                g.split,
                g.source,
                g.targets,
                g.bytes,
                g.chars,
                { num: fixed(g.bytes_per_target) },
                { num: fixed(g.bits_per_byte) },
                cell,
                { num: fixed(g.bits_per_char) },
              ];
            }),
          ),
      },
    ],
    // the console shows bits per byte in the group table (render/group_table.ts), beside the NLL of the same group
    markdown: notShown,
    console: notShown,
    figures: notShown,
  },
};
