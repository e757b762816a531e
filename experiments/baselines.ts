// `tinylab baselines` as a recipe: fit every count baseline on a data file's train split and score each split
// present, through the same evaluator as the decoder. Reads JSONL documents (src/node/files.ts) or a split file.
import { allBaselines, DEFAULT_SMOOTHING_K } from "../src/baselines/ngram.ts";
import { separateBatches, type Binding } from "../src/data/batches.ts";
import { SPLITS, targetCount, type Document, type Split } from "../src/data/documents.ts";
import { FILE_LIMIT, readDocumentsFile } from "../src/node/files.ts";
import { checkSplitRows, looksLikeSplitFile, splitRowsToDocuments } from "../src/data/split_file.ts";
import { BOS, BYTE_VOCAB, ByteTokenizer, EOS, type Tokenizer } from "../src/data/tokenizer.ts";
import { evaluateLikelihood } from "../src/eval/passes/likelihood.ts";
import { record } from "../src/eval/metrics/summary.ts";
import { MAX_VOCAB_SIZE } from "../src/model/config.ts";
import { decodeModelParts } from "../src/lab/model_file.ts";
import { readFileText, readModelFileBytes } from "../src/node/disk.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";

export interface BaselinesOptions {
  data: string;
  /** Vocabulary size; default: the byte tokenizer's for JSONL, max id + 1 for a split file. */
  vocab?: number;
  /** Take the tokenizer and vocabulary from a model file, as `evaluate --model M --data F` encodes F. */
  model?: string;
  /** Smoothing k (default DEFAULT_SMOOTHING_K) and the unigram-prior bigram's fixed mixture λ (default: per-context). */
  smoothing?: number;
  lambda?: number;
  /** Score the test split too (a final report); without it test documents are counted, never scored. */
  finalTest?: boolean;
}

interface LoadedData {
  docs: Document[];
  format: "split file" | "JSONL documents";
  vocab: number;
  vocabFrom: string;
}

/**
 * Parses id rows when the vocabulary is below the byte tokenizer's: `ids` rows are taken as given, and a
 * `text` row is refused, since no tokenizer of that size can encode arbitrary text.
 */
function idsOnlyTokenizer(vocabSize: number, text: string, path: string): Tokenizer {
  const refuse = (): never => {
    const line = text.split("\n").findIndex((l) => /"text"\s*:/.test(l)) + 1;
    throw new Error(
      `${path} line ${line}: a "text" row needs a tokenizer; with --vocab ${vocabSize} (below the byte tokenizer's ${BYTE_VOCAB}) give "ids" rows, or pass --model`,
    );
  };
  return { kind: "byte", vocabSize, bos: BOS, eos: EOS, encode: refuse, decode: refuse, bytesOf: () => new Uint8Array(0), toJSON: refuse };
}

function checkVocab(v: number | undefined): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 2)) throw new Error(`--vocab must be an integer ≥ 2, got ${v}`);
}

/** Read either format, with the vocabulary it is scored over and where that number came from. */
export function loadBaselineData(o: BaselinesOptions): LoadedData {
  checkVocab(o.vocab);
  const text = readFileText(o.data, "data file", FILE_LIMIT);
  let tokenizer: Tokenizer | undefined,
    vocab = o.vocab,
    vocabFrom = "--vocab";
  if (o.model !== undefined) {
    // the whole file is validated (format, integrity digest, weights), though only its config and tokenizer are used
    const parts = decodeModelParts(readModelFileBytes(o.model), o.model);
    const config = parts.config;
    if (o.vocab !== undefined && o.vocab !== config.vocabSize)
      throw new Error(`--vocab ${o.vocab} disagrees with the model's vocabulary ${config.vocabSize}; give one of them`);
    tokenizer = parts.tokenizer;
    [vocab, vocabFrom] = [config.vocabSize, `the model file's config (tokenizer ${tokenizer.kind})`];
  }
  if (looksLikeSplitFile(text)) {
    if (o.model !== undefined) throw new Error(`${o.data} is a split file of token ids; --model only supplies a tokenizer for JSONL text`);
    if (vocab === undefined) {
      // the largest id anywhere; validation of the rows (integers, ≥ 0) happens in checkSplitRows
      vocab = 2;
      for (const v of Object.values(JSON.parse(text) as Record<string, unknown[]>).flat(2))
        if (Number.isInteger(v) && (v as number) >= vocab) vocab = (v as number) + 1;
      vocabFrom = "the file (largest id + 1; pass --vocab to set it)";
      // refused before any count table of that size is allocated (which would fail as "Invalid typed array length")
      if (vocab > MAX_VOCAB_SIZE)
        throw new Error(`${o.data}: token id ${vocab - 1} implies a vocabulary of ${vocab}, more than the limit ${MAX_VOCAB_SIZE} (2^20)`);
    }
    const rows = checkSplitRows(JSON.parse(text), { vocabSize: vocab }, `split file ${o.data}`);
    return { docs: splitRowsToDocuments(rows), format: "split file", vocab, vocabFrom };
  }
  if (tokenizer === undefined) {
    if (vocab === undefined) [vocab, vocabFrom] = [BYTE_VOCAB, "the byte tokenizer (text as BOS + UTF-8 bytes + EOS)"];
    tokenizer = vocab >= BYTE_VOCAB ? new ByteTokenizer(vocab) : idsOnlyTokenizer(vocab, text, o.data);
  }
  const docs = readDocumentsFile(o.data, tokenizer);
  if (!docs.some((d) => d.split === "train")) throw new Error(`${o.data}: no train documents; baselines are fitted on the train split`);
  return { docs, format: "JSONL documents", vocab: vocab!, vocabFrom };
}

export interface BaselinesReport {
  data: { path: string; format: string; vocab: number; vocab_from: string; documents: Partial<Record<Split, number>> };
  smoothing: { k: number; lambda: number | null; lambda_note: string };
  final_test: boolean;
  test_documents_not_scored: number;
  splits: Partial<Record<Split, ({ baseline: string } & ReturnType<typeof record>)[]>>;
  provenance: Provenance;
}

/** Fit on train only; score every split present, each target once, with the shared evaluator. */
export function runBaselines(o: BaselinesOptions): BaselinesReport {
  const { docs, format, vocab, vocabFrom } = loadBaselineData(o);
  const present = SPLITS.filter((s) => docs.some((d) => d.split === s) && (s !== "test" || o.finalTest === true));
  // baselines look at one previous token, so any context length works; this one fits every document
  const binding: Binding = { vocabSize: vocab, contextLength: Math.max(...docs.map(targetCount)) };
  const k = o.smoothing ?? DEFAULT_SMOOTHING_K;
  const baselines = allBaselines(
    docs.filter((d) => d.split === "train"),
    binding,
    k,
    o.lambda,
  );
  const splits: BaselinesReport["splits"] = {};
  for (const split of present) {
    const batches = separateBatches(
      docs.filter((d) => d.split === split),
      binding,
    );
    splits[split] = baselines.map((b) => ({ baseline: b.name, ...record(evaluateLikelihood(b, split, batches).metrics) }));
  }
  const documents = Object.fromEntries(
    SPLITS.filter((s) => docs.some((d) => d.split === s)).map((s) => [s, docs.filter((d) => d.split === s).length]),
  );
  const smoothing = {
    k,
    lambda: o.lambda ?? null,
    lambda_note:
      o.lambda === undefined
        ? "no fixed λ: the unigram-prior bigram weighs its counts by C_u/(C_u + kV) per context"
        : "fixed mixture λ·add-k + (1 − λ)·unigram",
  };
  const testNotScored = present.includes("test") ? 0 : docs.filter((d) => d.split === "test").length;
  return {
    data: { path: o.data, format, vocab, vocab_from: vocabFrom, documents },
    smoothing,
    final_test: o.finalTest === true,
    test_documents_not_scored: testNotScored,
    splits,
    provenance: provenance({ backend: "none (count baselines do not use tfjs)", kernels: "tfjs" }),
  };
}
