// The data `tinylab train` trains on: the overfit fixture or a documents file as whole-document microbatches, or
// your own text (--text) split by a manifest in --out with a tokenizer learned on train only. No training here.
import { trainingBatches, type Binding } from "../src/data/batches.ts";
import { encodeDocument, targetCount, type Document, type Split } from "../src/data/documents.ts";
import { overfitDocuments, overfitTokenizer } from "../src/data/fixtures.ts";
import { BYTE_VOCAB, ByteTokenizer, type Tokenizer } from "../src/data/tokenizer.ts";
import { BpeVocabError, bpeSample, trainBpe } from "../src/data/bpe.ts";
import { RandomWindows } from "../src/data/sampling.ts";
import { textDataProvenance, textSplit, type TextDataProvenance, type TextSplitOptions } from "../src/data/text_split.ts";
import { jsonSha256, MANIFEST_FILE } from "../src/data/text_manifest.ts";
import { nodeSha256 } from "../src/node/sha256.ts";
import { MIN_INTERVAL_DOCUMENTS } from "../src/eval/metrics/intervals.ts";
import { PRESETS, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { checkTrainingMemory } from "../src/lab/memory.ts";
import { EpochSource } from "../src/data/epoch_source.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { phase, type Progress, type ProgressStream } from "../src/util/runtime/progress.ts";
import { TEXT_DEFAULTS, textMicrobatches, TRAIN_DEFAULTS, type TrainRunOptions } from "./train_options.ts";

/** The data of a run: model config, tokenizer, documents by split, the training source and how to describe it. */
export interface TrainData {
  config: ModelConfig;
  tokenizer: Tokenizer;
  train: Document[];
  validation: Document[];
  test: Document[];
  /** Microbatches per update: the one asked for, or the data's default. */
  microbatches: number;
  identity: string;
  describe: string;
  source: (batches: Rng) => EpochSource<ReturnType<typeof trainingBatches>[number]> | RandomWindows;
  split?: { manifest: string; documents: Record<string, number> };
  trainedOn?: TextDataProvenance;
}

/** The overfit fixture or a JSONL file: whole documents as microbatches, byte tokens, the overfit shape. */
export function documentData(o: TrainRunOptions): TrainData {
  const config = resolveModelConfig(o.modelConfig, PRESETS.overfit);
  checkTrainingMemory(config, o.batchRows); // before the documents are read
  const tokenizer = o.data ? new ByteTokenizer(config.vocabSize) : overfitTokenizer();
  const all = o.data ? o.data.docs(tokenizer) : overfitDocuments(tokenizer);
  const of = (s: string) => all.filter((d) => d.split === s);
  const train = of("train");
  const source = o.data?.name ?? "overfit fixture";
  if (train.length === 0) throw new Error(`no train documents in ${source}`);
  const microbatches = trainingBatches(
    train,
    { vocabSize: config.vocabSize, contextLength: config.contextLength },
    o.batchRows === 1 ? "separate" : "padded",
    o.batchRows,
  );
  const targets = train.reduce((n, d) => n + targetCount(d), 0);
  const perUpdate = o.microbatches ?? TRAIN_DEFAULTS.microbatches;
  return {
    config,
    tokenizer,
    train,
    validation: of("validation"),
    test: of("test"),
    microbatches: perUpdate,
    identity: o.data?.identity ?? "overfit-fixture",
    describe: `train: ${source}, ${train.length} training documents (${targets} targets) in ${microbatches.length} microbatches, ${perUpdate} per update${o.shuffle ? ", shuffled each epoch" : ""}`,
    source: (batches) => new EpochSource(microbatches, perUpdate, o.shuffle ? batches : undefined),
  };
}

/** The BPE of --vocab ids learned on the train split, or a refusal naming --vocab and the largest the text supports. */
function bpeOf(texts: string[], vocab: number, progress?: ProgressStream) {
  // two bars of one phase: the sample's documents counted, then the merges learned
  const counting = phase(progress, "bpe", texts.length, "documents");
  let bar: Progress | undefined;
  try {
    const bpe = trainBpe(texts, vocab, {
      onCount: () => counting?.tick(),
      onMerge: () => {
        if (!bar) {
          counting?.done();
          bar = phase(progress, "bpe", vocab - BYTE_VOCAB, "merges");
        }
        bar?.tick();
      },
    });
    bar?.done();
    return bpe;
  } catch (err) {
    if (!(err instanceof BpeVocabError)) throw err;
    counting?.clear();
    bar?.clear();
    throw new Error(
      `--vocab ${vocab} is more than this text's train split supports: BPE finds repeated pairs for at most ${err.atMost} ids; pass --vocab ${err.atMost} or less, give more text, or use --tokenizer byte`,
    );
  }
}

/**
 * The training source of tokenized documents, made outside textData: a closure made there would share its scope,
 * and so keep the split's texts (and the input's) alive for the whole run.
 */
function randomWindows(train: Document[], binding: Binding, rows: number, parts: number) {
  return (batches: Rng) => new RandomWindows(train, binding, rows, batches, parts);
}

/** `--text`: the seeded split (manifest in the output directory), a tokenizer learned on train only, random windows. */
export function textData(o: TrainRunOptions): TrainData {
  const t = o.text!;
  if (!o.out) throw new Error("--text needs --out (the split manifest, history and state live there)");
  const vocab = (o.modelConfig.vocabSize as number | undefined) ?? (t.tokenizer === "bpe" ? TEXT_DEFAULTS.vocab : 258);
  const config = resolveModelConfig({ ...o.modelConfig, vocabSize: vocab }, resolveModelConfig(TEXT_DEFAULTS.model));
  checkTrainingMemory(config, o.batchRows); // before the split is written or a tokenizer learned
  const { bySplit, manifest, manifestSha256 } = textSplit(t.docs, o.out, t.split, { progress: o.progress, sha256: nodeSha256 });
  // a large train split is sampled for BPE (bpe.ts BPE_SAMPLE_CHARS), seeded by --seed: the split has its own seed
  const sample =
    t.tokenizer === "bpe"
      ? bpeSample(
          bySplit.train.map((d) => d.text),
          Rng.fromSeed(o.seed).child("bpe-sample"),
        )
      : undefined;
  const tokenizer = sample ? bpeOf(sample.texts, vocab, o.progress) : new ByteTokenizer(vocab);
  const sampled =
    sample && sample.chars < sample.of
      ? `, BPE learned on a sample of ${sample.chars} of its ${sample.of} characters (seed ${o.seed})`
      : "";
  const tokenizing = phase(o.progress, "tokenize", bySplit.train.length + bySplit.validation.length + bySplit.test.length, "documents");
  const enc = (s: Split) =>
    bySplit[s].map((d) => {
      const e = encodeDocument(tokenizer, d);
      tokenizing?.tick();
      return e;
    });
  const [train, validation, test] = [enc("train"), enc("validation"), enc("test")];
  tokenizing?.done();
  // the run's identity hashes the manifest's JSON once more (compact): a million documents take a few seconds
  const hashing = phase(o.progress, "manifest", manifest.documents.length, "documents");
  const identity = `text manifest sha256:${jsonSha256(manifest, 0, "", hashing && ((n) => hashing.tick(n)), nodeSha256)} tokenizer ${t.tokenizer}`;
  hashing?.done();
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const tokens = train.reduce((n, d) => n + targetCount(d), 0);
  const count = (s: Split) => bySplit[s].length; // the manifest's documents of that split, already apart
  const parts = o.microbatches ?? textMicrobatches(config, o.batchRows);
  return {
    config,
    tokenizer,
    train,
    validation,
    test,
    microbatches: parts,
    // the split's content (every document's sha256) and the tokenizer kind name the data; a resume must match both
    identity,
    describe: `train: ${t.name}, ${count("train")} train / ${count("validation")} validation / ${count("test")} test documents (split seed ${t.split.seed}); ${tokens} train tokens (${t.tokenizer} ${vocab}${sampled}); random windows of ${o.batchRows} × ${config.contextLength}${parts > 1 ? ` as ${parts} microbatches` : ""}`,
    source: randomWindows(train, binding, o.batchRows, parts),
    split: {
      manifest: o.out.where(MANIFEST_FILE),
      documents: { train: count("train"), validation: count("validation"), test: count("test") },
    },
    trainedOn: textDataProvenance(manifest, manifestSha256),
  };
}

/**
 * `train --text`'s warnings for a held-out split of fewer than MIN_INTERVAL_DOCUMENTS documents: its NLL is a few
 * documents' and no interval is printed over it, so the fraction option that would give it more is named.
 */
export function smallSplitWarnings(d: TrainData, split: TextSplitOptions): string[] {
  if (!d.split) return [];
  const flags = { validation: ["--validation-fraction", split.validation], test: ["--test-fraction", split.test] } as const;
  return (["validation", "test"] as const).flatMap((s) => {
    const [flag, fraction] = flags[s],
      n = d.split!.documents[s];
    if (fraction === 0 || n >= MIN_INTERVAL_DOCUMENTS) return [];
    return [
      `warning: the ${s} split has ${n} document${n === 1 ? "" : "s"}, fewer than ${MIN_INTERVAL_DOCUMENTS} (MIN_INTERVAL_DOCUMENTS): its NLL is ${n === 1 ? "one document's" : `${n} documents'`}, too few for an interval; raise ${flag} (now ${fraction}) or give more documents`,
    ];
  });
}
