// The report's perplexity evaluators: token-weighted NLL by (split, source) at the headline stride, the second
// one the stride-context pass gives (labelled apart, never compared silently), and the optional extra strides.
import { htmlTable } from "../util/render/html.ts";
import { barChartWithIntervals } from "../util/render/bar_chart.ts";
import { formatTable } from "../util/render/table.ts";
import { notShown, type Aggregation, type Evaluator } from "./evaluator.ts";
import { groupRecord, groupWindowsWithOverall, type GroupRecord } from "./grouped.ts";
import { f4, fixed, interval, shown, type Interval } from "./report_format.ts";
import { reasonOf } from "./reasoned.ts";

export interface PerplexityValue {
  readonly stride: number;
  readonly context_length: number;
  readonly unit: "nats per target";
  readonly groups: GroupRecord[];
}

/** Σ NLL / Σ targets per group; a merged group sums its sources' windows, never averages their means. */
export const TOKEN_WEIGHTED: Aggregation = { kind: "ratio-of-sums", numerator: "total_nll", denominator: "targets", over: "the windows of a (split, source) group" };

const intervalCell = (iv: Interval, reason?: string) => (iv ? { num: `[${fixed(iv.lo)}, ${fixed(iv.hi)}]` } : `n/a (${reason ?? "undefined"})`);

export const perplexityEvaluator: Evaluator<PerplexityValue> = {
  key: "perplexity", id: "windowed-perplexity", version: 1, aggregation: TOKEN_WEIGHTED,
  identity: { key: "perplexity", settings: ({ settings: s }) => ({ stride: s.stride, context_length: s.contextLength }) },
  compute: (ctx) => ({ stride: ctx.settings.stride, context_length: ctx.settings.contextLength, unit: "nats per target", groups: ctx.groups.map(groupRecord) }),
  render: {
    html: (p, r) => [{
      heading: `Perplexity by split and source (stride ${p.stride}, context ${p.context_length})`,
      html: htmlTable(["split", "source", "documents", "windows", "targets", "NLL (nats/target)", "perplexity", "95% block bootstrap (NLL)"],
        p.groups.map((g, i) => [g.split, g.source, g.documents, g.windows, g.targets, { num: fixed(g.nll) }, { num: fixed(g.perplexity, 2) }, intervalCell(r.intervals.perplexity_by_group[i].block_bootstrap_95, r.intervals.perplexity_by_group[i].block_bootstrap_95_reason)])),
    }],
    markdown: notShown,
    console: (p, r) => {
      // in the table an interval without a value shows the first clause of its reason; the whole reason follows once
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
          return [`${g.split}/${g.source}`, f4(g.nll), cellOf(r.intervals.perplexity_by_group[i], "block_bootstrap_95"), f4(g.perplexity), String(g.targets),
            shown(bpb, "bits_per_byte"), cellOf(r.intervals.bits_per_byte_by_group[i], "block_bootstrap_95"), String(bpb.bytes), shown(bpb, "bits_per_char"), String(bpb.chars)];
        }),
        ["l", "r", "l", "r", "r", "r", "l", "r", "r", "r"],
      );
      return [
        `perplexity by split/source (stride ${p.stride}, context ${p.context_length}; NLL in nats per target, bits per byte of UTF-8 text; 95% moving-block bootstrap over windows):`,
        ...table, ...[...reasons].map((why) => `  n/a interval: ${why}`),
      ];
    },
    figures: (p, r) => [{
      name: "nll_by_group.svg", title: "Model NLL per split and source",
      svg: barChartWithIntervals(
        r.intervals.perplexity_by_group.map((g) => ({ label: `${g.split} / ${g.source}`, value: g.nll, lo: g.block_bootstrap_95?.lo ?? g.nll, hi: g.block_bootstrap_95?.hi ?? g.nll, note: g.block_bootstrap_95 ? `n=${g.targets}` : `n=${g.targets}, one window: no interval` })),
        { title: `Model NLL per split and source (stride ${p.stride})`, valueLabel: "NLL (nats per target)", notes: [`95% moving-block bootstrap over windows, ${r.intervals.settings.replicates} replicates; n = scored targets`] },
      ),
    }],
  },
};

/** The perplexity the loss-by-position pass gives (stride = context); null when that is the headline stride. */
export const perplexityAtContextEvaluator: Evaluator<PerplexityValue | null> = {
  key: "perplexity_at_stride_context", id: "windowed-perplexity", version: 1, aggregation: TOKEN_WEIGHTED, // no identity of its own: loss_by_position names the pass
  compute: (ctx) => {
    const T = ctx.settings.contextLength;
    return ctx.settings.stride === T ? null : { stride: T, context_length: T, unit: "nats per target", groups: groupWindowsWithOverall(ctx.full).map(groupRecord) };
  },
  render: { html: notShown, markdown: notShown, console: notShown, figures: notShown },
};

/** Perplexity by split/source at each stride: every target once per stride, only the context before it changes. */
export interface PerplexityByStride {
  readonly note: string;
  readonly strides: { stride: number; groups: GroupRecord[] }[];
}

export const perplexityByStrideEvaluator: Evaluator<PerplexityByStride> = {
  key: "perplexity_by_stride", id: "windowed-perplexity-by-stride", version: 1, aggregation: TOKEN_WEIGHTED, // no identity: report.json has never recorded one for it
  applies: ({ settings: s }) => s.strides !== undefined,
  check: ({ settings: s }) => {
    const bad = s.strides?.find((x) => !Number.isInteger(x) || x < 1 || x > s.contextLength);
    if (bad !== undefined) throw new Error(`--strides: stride ${bad} is outside [1, ${s.contextLength}] (the model's context)`);
  },
  compute: (ctx) => ({
    note: "the same targets at every stride; a smaller stride gives each target more preceding context (stride = context: each target scored once, the last window of a long document with earlier tokens as context)",
    strides: (ctx.settings.strides ?? []).map((stride) => ({
      stride, groups: groupWindowsWithOverall(ctx.bySplit.map(([, d]) => ctx.score(ctx.model, d, stride, { tokenizer: ctx.tokenizer, rowsPerBatch: ctx.settings.rowsPerBatch }))).map(groupRecord),
    })),
  }),
  render: {
    html: notShown, markdown: notShown, figures: notShown,
    console: (p) => [
      `perplexity by stride (${p.note}):`,
      ...p.strides.map(({ stride, groups }) => `  stride ${String(stride).padStart(4)}: ${groups.map((g) => `${g.split}/${g.source} NLL ${f4(g.nll)} (${g.targets} targets, ${g.windows} windows)`).join("; ")}`),
    ],
  },
};
