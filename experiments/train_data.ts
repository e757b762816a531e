// The data `tinylab train` trains on: the overfit fixture or a documents file as whole-document microbatches, or
// your own text (--text) split by a manifest in --out with a tokenizer learned on train only. No training here.
import { trainingBatches } from "../src/data/batches.ts";
import { encodeDocument, targetCount, type Document, type Split } from "../src/data/documents.ts";
import { overfitDocuments, overfitTokenizer } from "../src/data/fixtures.ts";
import { ByteTokenizer, type Tokenizer } from "../src/data/tokenizer.ts";
import { BpeVocabError, bpeSample, trainBpe } from "../src/data/bpe.ts";
import { RandomWindows } from "../src/data/sampling.ts";
import { MANIFEST_FILE, textDataProvenance, textSplit, type TextDataProvenance } from "../src/data/text_split.ts";
import { PRESETS, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { EpochSource } from "../src/train/loop.ts";
import { Rng } from "../src/util/rng.ts";
import { sha256Hex } from "../src/util/sha256.ts";
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
  const tokenizer = o.data ? new ByteTokenizer(config.vocabSize) : overfitTokenizer();
  const all = o.data ? o.data.docs(tokenizer) : overfitDocuments(tokenizer);
  const of = (s: string) => all.filter((d) => d.split === s);
  const train = of("train");
  const source = o.data?.name ?? "overfit fixture";
  if (train.length === 0) throw new Error(`no train documents in ${source}`);
  const microbatches = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, o.batchRows === 1 ? "separate" : "padded", o.batchRows);
  const targets = train.reduce((n, d) => n + targetCount(d), 0);
  const perUpdate = o.microbatches ?? TRAIN_DEFAULTS.microbatches;
  return {
    config, tokenizer, train, validation: of("validation"), test: of("test"), microbatches: perUpdate, identity: o.data?.identity ?? "overfit-fixture",
    describe: `train: ${source}, ${train.length} training documents (${targets} targets) in ${microbatches.length} microbatches, ${perUpdate} per update${o.shuffle ? ", shuffled each epoch" : ""}`,
    source: (batches) => new EpochSource(microbatches, perUpdate, o.shuffle ? batches : undefined),
  };
}

/** The BPE of --vocab ids learned on the train split, or a refusal naming --vocab and the largest the text supports. */
function bpeOf(texts: string[], vocab: number) {
  try {
    return trainBpe(texts, vocab);
  } catch (err) {
    if (!(err instanceof BpeVocabError)) throw err;
    throw new Error(`--vocab ${vocab} is more than this text's train split supports: BPE finds repeated pairs for at most ${err.atMost} ids; pass --vocab ${err.atMost} or less, give more text, or use --tokenizer byte`);
  }
}

/** `--text`: the seeded split (manifest in the output directory), a tokenizer learned on train only, random windows. */
export function textData(o: TrainRunOptions): TrainData {
  const t = o.text!;
  if (!o.out) throw new Error("--text needs --out (the split manifest, history and state live there)");
  const { bySplit, manifest, manifestSha256 } = textSplit(t.docs, o.out, t.split);
  const vocab = (o.modelConfig.vocabSize as number | undefined) ?? (t.tokenizer === "bpe" ? TEXT_DEFAULTS.vocab : 258);
  // a large train split is sampled for BPE (bpe.ts BPE_SAMPLE_CHARS), seeded by --seed: the split has its own seed
  const sample = t.tokenizer === "bpe" ? bpeSample(bySplit.train.map((d) => d.text), Rng.fromSeed(o.seed).child("bpe-sample")) : undefined;
  const tokenizer = sample ? bpeOf(sample.texts, vocab) : new ByteTokenizer(vocab);
  const sampled = sample && sample.chars < sample.of ? `, BPE learned on a sample of ${sample.chars} of its ${sample.of} characters (seed ${o.seed})` : "";
  const config = resolveModelConfig({ ...o.modelConfig, vocabSize: vocab }, resolveModelConfig(TEXT_DEFAULTS.model));
  const enc = (s: Split) => bySplit[s].map((d) => encodeDocument(tokenizer, d));
  const train = enc("train");
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const tokens = train.reduce((n, d) => n + targetCount(d), 0);
  const count = (s: string) => manifest.documents.filter((d) => d.split === s).length;
  const parts = o.microbatches ?? textMicrobatches(config, o.batchRows);
  return {
    config, tokenizer, train, validation: enc("validation"), test: enc("test"), microbatches: parts,
    // the split's content (every document's sha256) and the tokenizer kind name the data; a resume must match both
    identity: `text manifest sha256:${sha256Hex(JSON.stringify(manifest))} tokenizer ${t.tokenizer}`,
    describe: `train: ${t.name}, ${count("train")} train / ${count("validation")} validation / ${count("test")} test documents (split seed ${t.split.seed}); ${tokens} train tokens (${t.tokenizer} ${vocab}${sampled}); random windows of ${o.batchRows} × ${config.contextLength}${parts > 1 ? ` as ${parts} microbatches` : ""}`,
    source: (batches) => new RandomWindows(train, binding, o.batchRows, batches, parts),
    split: { manifest: o.out.where(MANIFEST_FILE), documents: { train: count("train"), validation: count("validation"), test: count("test") } },
    trainedOn: textDataProvenance(manifest, manifestSha256),
  };
}
