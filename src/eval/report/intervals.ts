// The report's intervals: a 95% moving-block bootstrap over windows of each group's NLL and of its bits per
// byte (a ratio Σ bits / Σ bytes, resampled as one), the naive standard error beside it, and Wilson intervals
// of next-token accuracy. Each group resamples from its own named stream, so adding a group moves no other.
import { notShown, type Evaluator } from "./evaluator.ts";
import { blockBootstrap, blockBootstrapRatio, MIN_INTERVAL_DOCUMENTS, tokenWeightedStandardError, tooFewDocuments, wilsonInterval } from "../metrics/intervals.ts";
import { reasoned, reasonedRecord, type Reasoned } from "../metrics/reasoned.ts";
import type { Split } from "../../data/documents.ts";
import type { IntervalsValue, ReportSettings } from "./types.ts";

const ONE_WINDOW = "one window: a bootstrap or standard error over windows needs at least two";
const NO_BYTES = "the scored targets stand for no bytes (BOS, EOS and PAD count 0)";

/** The reason a group's windows are too few documents for an interval, or undefined when they are enough. */
const tooFew = (windows: readonly { doc: string }[]): string | undefined => {
  const n = new Set(windows.map((w) => w.doc)).size;
  return n < MIN_INTERVAL_DOCUMENTS ? tooFewDocuments(n) : undefined;
};



const intervalSettings = (s: ReportSettings) => ({ replicates: s.replicates, level: 0.95, block_length: "round(cbrt(windows))", seed: s.seed });

export const intervalsEvaluator: Evaluator<IntervalsValue> = {
  key: "intervals", id: "intervals", version: 1,
  aggregation: { kind: "per-item", item: "(split, source) group: replicates resample its windows, each a (Σ NLL, targets) pair" },
  identity: { key: "intervals", settings: ({ settings }) => intervalSettings(settings) },
  compute: ({ groups, settings, rng }, done) => {
    const boot = rng.child("bootstrap"), replicates = settings.replicates;
    const record = (b: { lo: number; hi: number; se: number; blockLength: number; replicates: number }) => ({ lo: b.lo, hi: b.hi, se: b.se, block_length: b.blockLength, replicates: b.replicates });
    return {
      settings: intervalSettings(settings),
      // one window cannot be resampled: every replicate is that window, so [x, x] would be no interval at all
      perplexity_by_group: groups.map((g) => {
        const means = g.windows.map((w) => w.totalNll / w.scored), counts = g.windows.map((w) => w.scored);
        const b = blockBootstrap(means, counts, boot.child(`${g.split}/${g.source}`), { replicates });
        const naive = tokenWeightedStandardError(means, counts);
        const few = tooFew(g.windows);
        return {
          split: g.split, source: g.source, stride: g.stride, windows: g.windows.length, targets: naive.tokens, nll: b.estimate,
          ...reasonedRecord("block_bootstrap_95", g.windows.length < 2 || few ? null : record(b), g.windows.length < 2 ? ONE_WINDOW : few ?? ONE_WINDOW),
          ...reasoned("independent_windows_se", naive.se, ONE_WINDOW),
        };
      }),
      // the same resampling of windows for the ratio Σ(nats/ln 2)/Σbytes, from its own stream
      bits_per_byte_by_group: groups.map((g) => {
        const num = g.windows.map((w) => w.totalNll / Math.LN2), den = g.windows.map((w) => w.bytes);
        const bytes = den.reduce((s, d) => s + d, 0);
        const b = bytes > 0 ? blockBootstrapRatio(num, den, boot.child(`bpb/${g.split}/${g.source}`), { replicates }) : null;
        return {
          split: g.split, source: g.source, stride: g.stride, windows: g.windows.length,
          ...reasoned("bits_per_byte", b?.estimate ?? NaN, NO_BYTES),
          ...reasonedRecord("block_bootstrap_95", b && g.windows.length > 1 && !tooFew(g.windows) ? record(b) : null, bytes === 0 ? NO_BYTES : g.windows.length < 2 ? ONE_WINDOW : tooFew(g.windows) ?? ONE_WINDOW),
        };
      }),
      next_token_accuracy: (done.calibration?.by_split ?? []).map((c) => ({ split: c.split, stride: settings.calibrationStride, ...c.accuracy, wilson95: c.accuracy.predictions > 0 ? wilsonInterval(c.accuracy.correct, c.accuracy.predictions) : null })),
    };
  },
  // shown beside the numbers they bound: by perplexity, bits per byte and calibration, and in the headline
  render: { html: notShown, markdown: notShown, console: notShown, figures: notShown },
};
