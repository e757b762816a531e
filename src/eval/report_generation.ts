// The generation part of the report: seeded samples from held-out prompts, their n-gram overlap with the
// training text by order, their diversity, and greedy margins. Composition only: the metrics live elsewhere.
import type { Document } from "../data/documents.ts";
import type { Tokenizer } from "../data/tokenizer.ts";
import type { Rng } from "../util/rng.ts";
import type { ScoringModel } from "../model/scoring.ts";
import { distinctN, meanPairwiseJaccard, uniqueSequenceRatio } from "./diversity.ts";
import { generate, greedyMargin } from "./generate.ts";
import { overlapByOrder } from "./overlap.ts";
import { noPromptReason, promptable, promptOf } from "./verbatim.ts";
import { reasoned } from "./reasoned.ts";

export interface GenerationSettings {
  readonly prompts: number;
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly samplesPerPrompt: number;
  readonly temperature: number;
  /** Omitted: sample from the whole vocabulary. */
  readonly topK?: number;
  readonly overlapOrders: readonly number[];
}

export const GENERATION_DEFAULTS: GenerationSettings = { prompts: 8, promptTokens: 16, maxTokens: 32, samplesPerPrompt: 2, temperature: 1, overlapOrders: [1, 2, 3, 4] };

/** Content ids of a document (BOS and a final EOS removed), the reference for overlap. */
function contentIds(d: Document, tokenizer: Tokenizer): number[] {
  const start = d.ids[0] === tokenizer.bos ? 1 : 0;
  const end = d.ids[d.ids.length - 1] === tokenizer.eos ? d.ids.length - 1 : d.ids.length;
  return d.ids.slice(start, end);
}

/** Samples, overlap by order, diversity and greedy margins for up to `prompts` prompt documents. */
export function generationSection(model: ScoringModel, tokenizer: Tokenizer, promptDocs: readonly Document[], train: readonly Document[], s: GenerationSettings, rng: Rng, tick: () => void) {
  // documents too short to leave a continuation after the prompt are skipped and counted (verbatim.ts promptable)
  const usable = promptable(promptDocs, s.promptTokens, tokenizer);
  const docs = usable.docs.slice(0, s.prompts);
  const samples = docs.flatMap((d) => {
    const prompt = promptOf(d, s.promptTokens);
    return Array.from({ length: s.samplesPerPrompt }, (_, k) => {
      // one named stream per (document, sample): adding a prompt never shifts another's draws
      const decoding = { kind: "sample" as const, temperature: s.temperature, topK: s.topK, rng: rng.child(`${d.id}/${k}`) };
      const g = generate(model, prompt, { maxTokens: s.maxTokens, decoding, stopToken: tokenizer.eos });
      tick();
      const tokens = g.stopped === "stop-token" ? g.tokens.slice(0, -1) : g.tokens;
      return { doc: d.id, sample: k, prompt: tokenizer.decode(prompt), text: tokenizer.decode(tokens), tokens, stopped: g.stopped };
    });
  });
  const margins = docs.map((d) => {
    const prompt = promptOf(d, s.promptTokens);
    const m = greedyMargin(model, prompt);
    tick();
    return { doc: d.id, prompt: tokenizer.decode(prompt), token: m.token, token_text: tokenizer.decode([m.token]), probability: m.probability, runner_up: m.runnerUp, runner_up_text: tokenizer.decode([m.runnerUp]), margin_logits: m.margin };
  });
  const generated = samples.map((x) => x.tokens);
  const references = train.map((d) => contentIds(d, tokenizer));
  const noSamples = `no samples: ${noPromptReason(promptDocs.length, s.promptTokens, "prompt")}`;
  const noGrams = (n: number) => (generated.length === 0 ? noSamples : `no sample has ${n} tokens, so there is no ${n}-gram`);
  return {
    generation: { unit: "tokens", prompt_source: docs.map((d) => d.split).filter((v, i, a) => a.indexOf(v) === i), prompt_documents_skipped_too_short: usable.skipped, samples, greedy_margins: margins },
    overlap: {
      definition: "fraction of each sample's unique token n-grams found in any training document (no n-gram spans two documents), averaged over all samples; a sample with no n-gram of that order counts 0 (000)",
      samples: generated.length,
      orders: overlapByOrder(generated, references, s.overlapOrders).map((o) => ({ n: o.n, ...reasoned("mean_overlap", o.meanOverlap, noSamples), samples_scored: o.scored, samples_with_ngrams: o.withNgrams })),
    },
    diversity: {
      unit: "token ids",
      samples: generated.length,
      ...reasoned("distinct_1", distinctN(generated, 1), noGrams(1)),
      ...reasoned("distinct_2", distinctN(generated, 2), noGrams(2)),
      ...reasoned("unique_sequence_ratio", uniqueSequenceRatio(generated), noSamples),
      ...reasoned("mean_pairwise_jaccard_2", meanPairwiseJaccard(generated, 2), generated.length === 0 ? noSamples : "one sample: no pair to compare"),
    },
  };
}
