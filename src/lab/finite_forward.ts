// The one rule for a model whose weights are finite but whose forward is not (weights near the float32 limit
// overflow a layer norm's variance or a logit): refused when its file is loaded, naming the file, before any
// command scores, compares or samples with it. Not a weight check (model_file.ts refuses non-finite weights).
import type { GPT } from "../model/gpt.ts";
import { readTensor } from "../util/backend.ts";

/**
 * Largest |logit| a usable model gives. Past it a wrong token's probability is below e^-10000, zero in float32 and
 * float64 alike, and logits near the float32 limit (weights of 1e30 and more) make each loss about 1e37, whose
 * sums overflow to Infinity and differences to NaN. Trained models here stay within ±100.
 */
export const MAX_ABS_LOGIT = 1e4;

/** Most logits the probe computes: enough rows for every id of a small vocabulary, a bounded cost for a big one. */
export const PROBE_LOGITS = 2 ** 22;

/**
 * Ids 0, 1, 2, … laid out in rows of the context, as many rows as cover the vocabulary (at least one, at most
 * PROBE_LOGITS / (context × vocab)), each row one document. A huge embedding row reaches every logit of a tied
 * head, and every other weight (position embedding, layer norms, attention, MLP, head) is used at every position.
 */
function probeInput(vocab: number, context: number): { rows: number; cols: number; ids: Int32Array; docIds: Int32Array } {
  const rows = Math.max(1, Math.min(Math.ceil(vocab / context), Math.floor(PROBE_LOGITS / (context * vocab))));
  const ids = Int32Array.from({ length: rows * context }, (_, i) => i % vocab);
  const docIds = Int32Array.from({ length: rows * context }, (_, i) => Math.floor(i / context));
  return { rows, cols: context, ids, docIds };
}

/** The first logit of the probe that is not finite or past ±MAX_ABS_LOGIT, as [row, position, token, value]; null when none. */
export function firstNonFiniteLogit(model: GPT): [number, number, number, number] | null {
  const { vocabSize: V, contextLength: T } = model.config;
  const input = probeInput(V, T);
  const logits = readTensor(() => model.forward(input)); // [rows, T, V] flat
  for (let i = 0; i < logits.length; i++) {
    if (!(Math.abs(logits[i]) <= MAX_ABS_LOGIT)) return [Math.floor(i / (T * V)), Math.floor(i / V) % T, i % V, logits[i]];
  }
  return null;
}

/** Refuse `model` (say from `where`, the model file) when its forward is not finite, or past MAX_ABS_LOGIT. */
export function refuseNonFiniteForward(model: GPT, where: string, Refusal: new (message: string) => Error = Error): void {
  const bad = firstNonFiniteLogit(model);
  if (bad === null) return;
  const [row, pos, token, value] = bad;
  throw new Refusal(
    `${where}: the weights are finite but the model's forward is not (logit ${value} for token ${token} at position ${pos} of probe row ${row}, past ±${MAX_ABS_LOGIT}, MAX_ABS_LOGIT): its losses overflow float32, so nothing it scores or samples would mean anything`,
  );
}
