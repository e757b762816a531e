// The interval of a (split, source) group's declared ratio of sums, shared by the evaluators whose groups carry one
// (perplexity, bits per byte): aggregate() over the group's windows from the report's "bootstrap" stream, each group
// from a child named after it, so adding a group or a metric moves no other's draws.
import { aggregate, type Aggregated, type BlockInterval, type RatioOfSums } from "../metrics/aggregate.ts";
import type { WindowGroup } from "../passes/grouped.ts";
import type { WindowScore } from "../passes/windowed.ts";
import type { ReportContext } from "./evaluator.ts";
import type { IntervalSettings, ReportSettings } from "./types.ts";

/** How the block-bootstrap intervals were drawn: recorded beside them and hashed into their evaluators' identities. */
export const blockIntervalSettings = (s: ReportSettings): IntervalSettings => ({
  method: "moving-block bootstrap over windows",
  replicates: s.replicates,
  level: 0.95,
  block_length: "round(cbrt(windows))",
  seed: s.seed,
});

/** The declared ratio over `g`'s windows (`numerator`, `denominator` of each) and its interval, from stream `bootstrap/<stream>`. */
export function groupInterval(
  a: RatioOfSums & { interval: "block-bootstrap-95" },
  g: WindowGroup,
  parts: { numerator(w: WindowScore): number; denominator(w: WindowScore): number },
  ctx: Pick<ReportContext, "rng" | "settings">,
  stream: string,
): Aggregated<BlockInterval> {
  const items = {
    numerators: g.windows.map(parts.numerator),
    denominators: g.windows.map(parts.denominator),
    documents: new Set(g.windows.map((w) => w.doc)).size,
  };
  return aggregate(a, items, { rng: ctx.rng.child("bootstrap").child(stream), replicates: ctx.settings.replicates });
}
