// lm-evaluation-harness's loglikelihood_rolling for a tinylab model: a text's tokens scored after one prefix token
// (BOS, or EOS where a tokenizer has no BOS), no EOS appended, in disjoint windows of the context. Pure; not the
// harness's metrics (lm_eval.ts) and not the usual tinylab convention (documents.ts: BOS + text + EOS).
import type { Document, Split } from "../../data/documents.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { windowBatches } from "./windows.ts";

/**
 * The harness's windows (lm_eval/utils.py get_rolling_token_windows with context_len 1, then make_disjoint_window):
 * the first predicts tokens[0, min(T, N)) from [prefix, …]; each later one predicts the next ≤ T tokens from the
 * T tokens before its last target. Written out here so a test can hold tinylab's strided windows against it.
 */
export function rollingWindows(
  tokens: readonly number[],
  prefix: number,
  maxLength: number,
): { context: number[]; continuation: number[] }[] {
  if (!Number.isInteger(maxLength) || maxLength < 1)
    throw new Error(`rolling windows: the context must be a positive integer, got ${maxLength}`);
  const out: { context: number[]; continuation: number[] }[] = [];
  if (tokens.length === 0) return out;
  const first = Math.min(maxLength, tokens.length);
  const pairs: [number[], number[]][] = [[[prefix, ...tokens.slice(0, first - 1)], tokens.slice(0, first)]];
  for (let predicted = first; predicted < tokens.length;) {
    const n = Math.min(tokens.length - predicted, maxLength);
    const end = predicted + n;
    pairs.push([tokens.slice(end - maxLength - 1, end - 1), tokens.slice(end - n, end)]);
    predicted += n;
  }
  // make_disjoint_window: the input's first len(input) − (len(targets) − 1) ids are context, the targets follow
  for (const [input, targets] of pairs) out.push({ context: input.slice(0, input.length - (targets.length - 1)), continuation: targets });
  return out;
}

/** A text's tokens as the harness scores them: the prefix token, then the tokens, no EOS; undefined for an empty text. */
export function rollingDocument(
  doc: { id: string; split: Split; source: string },
  tokens: readonly number[],
  prefix: number,
): Document | undefined {
  return tokens.length === 0 ? undefined : { id: doc.id, split: doc.split, source: doc.source, ids: [prefix, ...tokens] };
}

/** One document's answer: Σ ln p over its tokens (the harness's loglikelihood) and how many tokens that is. */
export interface RollingScore {
  loglikelihood: number;
  tokens: number;
}

/**
 * loglikelihood_rolling of each document (one split, `rollingDocument`s), through the model's scoring path in disjoint
 * windows of the context (stride = context: the harness's windows, every token once); summed per document in
 * window order.
 */
export function rollingLoglikelihoods(model: ScoringModel, docs: readonly Document[], rowsPerBatch: number): RollingScore[] {
  const wb = windowBatches(docs, model.binding, model.binding.contextLength, rowsPerBatch);
  const nlls = model.positionNlls ? model.positionNlls(wb.batches) : wb.batches.map((b) => model.positionNll(b));
  const byDoc = new Map(docs.map((d) => [d.id, { loglikelihood: 0, tokens: 0 }]));
  wb.batches.forEach((batch, b) => {
    const cols = batch.input.cols;
    for (let r = 0; r < batch.input.rows; r++) {
      const score = byDoc.get(wb.windows[wb.firstWindow[b] + r].doc)!;
      for (let c = 0; c < cols; c++) {
        if (batch.mask[r * cols + c] === 0) continue;
        score.loglikelihood -= nlls[b][r * cols + c];
        score.tokens++;
      }
    }
  });
  return docs.map((d) => byDoc.get(d.id)!);
}
