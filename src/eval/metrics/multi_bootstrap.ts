// The Multi-Bootstrap (Sellam et al., 2021) for token-weighted likelihoods: resample seeds and documents with
// replacement, one arm or two paired arms. Pure functions over (NLL sum, target count) cells; not a scorer.
import type { Rng } from "../../util/primitives/rng.ts";
import {
  MIN_INTERVAL_DOCUMENTS,
  resampling,
  summarize,
  tooFewDocuments,
  type BootstrapInterval,
  type BootstrapOptions,
} from "./intervals.ts";

/**
 * One arm (a config, a checkpoint, a baseline): per (seed, document) a numerator (summed NLL in nats, or bits)
 * and a denominator (targets, or bytes). Rows are seeds, columns documents; every arm has the same documents.
 */
export interface Arm {
  /** One label per row; two arms pair their seeds when their label lists are equal. */
  readonly seeds: readonly (number | string)[];
  readonly nll: readonly (readonly number[])[];
  readonly targets: readonly (readonly number[])[];
}

/** What is resampled: both (the Multi-Bootstrap), seeds only (documents fixed) or documents only (seeds fixed). */
export type Resample = "both" | "seeds" | "documents";
export const RESAMPLE_CHOICES: readonly Resample[] = ["both", "seeds", "documents"];

export interface MultiBootstrapOptions extends BootstrapOptions {
  readonly resample?: Resample;
}

export interface MultiBootstrapInterval extends BootstrapInterval {
  readonly seeds: number;
  readonly documents: number;
  readonly resample: Resample;
}

export interface MultiBootstrapDifference {
  /** B − A: positive when A has the lower NLL. */
  readonly difference: MultiBootstrapInterval & {
    /** Share of replicates with B − A ≤ 0, +1 in numerator and denominator: smallest possible 1/(R + 1). */
    readonly p_one_sided: number;
    readonly p_floor: number;
    readonly hypothesis: string;
  };
  readonly a: MultiBootstrapInterval;
  readonly b: MultiBootstrapInterval;
  /** True when both arms have the same seed labels, so one seed draw serves both. */
  readonly paired_seeds: boolean;
}

function checkArm(name: string, arm: Arm, documents?: number): void {
  const S = arm.seeds.length;
  if (S === 0) throw new Error(`multiBootstrap ${name}: no seeds`);
  if (new Set(arm.seeds).size !== S) throw new Error(`multiBootstrap ${name}: a seed label is repeated (${arm.seeds.join(",")})`);
  if (arm.nll.length !== S || arm.targets.length !== S)
    throw new Error(`multiBootstrap ${name}: ${S} seeds but ${arm.nll.length} NLL rows and ${arm.targets.length} target rows`);
  const D = documents ?? arm.nll[0].length;
  if (D === 0) throw new Error(`multiBootstrap ${name}: no documents`);
  let total = 0;
  for (let s = 0; s < S; s++) {
    if (arm.nll[s].length !== D || arm.targets[s].length !== D)
      throw new Error(
        `multiBootstrap ${name}: seed ${arm.seeds[s]} has ${arm.nll[s].length} NLL and ${arm.targets[s].length} target cells, expected ${D} documents`,
      );
    for (let d = 0; d < D; d++) {
      if (!Number.isFinite(arm.nll[s][d]))
        throw new Error(`multiBootstrap ${name}: NLL of seed ${arm.seeds[s]}, document ${d} is not finite (${arm.nll[s][d]})`);
      const c = arm.targets[s][d];
      if (!(Number.isFinite(c) && c >= 0))
        throw new Error(`multiBootstrap ${name}: target count of seed ${arm.seeds[s]}, document ${d} must be finite and ≥ 0, got ${c}`);
      total += c;
    }
  }
  if (total === 0) throw new Error(`multiBootstrap ${name}: every target count is 0`);
}

/**
 * Σ NLL / Σ targets over the drawn seeds × drawn documents, summed in draw order (seed-major), float64.
 * With one seed this is exactly the document bootstrap's ratio; with one document, the seed bootstrap's.
 */
export function replicateRatio(arm: Arm, seedDraw: readonly number[], docDraw: readonly number[]): number {
  let top = 0,
    bottom = 0;
  for (const s of seedDraw) {
    for (const d of docDraw) {
      top += arm.nll[s][d];
      bottom += arm.targets[s][d];
    }
  }
  if (bottom === 0) throw new Error("multiBootstrap: a replicate drew only cells with 0 targets (its mean is undefined)");
  return top / bottom;
}

const identity = (n: number) => Array.from({ length: n }, (_, i) => i);
const draw = (n: number, rng: Rng) => Array.from({ length: n }, () => rng.int(n));

/**
 * The draw streams, named children of `rng` so that each draw is the same whatever else is resampled:
 * "documents" (shared by both arms), "seeds" (shared when seeds pair), "seeds-b" (B's seeds when they do not).
 */
function streams(rng: Rng) {
  return { documents: rng.child("documents"), seeds: rng.child("seeds"), seedsB: rng.child("seeds-b") };
}

/** The token-weighted mean of one arm with a percentile interval over seed × document resamples. */
export function multiBootstrap(arm: Arm, rng: Rng, opts: MultiBootstrapOptions = {}): MultiBootstrapInterval {
  checkArm("arm", arm);
  const { replicates, level } = resampling("multiBootstrap", opts);
  const resample = opts.resample ?? "both";
  const S = arm.seeds.length,
    D = arm.nll[0].length;
  const r = streams(rng);
  const reps: number[] = [];
  for (let i = 0; i < replicates; i++) {
    const seedDraw = resample === "documents" ? identity(S) : draw(S, r.seeds);
    const docDraw = resample === "seeds" ? identity(D) : draw(D, r.documents);
    reps.push(replicateRatio(arm, seedDraw, docDraw));
  }
  return { ...summarize(replicateRatio(arm, identity(S), identity(D)), reps, level), seeds: S, documents: D, resample };
}

/** A Multi-Bootstrap interval as a result records it: the bounds, or null bounds and why there are none. */
export type GatedInterval =
  { estimate: number; lo: number; hi: number; se: number } | { estimate: number; lo: null; hi: null; se: null; interval_reason: string };

/**
 * multiBootstrap, said plainly for small samples: under MIN_INTERVAL_DOCUMENTS documents the estimate alone, with
 * "n too small for an interval" (a resample of so few documents is one of a handful of multisets, whatever the seeds).
 */
export function gatedMultiBootstrap(arm: Arm, rng: Rng, opts: MultiBootstrapOptions = {}): GatedInterval {
  const documents = arm.nll[0]?.length ?? 0;
  const { estimate, lo, hi, se } = multiBootstrap(arm, rng, opts); // drawn either way: the stream is where it would be
  return documents < MIN_INTERVAL_DOCUMENTS
    ? { estimate, lo: null, hi: null, se: null, interval_reason: tooFewDocuments(documents) }
    : { estimate, lo, hi, se };
}

/**
 * Paired comparison of two arms over the same documents: each replicate draws one document resample for both
 * and, when the arms share their seed labels, one seed resample for both (rows in the same label order).
 */
export function multiBootstrapDifference(a: Arm, b: Arm, rng: Rng, opts: MultiBootstrapOptions = {}): MultiBootstrapDifference {
  checkArm("A", a);
  const D = a.nll[0].length;
  checkArm("B", b, D);
  const { replicates, level } = resampling("multiBootstrapDifference", opts);
  const resample = opts.resample ?? "both";
  const paired = a.seeds.length === b.seeds.length && a.seeds.every((s, i) => s === b.seeds[i]);
  const Sa = a.seeds.length,
    Sb = b.seeds.length;
  const r = streams(rng);
  const repsA: number[] = [],
    repsB: number[] = [],
    repsD: number[] = [];
  let atOrBelow = 0;
  for (let i = 0; i < replicates; i++) {
    const seedA = resample === "documents" ? identity(Sa) : draw(Sa, r.seeds);
    const seedB = resample === "documents" ? identity(Sb) : paired ? seedA : draw(Sb, r.seedsB);
    const docs = resample === "seeds" ? identity(D) : draw(D, r.documents);
    const ma = replicateRatio(a, seedA, docs),
      mb = replicateRatio(b, seedB, docs);
    repsA.push(ma);
    repsB.push(mb);
    repsD.push(mb - ma);
    if (mb - ma <= 0) atOrBelow++;
  }
  const ea = replicateRatio(a, identity(Sa), identity(D)),
    eb = replicateRatio(b, identity(Sb), identity(D));
  const shape = { documents: D, resample };
  return {
    difference: {
      ...summarize(eb - ea, repsD, level),
      seeds: paired ? Sa : Sa + Sb,
      ...shape,
      p_one_sided: (atOrBelow + 1) / (replicates + 1),
      p_floor: 1 / (replicates + 1),
      hypothesis: "one-sided: share of replicates in which B − A ≤ 0 (A not better), with +1 in numerator and denominator",
    },
    a: { ...summarize(ea, repsA, level), seeds: Sa, ...shape },
    b: { ...summarize(eb, repsB, level), seeds: Sb, ...shape },
    paired_seeds: paired,
  };
}
