// Test fixture (not a test): a tiny byte-level decoder trained for a few updates on a short synthetic
// corpus longer than its context, so evaluators see real windows. Made here, in memory, on every run.
import { encodeDocument, type Document, type TextDocument } from "../../src/data/documents.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { PRESETS } from "../../src/model/config.ts";
import type { GPT } from "../../src/model/gpt.ts";
import { windowBatches } from "../../src/eval/passes/windows.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run } from "../../src/lab/run.ts";

export const TINY_TEXTS: readonly TextDocument[] = [
  { id: "t-cat", split: "train", source: "animals", text: "the cat sat on the mat. the cat sat." },
  { id: "t-dog", split: "train", source: "animals", text: "the dog ran to the park." },
  { id: "t-code", split: "train", source: "code", text: "let x = 1; let y = x + 1;" },
  { id: "v-cat", split: "validation", source: "animals", text: "the cat ran to the mat." },
  { id: "v-code", split: "validation", source: "code", text: "let z = y + x;" },
  { id: "x-dash", split: "test", source: "quotes", text: "“the cat” — sat" },
];

/** The overfit preset (vocabulary 266, context 8, d_model 8): defined once, in src/model/config.ts. */
export const TINY_CONFIG = PRESETS.overfit;

export function tinyData(): { tokenizer: ByteTokenizer; docs: Document[] } {
  const tokenizer = new ByteTokenizer(TINY_CONFIG.vocabSize);
  return { tokenizer, docs: TINY_TEXTS.map((d) => encodeDocument(tokenizer, d)) };
}

/** A decoder after `updates` AdamW updates over every training window (stride = context), through the lab's run. Caller disposes. */
export function tinyDecoder(updates = 15, seed = 5): GPT {
  const { tokenizer, docs } = tinyData();
  const binding = { vocabSize: TINY_CONFIG.vocabSize, contextLength: TINY_CONFIG.contextLength };
  const { batches } = windowBatches(
    docs.filter((d) => d.split === "train"),
    binding,
    TINY_CONFIG.contextLength,
    64,
  );
  const options = trainOptions({ seed, lr: 0.05, microbatchesPerUpdate: batches.length, data: "tiny fixture" });
  const run = Run.create({
    config: TINY_CONFIG,
    options,
    tokenizer: tokenizer.toJSON(),
    data: () => new EpochSource(batches, batches.length),
  });
  run.train({ updates });
  return run.model; // the optimizer holds only JS arrays: nothing else to dispose
}
