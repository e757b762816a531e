// The constructed documents of the overfitting experiment and the micro gradient-check batch.
// Not the experiment (experiments/overfit.ts): just the fixed data, encoded with a fixed tokenizer.
import type { Rng } from "../util/primitives/rng.ts";
import { encodeDocument, type Document, type TextDocument } from "./documents.ts";
import { ByteTokenizer } from "./tokenizer.ts";

/** Vocabulary of the overfit fixture: 258 byte-level ids plus 8 reserved, as in the reference run. */
export const OVERFIT_VOCAB = 266;

export const OVERFIT_TEXTS: readonly TextDocument[] = [
  { id: "train-aaab", split: "train", source: "constructed", text: "aaab" },
  { id: "train-aab", split: "train", source: "constructed", text: "aab" },
  { id: "validation-abaa", split: "validation", source: "constructed", text: "abaa" },
  { id: "validation-baa", split: "validation", source: "constructed", text: "baa" },
];

/** The tokenizer is fixed before encoding (BOS 0, EOS 1, a 99, b 100); validation never fits it. */
export function overfitTokenizer(): ByteTokenizer {
  return new ByteTokenizer(OVERFIT_VOCAB);
}

export function overfitDocuments(tokenizer = overfitTokenizer()): Document[] {
  return OVERFIT_TEXTS.map((d) => encodeDocument(tokenizer, d));
}

/** Random documents over a tiny vocabulary (ids 2..vocab−1 as content), for the micro gradient check. */
export function randomDocuments(rng: Rng, vocab: number, count: number, maxTargets: number): Document[] {
  return Array.from({ length: count }, (_, d) => {
    const n = 1 + rng.int(maxTargets - 1);
    const content = Array.from({ length: n - 1 }, () => 2 + rng.int(vocab - 2));
    return { id: `random-${d}`, split: "train" as const, source: "random", ids: [0, ...content, 1] };
  });
}
