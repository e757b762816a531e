// Test fixture (not a test): a tiny byte-level decoder trained for a few updates on a short synthetic
// corpus longer than its context, so evaluators see real windows. Made here, in memory, on every run.
import { encodeDocument, type Document, type TextDocument } from "../../src/data/documents.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { resolveModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { initParameters } from "../../src/model/init.ts";
import { batchLoss } from "../../src/model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { trainStep } from "../../src/train/trainer.ts";
import { Rng } from "../../src/util/rng.ts";
import { windowBatches } from "../../src/eval/windows.ts";

export const TINY_TEXTS: readonly TextDocument[] = [
  { id: "t-cat", split: "train", source: "animals", text: "the cat sat on the mat. the cat sat." },
  { id: "t-dog", split: "train", source: "animals", text: "the dog ran to the park." },
  { id: "t-code", split: "train", source: "code", text: "let x = 1; let y = x + 1;" },
  { id: "v-cat", split: "validation", source: "animals", text: "the cat ran to the mat." },
  { id: "v-code", split: "validation", source: "code", text: "let z = y + x;" },
  { id: "x-dash", split: "test", source: "quotes", text: "“the cat” — sat" },
];

export const TINY_CONFIG = resolveModelConfig({ vocabSize: 266, contextLength: 8, nLayers: 1, dModel: 8, nHeads: 2, dFF: 16, dropout: 0 });

export function tinyData(): { tokenizer: ByteTokenizer; docs: Document[] } {
  const tokenizer = new ByteTokenizer(TINY_CONFIG.vocabSize);
  return { tokenizer, docs: TINY_TEXTS.map((d) => encodeDocument(tokenizer, d)) };
}

/** A decoder after `updates` AdamW updates over every training window (stride = context). Caller disposes. */
export function tinyDecoder(updates = 15, seed = 5): GPT {
  const { docs } = tinyData();
  const model = new GPT(TINY_CONFIG, initParameters(TINY_CONFIG, Rng.fromSeed(seed).child("init")));
  const binding = { vocabSize: TINY_CONFIG.vocabSize, contextLength: TINY_CONFIG.contextLength };
  const { batches } = windowBatches(docs.filter((d) => d.split === "train"), binding, TINY_CONFIG.contextLength, 64);
  const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, weightDecay: 0 });
  const lossFn = batchLoss(model, { train: false });
  for (let u = 0; u < updates; u++) trainStep({ params: model.params, microbatches: batches, lossFn, optimizer, lr: 0.05, clipNorm: 1 });
  return model;
}
