// Scores strided windows through evaluateLikelihood and keeps what the merged total hides: each window's
// NLL sum and scored bytes, and loss by position within the window. Results carry their stride and are
// never compared across strides. Not window construction (windows.ts).
import type { Document, Split } from "../../data/documents.ts";
import type { Tokenizer } from "../../data/tokenizer.ts";
import type { ScoredBatch } from "../../model/input.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { evaluateLikelihood } from "./likelihood.ts";
import { meanNll, type MetricSummary } from "../metrics/summary.ts";
import { windowBatches, type Window } from "./windows.ts";

/** A window with its NLL sum (nats) over its scored targets and those targets' UTF-8 bytes. */
export interface WindowScore extends Window {
  readonly totalNll: number;
  readonly bytes: number;
}

/** Σ NLL and target count at one position (column) within the window; position p predicts from p + 1 tokens. */
export interface PositionLoss {
  readonly position: number;
  readonly totalNll: number;
  readonly targets: number;
}

export interface WindowedResult {
  readonly model: string;
  readonly split: Split;
  readonly stride: number;
  readonly contextLength: number;
  readonly metrics: MetricSummary;
  readonly windows: readonly WindowScore[];
  readonly byPosition: readonly PositionLoss[];
}

export interface WindowedOptions {
  readonly rowsPerBatch?: number;
  /** Bytes of a token (tokenizer.bytesOf); without it every window reports 0 bytes. */
  readonly tokenizer?: Pick<Tokenizer, "bytesOf">;
  /** Called after each scored batch, e.g. to tick a progress line. */
  readonly onBatch?: () => void;
  /** Called once before any batch is scored, with how many batches there are (a progress line's total). */
  readonly onBatches?: (total: number) => void;
}

/** Score every target of `docs` (one split) exactly once with windows of stride `stride`. */
export function evaluateWindows(
  model: ScoringModel,
  docs: readonly Document[],
  stride: number,
  opts: WindowedOptions = {},
): WindowedResult {
  const T = model.binding.contextLength;
  const { windows, batches, firstWindow } = windowBatches(docs, model.binding, stride, opts.rowsPerBatch);
  opts.onBatches?.(batches.length);
  const byId = new Map(docs.map((d) => [d.id, d]));
  const sums = new Float64Array(windows.length);
  const bytes = new Float64Array(windows.length);
  const posNll = new Float64Array(T);
  const posCount = new Float64Array(T);
  let b = 0;
  // Record per-position NLLs as evaluateLikelihood asks for them, so its checks (binding, split, no tape,
  // state untouched, finite) and its token-weighted total apply to the very numbers reduced here.
  const recording: ScoringModel = {
    name: model.name,
    binding: model.binding,
    logProbs: (input) => model.logProbs(input),
    stateFingerprint: () => model.stateFingerprint(),
    positionNll: (batch) => record(batch, model.positionNll(batch)),
    // batches come back in order, so the running batch index still names each one's windows
    ...(model.positionNlls
      ? { positionNlls: (group: readonly ScoredBatch[]) => model.positionNlls!(group).map((nll, i) => record(group[i], nll)) }
      : {}),
  };
  function record(batch: ScoredBatch, nll: Float64Array): Float64Array {
    const cols = batch.input.cols;
    for (let r = 0; r < batch.input.rows; r++) {
      const w = firstWindow[b] + r;
      const doc = byId.get(windows[w].doc)!;
      for (let c = 0; c < cols; c++) {
        const i = r * cols + c;
        if (batch.mask[i] === 0) continue;
        sums[w] += nll[i];
        posNll[c] += nll[i];
        posCount[c] += 1;
        if (opts.tokenizer) bytes[w] += opts.tokenizer.bytesOf(doc.ids[windows[w].start + c + 1]).length;
      }
    }
    b++;
    opts.onBatch?.();
    return nll;
  }
  const { metrics } = evaluateLikelihood(recording, docs[0].split, batches);
  if (b !== batches.length) throw new Error(`expected ${batches.length} scored batches, recorded ${b}`);
  const byPosition: PositionLoss[] = [];
  for (let p = 0; p < T; p++) if (posCount[p] > 0) byPosition.push({ position: p, totalNll: posNll[p], targets: posCount[p] });
  return {
    model: model.name,
    split: docs[0].split,
    stride,
    contextLength: T,
    metrics,
    windows: windows.map((w, i) => ({ ...w, totalNll: sums[i], bytes: bytes[i] })),
    byPosition,
  };
}

/** Refuse to compare results unless stride, context and scored targets agree; returns b − a in nats per target. */
export function compareWindowed(a: WindowedResult, b: WindowedResult): { stride: number; difference: number; targets: number } {
  if (a.stride !== b.stride)
    throw new Error(
      `refusing to compare NLL at stride ${a.stride} (${a.model}) with NLL at stride ${b.stride} (${b.model}): different strides measure different things`,
    );
  if (a.contextLength !== b.contextLength)
    throw new Error(`refusing to compare context ${a.contextLength} with context ${b.contextLength}`);
  if (a.split !== b.split || a.metrics.targets !== b.metrics.targets)
    throw new Error(`refusing to compare different targets: ${a.split} ${a.metrics.targets} vs ${b.split} ${b.metrics.targets}`);
  return { stride: a.stride, difference: meanNll(b.metrics) - meanNll(a.metrics), targets: a.metrics.targets };
}

/** One readable line with the stride beside the number. */
export function formatWindowed(r: WindowedResult): string {
  return `${r.model} ${r.split}: NLL ${meanNll(r.metrics).toFixed(4)} nats/target over ${r.metrics.targets} targets (stride ${r.stride}, context ${r.contextLength}, ${r.windows.length} windows)`;
}
