// `tinylab sample` as a recipe: continue a prompt with a model file's decoder, greedily or by seeded sampling
// (src/eval/passes/generate.ts). Not scoring and not training; the prompt is encoded with the file's own tokenizer.
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import type { ScoringModel } from "../src/model/scoring.ts";
import { generate, type Decoding } from "../src/eval/passes/generate.ts";
import { decodeModelFile } from "../src/lab/model_file.ts";
import { readModelFileBytes } from "../src/node/disk.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { SAMPLE_DEFAULTS, type SampleOptions } from "./options.ts";
export { SAMPLE_DEFAULTS, type SampleOptions };

export interface SampleResult {
  model: string;
  model_sha256: string;
  tokenizer: unknown;
  decoding: { kind: "greedy" } | { kind: "sample"; temperature: number; top_k: number | null; seed: number; stream: string };
  max_tokens: number;
  prompt: { text: string; ids: number[] };
  samples: { index: number; ids: number[]; probabilities: number[]; text: string; stopped: "stop-token" | "length" }[];
  provenance: Provenance;
}

/** Refuse values generation cannot use, naming the option (the parser already checked types). */
export function checkSampleOptions(o: SampleOptions): void {
  if (!(Number.isFinite(o.temperature) && o.temperature >= 0))
    throw new Error(`--temperature must be a finite number ≥ 0, got ${o.temperature}`);
  if (o.topK !== undefined && (!Number.isInteger(o.topK) || o.topK < 1))
    throw new Error(`--top-k must be a positive integer, got ${o.topK}`);
  if (o.topK !== undefined && o.temperature === 0)
    throw new Error("--top-k needs --temperature > 0: greedy decoding (temperature 0) always takes the top token");
  if (!Number.isInteger(o.maxTokens) || o.maxTokens < 1) throw new Error(`--max-tokens must be a positive integer, got ${o.maxTokens}`);
  if (!Number.isInteger(o.samples) || o.samples < 1) throw new Error(`--samples must be a positive integer, got ${o.samples}`);
}

/** The continuations asked for: sample i from the child stream "sampling/i" of the seed (greedy: no stream). */
export function drawSamples(
  model: ScoringModel,
  prompt: readonly number[],
  o: Pick<SampleOptions, "samples" | "temperature" | "topK" | "seed" | "maxTokens">,
  stopToken: number | null,
  decode: (ids: number[]) => string,
): SampleResult["samples"] {
  const root = Rng.fromSeed(o.seed).child("sampling");
  return Array.from({ length: o.samples }, (_, index) => {
    const decoding: Decoding =
      o.temperature === 0
        ? { kind: "greedy" }
        : { kind: "sample", temperature: o.temperature, topK: o.topK, rng: root.child(String(index)) };
    const g = generate(model, prompt, { maxTokens: o.maxTokens, decoding, stopToken });
    return { index, ids: g.tokens, probabilities: g.logProbs.map(Math.exp), text: decode(g.tokens), stopped: g.stopped };
  });
}

/** How the samples were decoded, as a result records it. */
export const decodingRecord = (o: Pick<SampleOptions, "temperature" | "topK" | "seed">): SampleResult["decoding"] =>
  o.temperature === 0
    ? { kind: "greedy" }
    : { kind: "sample", temperature: o.temperature, top_k: o.topK ?? null, seed: o.seed, stream: `${o.seed}/sampling/<sample index>` };

/**
 * Each sample i draws from the child stream "sampling/i" of the seed, so a sample does not depend on how many
 * were asked for; greedy samples are all the same and one is enough (more are refused as pointless).
 */
export function runSample(o: SampleOptions): SampleResult {
  checkSampleOptions(o);
  if (o.temperature === 0 && o.samples > 1)
    throw new Error(
      `--samples ${o.samples} with greedy decoding (--temperature 0) repeats one continuation; give --temperature > 0 to sample`,
    );
  const loaded = decodeModelFile(readModelFileBytes(o.model), o.model, o.engine);
  try {
    const { tokenizer, config } = loaded;
    if (o.topK !== undefined && o.topK > config.vocabSize)
      throw new Error(`--top-k ${o.topK} is more than the model's vocabulary ${config.vocabSize}`);
    const content = tokenizer.encode(o.prompt);
    if (content.length === 0) throw new Error(`--prompt ${JSON.stringify(o.prompt)} encodes to no tokens; give some text to continue`);
    const prompt = [tokenizer.bos, ...content];
    const model = decoderAdapter(loaded.model);
    const samples = drawSamples(model, prompt, o, tokenizer.eos, (ids) => tokenizer.decode(ids));
    return {
      model: o.model,
      model_sha256: loaded.sha256,
      tokenizer: tokenizer.toJSON(),
      decoding: decodingRecord(o),
      max_tokens: o.maxTokens,
      prompt: { text: o.prompt, ids: prompt },
      samples,
      provenance: provenance(o.engine ?? tfjsOnly()),
    };
  } finally {
    loaded.model.dispose();
  }
}
