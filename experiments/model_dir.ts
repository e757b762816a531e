// Scoring a Hugging Face / transformers.js model directory (src/node/model_dir.ts) with the harness as it is:
// the documents under the directory's own tokenizer and a named BOS/EOS convention (src/eval/passes/convention.ts), and
// `tinylab evaluate --model DIR`. Not the directory's reader and not a second harness: the splits are scored by the
// code that scores model files (evaluate.ts's scoreSplits).
import { OVERFIT_TEXTS } from "../src/data/fixtures.ts";
import { parseDocumentsBytes } from "../src/data/documents_jsonl.ts";
import type { Document } from "../src/data/documents.ts";
import type { AnyTokenizer } from "../src/data/tokenizer.ts";
import { conventionIds, conventionRecord, type Convention, type ConventionRecord } from "../src/eval/passes/convention.ts";
import { openModelDir, type ModelDir, type ModelDirOptions, type ModelDirProvenance } from "../src/node/model_dir.ts";
import { readDocumentsBytes } from "../src/node/files.ts";
import { requireFile } from "../src/node/disk.ts";
import { provenance } from "../src/util/runtime/provenance.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import { checkScoringMemory } from "../src/lab/memory.ts";
import { checkSampleOptions, decodingRecord, drawSamples, type SampleOptions, type SampleResult } from "./sample.ts";
import { scoringStride } from "../src/eval/passes/windows.ts";
import { chosenSplits, scoreSplits, splitBatches, type EvaluateOptions, type EvaluateReport } from "./evaluate.ts";
import type { ScoringText } from "./scoring_data.ts";

/** What scoring a directory adds to a model file's options: the convention, the graph and the dtype's consent. */
export interface DirOptions extends ModelDirOptions {
  convention: Convention;
}

/**
 * The directory's tokenizer as the report reads one: BOS is the convention's prefix (so a document's content starts
 * after it), EOS the model's (−1, never produced, when it has none); its JSON form names tokenizer.json by sha256
 * with the convention and the directory's provenance, so the report's identities say what was scored.
 */
export function dirTokenizer(m: ModelDir, convention: Convention): AnyTokenizer {
  const t = m.tokenizer;
  const bos = conventionIds(convention, m.special, [])[0];
  const sha256 = m.provenance.files.find((f) => f.name === "tokenizer.json")!.sha256;
  return {
    vocabSize: m.config.vocabSize,
    bos,
    eos: m.special.eos ?? -1,
    encode: (text) => t.encode(text),
    decode: (ids) => t.decode(ids),
    bytesOf: (id) => t.bytesOf(id),
    toJSON: () => ({ kind: "tokenizer.json", sha256, convention: conventionRecord(convention, m.special), model_dir: m.provenance }),
  };
}

/** The documents (a documents file, a run's text, or the overfit fixture) as ids under the directory's tokenizer and `convention`. */
export function dirDocuments(
  m: ModelDir,
  convention: Convention,
  input: { data?: string; text?: ScoringText },
): { docs: Document[]; source: string } {
  if (input.text && input.data) throw new Error("give one of --run/--text (a run's text) and --data (a JSONL documents file)");
  const encodeText = (text: string) => conventionIds(convention, m.special, m.tokenizer.encode(text));
  if (input.data !== undefined) {
    return {
      docs: parseDocumentsBytes(
        readDocumentsBytes(requireFile(input.data, "documents file")),
        { vocabSize: m.config.vocabSize, encodeText },
        input.data,
      ),
      source: input.data,
    };
  }
  const texts = input.text?.docs ?? OVERFIT_TEXTS;
  return {
    docs: texts.map((d) => ({ id: d.id, split: d.split, source: d.source, ids: encodeText(d.text) })),
    source: input.text?.source ?? "overfit fixture",
  };
}

/** evaluate's report of a model file, with the directory's provenance and the convention where the file's config, tokenizer and training are. */
export interface DirEvaluateReport extends Omit<EvaluateReport, "model_config" | "tokenizer" | "trained"> {
  convention: ConventionRecord;
  model_dir: ModelDirProvenance;
}

/** `evaluate --model DIR`: the chosen splits scored through the graph's adapter, one thread (the session is onnxruntime's). */
export function evaluateModelDir(o: EvaluateOptions & DirOptions, text?: ScoringText): DirEvaluateReport {
  if (!Number.isInteger(o.batchRows) || o.batchRows < 1) throw new Error(`--batch-rows must be a positive integer, got ${o.batchRows}`);
  const allowed = chosenSplits(o.split, o.finalTest);
  const m = openModelDir(o.model, o);
  // --batch-rows against the graph's shape (its feed-forward GPT-2's 4 × the width), before a batch is made
  const width = m.config.nHeads * m.config.headDim;
  const graphBytes = m.provenance.files.find((f) => f.name === m.provenance.graph.file)?.bytes ?? 0;
  checkScoringMemory({ ...m.config, dModel: width, dFF: 4 * width }, graphBytes, o.batchRows);
  const { docs, source } = dirDocuments(m, o.convention, { data: o.data, text });
  const stride = scoringStride(o.stride, m.config.contextLength);
  const splits = scoreSplits(m.model, splitBatches(docs, source, allowed, o, m.model.binding));
  return {
    model: o.model,
    model_sha256: m.provenance.sha256,
    integrity: m.provenance.manifest,
    convention: conventionRecord(o.convention, m.special),
    model_dir: m.provenance,
    data: { source, documents: docs.length },
    batch_rows: o.batchRows,
    layout: "strided windows",
    stride,
    context_length: m.config.contextLength,
    final_test: o.finalTest === true,
    test_documents_not_scored: Object.hasOwn(splits, "test") ? 0 : docs.filter((d) => d.split === "test").length,
    splits,
    provenance: { ...provenance(o.engine ?? tfjsOnly()), workers: 1 },
  };
}

export interface DirSampleResult extends Omit<SampleResult, "tokenizer"> {
  convention: ConventionRecord;
  model_dir: ModelDirProvenance;
}

/**
 * `sample --model DIR`: the prompt is the convention's prefix and the prompt's ids (no EOS), continued through the
 * graph's KV cache; generation stops at the EOS, or before the context is full (a graph's positions end there).
 */
export function runSampleDir(o: SampleOptions & DirOptions): DirSampleResult {
  checkSampleOptions(o);
  if (o.temperature === 0 && o.samples > 1)
    throw new Error(
      `--samples ${o.samples} with greedy decoding (--temperature 0) repeats one continuation; give --temperature > 0 to sample`,
    );
  const m = openModelDir(o.model, o);
  const { tokenizer, config } = m;
  if (o.topK !== undefined && o.topK > config.vocabSize)
    throw new Error(`--top-k ${o.topK} is more than the model's vocabulary ${config.vocabSize}`);
  const content = tokenizer.encode(o.prompt);
  if (content.length === 0) throw new Error(`--prompt ${JSON.stringify(o.prompt)} encodes to no tokens; give some text to continue`);
  const prompt = conventionIds(o.convention, m.special, content).slice(0, content.length + 1);
  if (prompt.length + o.maxTokens > config.contextLength)
    throw new Error(
      `--max-tokens ${o.maxTokens}: the prompt's ${prompt.length} ids and the continuation must fit the model's context of ${config.contextLength} (config.json), at most ${config.contextLength - prompt.length}`,
    );
  const samples = drawSamples(m.model, prompt, o, m.special.eos ?? null, (ids) => tokenizer.decode(ids));
  return {
    model: o.model,
    model_sha256: m.provenance.sha256,
    convention: conventionRecord(o.convention, m.special),
    model_dir: m.provenance,
    decoding: decodingRecord(o),
    max_tokens: o.maxTokens,
    prompt: { text: o.prompt, ids: prompt },
    samples,
    provenance: provenance(o.engine ?? tfjsOnly()),
  };
}
