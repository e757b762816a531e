// The report's perplexity evaluators: token-weighted NLL by (split, source) at the headline stride with its interval,
// the second one the stride-context pass gives (labelled apart, never compared silently), and the optional extra strides.
import { htmlTable } from "../../util/render/html.ts";
import { barChartWithIntervals } from "../../util/render/bar_chart.ts";
import type { RatioOfSums } from "../metrics/aggregate.ts";
import { reasonedRecord } from "../metrics/reasoned.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { groupRecord, groupWindowsWithOverall } from "../passes/grouped.ts";
import { groupTableLines } from "../render/group_table.ts";
import { f4, fixed, type Interval } from "../render/format.ts";
import { blockIntervalSettings, groupInterval } from "./group_interval.ts";
import type { PerplexityByStride, PerplexityValue } from "./types.ts";

/** Σ NLL / Σ targets per group; a merged group sums its sources' windows, never averages their means. */
export const TOKEN_WEIGHTED: RatioOfSums = {
  kind: "ratio-of-sums",
  numerator: "total_nll",
  denominator: "targets",
  over: "the windows of a (split, source) group",
};
/** The headline's: the same ratio with a block bootstrap over the group's windows. */
const TOKEN_WEIGHTED_WITH_INTERVAL = { ...TOKEN_WEIGHTED, interval: "block-bootstrap-95" } as const;

const intervalCell = (iv: Interval, reason?: string) =>
  iv ? { num: `[${fixed(iv.lo)}, ${fixed(iv.hi)}]` } : `n/a (${reason ?? "undefined"})`;

export const perplexityEvaluator: Evaluator<PerplexityValue> = {
  key: "perplexity",
  id: "windowed-perplexity",
  version: 2,
  aggregation: TOKEN_WEIGHTED_WITH_INTERVAL,
  identity: {
    key: "perplexity",
    settings: ({ settings: s }) => ({ stride: s.stride, context_length: s.contextLength, interval: blockIntervalSettings(s) }),
  },
  compute: (ctx) => ({
    stride: ctx.settings.stride,
    context_length: ctx.settings.contextLength,
    unit: "nats per target",
    interval: blockIntervalSettings(ctx.settings),
    groups: ctx.groups.map((g) => {
      const a = groupInterval(
        TOKEN_WEIGHTED_WITH_INTERVAL,
        g,
        { numerator: (w) => w.totalNll, denominator: (w) => w.scored },
        ctx,
        `${g.split}/${g.source}`,
      );
      return { ...groupRecord(g), nll: a.value, ...reasonedRecord("block_bootstrap_95", a.interval, a.interval_reason ?? "") };
    }),
  }),
  render: {
    html: (p) => [
      {
        heading: `Perplexity by split and source (stride ${p.stride}, context ${p.context_length})`,
        html: htmlTable(
          ["split", "source", "documents", "windows", "targets", "NLL (nats/target)", "perplexity", "95% block bootstrap (NLL)"],
          p.groups.map((g) => [
            g.split,
            g.source,
            g.documents,
            g.windows,
            g.targets,
            { num: fixed(g.nll) },
            { num: fixed(g.perplexity, 2) },
            intervalCell(g.block_bootstrap_95, g.block_bootstrap_95_reason),
          ]),
        ),
      },
    ],
    markdown: notShown,
    // the console's table joins perplexity and bits per byte by group: the renderer's (render/group_table.ts)
    console: (_p, r) => groupTableLines(r),
    figures: (p) => [
      {
        name: "nll_by_group.svg",
        title: "Model NLL per split and source",
        svg: barChartWithIntervals(
          p.groups.map((g) => ({
            label: `${g.split} / ${g.source}`,
            value: g.nll,
            lo: g.block_bootstrap_95?.lo ?? g.nll,
            hi: g.block_bootstrap_95?.hi ?? g.nll,
            note: g.block_bootstrap_95 ? `n=${g.targets}` : `n=${g.targets}, one window: no interval`,
          })),
          {
            title: `Model NLL per split and source (stride ${p.stride})`,
            valueLabel: "NLL (nats per target)",
            notes: [`95% moving-block bootstrap over windows, ${p.interval?.replicates} replicates; n = scored targets`],
          },
        ),
      },
    ],
  },
};

/** The perplexity the loss-by-position pass gives (stride = context); null when that is the headline stride. */
export const perplexityAtContextEvaluator: Evaluator<PerplexityValue | null> = {
  key: "perplexity_at_stride_context",
  id: "windowed-perplexity",
  version: 1,
  aggregation: TOKEN_WEIGHTED, // no identity of its own: loss_by_position names the pass
  compute: (ctx) => {
    const T = ctx.settings.contextLength;
    return ctx.settings.stride === T
      ? null
      : { stride: T, context_length: T, unit: "nats per target", groups: groupWindowsWithOverall(ctx.full).map(groupRecord) };
  },
  render: { html: notShown, markdown: notShown, console: notShown, figures: notShown },
};

export const perplexityByStrideEvaluator: Evaluator<PerplexityByStride> = {
  key: "perplexity_by_stride",
  id: "windowed-perplexity-by-stride",
  version: 1,
  aggregation: TOKEN_WEIGHTED, // no identity: report.json has never recorded one for it
  applies: ({ settings: s }) => s.strides !== undefined,
  check: ({ settings: s }) => {
    const bad = s.strides?.find((x) => !Number.isInteger(x) || x < 1 || x > s.contextLength);
    if (bad !== undefined) throw new Error(`--strides: stride ${bad} is outside [1, ${s.contextLength}] (the model's context)`);
  },
  compute: (ctx) => ({
    note: "the same targets at every stride; a smaller stride gives each target more preceding context (stride = context: each target scored once, the last window of a long document with earlier tokens as context)",
    strides: (ctx.settings.strides ?? []).map((stride) => ({
      stride,
      groups: groupWindowsWithOverall(
        ctx.bySplit.map(([, d]) => ctx.score(ctx.model, d, stride, { tokenizer: ctx.tokenizer, rowsPerBatch: ctx.settings.rowsPerBatch })),
      ).map(groupRecord),
    })),
  }),
  render: {
    html: notShown,
    markdown: notShown,
    figures: notShown,
    console: (p) => [
      `perplexity by stride (${p.note}):`,
      ...p.strides.map(
        ({ stride, groups }) =>
          `  stride ${String(stride).padStart(4)}: ${groups.map((g) => `${g.split}/${g.source} NLL ${f4(g.nll)} (${g.targets} targets, ${g.windows} windows)`).join("; ")}`,
      ),
    ],
  },
};
