// Aggregation as code, as lm-evaluation-harness registers each metric beside its aggregation and gives every one
// its error bar through stderr_for_metric: a metric declares how its per-item values combine and which interval goes
// with that, and aggregate() turns the declaration and the items into the value and its interval, or the reason
// there is none. Pure; resampling takes its Rng explicitly. Not a metric itself.
import type { Rng } from "../../util/primitives/rng.ts";
import { blockBootstrapRatio, MIN_INTERVAL_DOCUMENTS, tooFewDocuments, wilsonInterval } from "./intervals.ts";

/**
 * Which interval a ratio of sums carries. `block-bootstrap-95`: a 95% moving-block bootstrap over its items in
 * their order (windows, adjacent ones sharing a document), each replicate the same ratio of resampled sums.
 * `wilson-95`: Wilson's 95% interval of Σ successes among Σ trials (each item a 0/1 success over one trial).
 */
export type IntervalMethod = "block-bootstrap-95" | "wilson-95";

/** A ratio of sums: Σ numerator / Σ denominator over the items, divided once, never a mean of means. */
export interface RatioOfSums {
  readonly kind: "ratio-of-sums";
  readonly numerator: string;
  readonly denominator: string;
  readonly over: string;
  /** The interval that goes with it; absent: the value alone. */
  readonly interval?: IntervalMethod;
  /** The value from the two sums when it is not their plain quotient (bits per byte: Σ nats / (ln 2 · Σ bytes)). */
  readonly ratio?: (numerator: number, denominator: number) => number;
  /** Why there is no value when the denominators sum to 0. */
  readonly noDenominator?: string;
}

/**
 * How per-item numbers combine into the reported one. `ratio-of-sums`: see RatioOfSums (token-weighted NLL, bits
 * per byte, accuracy). `per-item`: each item is reported on its own (a position, a bin, a sample, a document) and
 * nothing is pooled across them. `mean-over-items`: an unweighted mean over the named items, said so because it is
 * the exception.
 */
export type Aggregation =
  RatioOfSums | { readonly kind: "per-item"; readonly item: string } | { readonly kind: "mean-over-items"; readonly item: string };

/** The items of a ratio of sums, in order, and how many documents they come from (what an interval resamples, in effect). */
export interface RatioItems {
  readonly numerators: readonly number[];
  readonly denominators: readonly number[];
  readonly documents: number;
}

/** A moving-block bootstrap interval as report.json holds it. */
export interface BlockInterval {
  lo: number;
  hi: number;
  se: number;
  block_length: number;
  replicates: number;
}
/** A Wilson interval as report.json holds it. */
export interface WilsonBounds {
  lo: number;
  hi: number;
}

/** The value, and its interval or why it has none (`interval` null exactly when `interval_reason` is set). */
export interface Aggregated<I> {
  readonly value: number;
  readonly interval: I | null;
  readonly interval_reason?: string;
}

export const ONE_WINDOW = "one window: a bootstrap or standard error over windows needs at least two";

/** Σ numerator / Σ denominator of `items` (NaN when the denominators sum to 0): the plain ratio-of-sums reduction. */
export function ratioOfSums(items: readonly { readonly numerator: number; readonly denominator: number }[]): number {
  const den = items.reduce((s, x) => s + x.denominator, 0);
  return den === 0 ? NaN : items.reduce((s, x) => s + x.numerator, 0) / den;
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/** Successes among items that are each one trial (a question, a target): Σ 0/1 / n with Wilson's interval. */
export const PROPORTION = {
  kind: "ratio-of-sums",
  numerator: "successes",
  denominator: "items",
  over: "the items",
  interval: "wilson-95",
  noDenominator: "no items",
} as const satisfies RatioOfSums;

/** The proportion of `successes` (each 0 or 1) with its Wilson interval, gated on `documents` (default: each item is one). */
export function proportion(successes: readonly number[], documents = successes.length): Aggregated<WilsonBounds> {
  return aggregate(PROPORTION, { numerators: successes, denominators: successes.map(() => 1), documents });
}

/**
 * The declared ratio of `items` and its declared interval. No interval under MIN_INTERVAL_DOCUMENTS documents, over
 * one window (a block bootstrap of one window is [x, x]) or when the denominators sum to 0: null and the reason.
 * `rng` (a stream of the metric's own) and `replicates` feed the block bootstrap.
 */
export function aggregate(
  a: RatioOfSums & { interval: "block-bootstrap-95" },
  items: RatioItems,
  opts: { rng: Rng; replicates: number },
): Aggregated<BlockInterval>;
export function aggregate(a: RatioOfSums & { interval: "wilson-95" }, items: RatioItems): Aggregated<WilsonBounds>;
export function aggregate(
  a: RatioOfSums,
  items: RatioItems,
  opts?: { rng: Rng; replicates: number },
): Aggregated<BlockInterval | WilsonBounds>;
export function aggregate(
  a: RatioOfSums,
  items: RatioItems,
  opts?: { rng: Rng; replicates: number },
): Aggregated<BlockInterval | WilsonBounds> {
  const { numerators, denominators, documents } = items;
  if (numerators.length !== denominators.length)
    throw new Error(
      `aggregate (${a.numerator} / ${a.denominator}): ${numerators.length} numerators but ${denominators.length} denominators`,
    );
  const num = sum(numerators),
    den = sum(denominators);
  const ratio = a.ratio ?? ((n: number, d: number) => n / d);
  const value = den === 0 ? NaN : ratio(num, den);
  const none = (reason: string) => ({ value, interval: null, interval_reason: reason });
  if (a.interval === undefined) return none("no interval declared");
  if (den === 0) return none(a.noDenominator ?? `the ${a.denominator} sum to 0`);
  if (a.interval === "block-bootstrap-95" && numerators.length < 2) return none(ONE_WINDOW);
  if (documents < MIN_INTERVAL_DOCUMENTS) return none(tooFewDocuments(documents));
  if (a.interval === "wilson-95") return { value, interval: wilsonInterval(num, den) };
  if (opts === undefined)
    throw new Error(`aggregate (${a.numerator} / ${a.denominator}): a block bootstrap needs an rng and a replicate count`);
  const b = blockBootstrapRatio(numerators, denominators, opts.rng, { replicates: opts.replicates, ratio: a.ratio });
  return { value, interval: { lo: b.lo, hi: b.hi, se: b.se, block_length: b.blockLength, replicates: b.replicates } };
}
