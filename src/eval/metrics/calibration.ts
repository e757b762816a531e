// Calibration of confidences against binary correctness: reliability bins, ECE, Brier and its
// Murphy decomposition. Not a confidence estimator: producing the probability is the adapter's job.

export const BIN_SCHEMES = ["equal-width", "equal-mass"] as const;
export type BinScheme = (typeof BIN_SCHEMES)[number];

/** Binning choice shared by bins, ECE and the decomposition. Defaults: 10 equal-width bins. */
export interface BinOptions {
  readonly bins?: number;
  readonly scheme?: BinScheme;
}

/** One populated bin. Equal-width bins are [lo, hi) (the last is closed); equal-mass bins report the
 *  smallest and largest confidence they hold. */
export interface ReliabilityBin {
  readonly lo: number;
  readonly hi: number;
  readonly count: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
}

/** Brier = reliability − resolution + uncertainty + residual, where the residual is the within-bin
 *  term (forecast variance minus twice forecast/outcome covariance), zero when each bin's
 *  forecasts are identical. */
export interface BrierDecomposition {
  readonly brier: number;
  readonly reliability: number;
  readonly resolution: number;
  readonly uncertainty: number;
  readonly residual: number;
}

/** 002's reliability-diagram data: per-bin mean confidence, accuracy and count over every bin in order,
 *  zero-filled where a bin is empty (so the arrays always have `bins` entries). */
export interface ReliabilityArrays {
  readonly confidence: number[];
  readonly accuracy: number[];
  readonly count: number[];
}

export function reliabilityArrays(confidences: readonly number[], correct: Correct, opts: BinOptions = {}): ReliabilityArrays {
  const y = validated(confidences, correct);
  const groups = assign(confidences, opts.bins ?? 10, opts.scheme ?? "equal-width");
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, v) => s + v, 0) / xs.length);
  return {
    confidence: groups.map((g) => mean(g.members.map((i) => confidences[i]))),
    accuracy: groups.map((g) => mean(g.members.map((i) => y[i]))),
    count: groups.map((g) => g.members.length),
  };
}

/** What a runner logs per model; the Brier decomposition stays a separate call. */
export interface CalibrationReport {
  readonly count: number;
  readonly scheme: BinScheme;
  readonly binCount: number;
  readonly ece: number;
  readonly populatedBins: number;
  readonly brier: number;
  readonly bins: readonly ReliabilityBin[];
  readonly reliability: ReliabilityArrays;
}

type Correct = readonly (boolean | number)[];

function validated(confidences: readonly number[], correct: Correct): number[] {
  if (confidences.length !== correct.length) {
    throw new Error(`calibration: ${confidences.length} confidences but ${correct.length} correctness labels`);
  }
  confidences.forEach((c, i) => {
    if (!(Number.isFinite(c) && c >= 0 && c <= 1)) throw new Error(`calibration: confidence at index ${i} is ${c}, not in [0, 1]`);
  });
  return correct.map((y, i) => {
    if (y === true || y === 1) return 1;
    if (y === false || y === 0) return 0;
    throw new Error(`calibration: correctness at index ${i} is ${String(y)}, expected a boolean or 0/1`);
  });
}

/** Most bins a reliability table takes: a bin is an object and arrays per bin, and past this each holds next to nothing. */
export const MAX_BINS = 10_000;

/** Groups of item indices, one per bin in order (possibly empty), with each bin's nominal edges. */
function assign(confidences: readonly number[], bins: number, scheme: BinScheme): { lo: number; hi: number; members: number[] }[] {
  if (!Number.isInteger(bins) || bins < 1 || bins > MAX_BINS)
    throw new Error(`calibration: bins must be an integer in [1, ${MAX_BINS}] (MAX_BINS), got ${bins}`);
  if (scheme === "equal-width") {
    const groups = Array.from({ length: bins }, (_, b) => ({ lo: b / bins, hi: (b + 1) / bins, members: [] as number[] }));
    // Confidence 1.0 would land in bin `bins`; it belongs to the last, closed bin.
    confidences.forEach((c, i) => groups[Math.min(Math.floor(c * bins), bins - 1)].members.push(i));
    return groups;
  }
  if (scheme !== "equal-mass") throw new Error(`calibration: unknown bin scheme "${String(scheme)}"`);
  const order = confidences.map((_, i) => i).sort((a, b) => confidences[a] - confidences[b] || a - b);
  const groups = [];
  let start = 0;
  for (let b = 1; b <= bins; b++) {
    let end = Math.round((b * order.length) / bins);
    // Equal confidences must share a bin, so a cut never falls inside a run of ties.
    while (end > start && end < order.length && confidences[order[end]] === confidences[order[end - 1]]) end++;
    end = Math.max(end, start);
    const members = order.slice(start, end);
    groups.push({ lo: confidences[members[0]] ?? NaN, hi: confidences[members[members.length - 1]] ?? NaN, members });
    start = end;
  }
  return groups;
}

function populated(confidences: readonly number[], y: number[], opts: BinOptions) {
  return assign(confidences, opts.bins ?? 10, opts.scheme ?? "equal-width")
    .filter((g) => g.members.length > 0)
    .map((g) => {
      const meanConfidence = g.members.reduce((s, i) => s + confidences[i], 0) / g.members.length;
      const accuracy = g.members.reduce((s, i) => s + y[i], 0) / g.members.length;
      return { lo: g.lo, hi: g.hi, count: g.members.length, meanConfidence, accuracy, members: g.members };
    });
}

export function reliabilityBins(confidences: readonly number[], correct: Correct, opts: BinOptions = {}): ReliabilityBin[] {
  return populated(confidences, validated(confidences, correct), opts).map(({ members: _, ...bin }) => bin);
}

/** Empty input gives { ece: 0, populatedBins: 0 }; the runner reads populatedBins before reporting. */
export function expectedCalibrationError(
  confidences: readonly number[],
  correct: Correct,
  opts: BinOptions = {},
): { ece: number; populatedBins: number } {
  const rows = reliabilityBins(confidences, correct, opts);
  const ece = rows.reduce((s, r) => s + (r.count / confidences.length) * Math.abs(r.accuracy - r.meanConfidence), 0);
  return { ece, populatedBins: rows.length };
}

/** Mean of (p − y)²; 0 on empty input, as the reference harness does. */
export function brierScore(confidences: readonly number[], correct: Correct): number {
  const y = validated(confidences, correct);
  if (y.length === 0) return 0;
  return confidences.reduce((s, p, i) => s + (p - y[i]) ** 2, 0) / y.length;
}

export function brierDecomposition(confidences: readonly number[], correct: Correct, opts: BinOptions = {}): BrierDecomposition {
  const y = validated(confidences, correct);
  const n = y.length;
  if (n === 0) return { brier: 0, reliability: 0, resolution: 0, uncertainty: 0, residual: 0 };
  const base = y.reduce((s, v) => s + v, 0) / n;
  let reliability = 0,
    resolution = 0,
    residual = 0;
  for (const bin of populated(confidences, y, opts)) {
    reliability += bin.count * (bin.meanConfidence - bin.accuracy) ** 2;
    resolution += bin.count * (bin.accuracy - base) ** 2;
    for (const i of bin.members) {
      const dp = confidences[i] - bin.meanConfidence;
      residual += dp * dp - 2 * dp * (y[i] - bin.accuracy);
    }
  }
  const brier = brierScore(confidences, correct);
  return { brier, reliability: reliability / n, resolution: resolution / n, uncertainty: base * (1 - base), residual: residual / n };
}

export function calibrationReport(confidences: readonly number[], correct: Correct, opts: BinOptions = {}): CalibrationReport {
  const bins = reliabilityBins(confidences, correct, opts);
  const { ece, populatedBins } = expectedCalibrationError(confidences, correct, opts);
  return {
    count: confidences.length,
    scheme: opts.scheme ?? "equal-width",
    binCount: opts.bins ?? 10,
    ece,
    populatedBins,
    brier: brierScore(confidences, correct),
    bins,
    reliability: reliabilityArrays(confidences, correct, opts),
  };
}
