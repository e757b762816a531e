// The report's generation evaluators: seeded samples and greedy margins from held-out prompts, then the samples'
// n-gram overlap with the training text by order and their diversity, computed from those samples.
import type { Document } from "../../data/documents.ts";
import type { AnyTokenizer } from "../../data/tokenizer.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import type { Rng } from "../../util/primitives/rng.ts";
import { htmlTable } from "../../util/render/html.ts";
import { continuationText, tokenText, visibleText } from "../../util/render/text_view.ts";
import { distinctN, meanPairwiseJaccard, uniqueSequenceRatio } from "../metrics/diversity.ts";
import type { DiversityValue, GenerationSettings, GenerationValue, OverlapValue } from "./types.ts";
import { notShown, type Evaluator, type ReportContext, type ReportInputs } from "./evaluator.ts";
import { generate, greedyMargin } from "../passes/generate.ts";
import { overlapByOrder } from "../metrics/overlap.ts";
import { reasoned } from "../metrics/reasoned.ts";
import { fixed, para, shown } from "../render/format.ts";
import { noPromptReason, promptable, promptOf } from "../passes/verbatim.ts";

export const GENERATION_DEFAULTS: GenerationSettings = {
  prompts: 8,
  promptTokens: 16,
  maxTokens: 32,
  samplesPerPrompt: 2,
  temperature: 1,
  overlapOrders: [1, 2, 3, 4],
};

/** Content ids of a document (BOS and a final EOS removed), the reference for overlap. */
function contentIds(d: Document, tokenizer: AnyTokenizer): number[] {
  const start = d.ids[0] === tokenizer.bos ? 1 : 0;
  const end = d.ids[d.ids.length - 1] === tokenizer.eos ? d.ids.length - 1 : d.ids.length;
  return d.ids.slice(start, end);
}

// documents too short to leave a continuation after the prompt are skipped and counted (verbatim.ts promptable)
const usable = (i: ReportInputs) => promptable(i.promptDocs, i.settings.generation.promptTokens, i.tokenizer);
const noSamples = (i: ReportInputs) => `no samples: ${noPromptReason(i.promptDocs.length, i.settings.generation.promptTokens, "prompt")}`;

/** Seeded samples and greedy margins for up to `s.prompts` prompt documents; `tick` once per sample and margin. */
export function sampleGeneration(
  model: ScoringModel,
  tokenizer: AnyTokenizer,
  promptDocs: readonly Document[],
  s: GenerationSettings,
  rng: Rng,
  tick: () => void,
): GenerationValue {
  const u = promptable(promptDocs, s.promptTokens, tokenizer),
    docs = u.docs.slice(0, s.prompts);
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
    return {
      doc: d.id,
      prompt: tokenizer.decode(prompt),
      token: m.token,
      token_text: tokenizer.decode([m.token]),
      probability: m.probability,
      runner_up: m.runnerUp,
      runner_up_text: tokenizer.decode([m.runnerUp]),
      margin_logits: m.margin,
    };
  });
  return {
    unit: "tokens",
    prompt_source: docs.map((d) => d.split).filter((v, i, a) => a.indexOf(v) === i),
    prompt_documents_skipped_too_short: u.skipped,
    samples,
    greedy_margins: margins,
  };
}

/** Overlap by order of the samples' token n-grams with the training documents' content. */
export function sampleOverlap(
  samples: readonly (readonly number[])[],
  train: readonly Document[],
  tokenizer: AnyTokenizer,
  orders: readonly number[],
  noSamples: string,
): OverlapValue {
  const references = train.map((d) => contentIds(d, tokenizer));
  return {
    definition:
      "fraction of each sample's unique token n-grams found in any training document (no n-gram spans two documents), averaged over all samples; a sample with no n-gram of that order counts 0 (000)",
    samples: samples.length,
    orders: overlapByOrder(samples, references, orders).map((o) => ({
      n: o.n,
      ...reasoned("mean_overlap", o.meanOverlap, noSamples),
      samples_scored: o.scored,
      samples_with_ngrams: o.withNgrams,
    })),
  };
}

/** Distinct-1/2, unique sequences and mean pairwise 2-gram Jaccard of the samples, null with a reason when undefined. */
export function sampleDiversity(g: readonly (readonly number[])[], none: string): DiversityValue {
  const noGrams = (n: number) => (g.length === 0 ? none : `no sample has ${n} tokens, so there is no ${n}-gram`);
  return {
    unit: "token ids",
    samples: g.length,
    ...reasoned("distinct_1", distinctN(g, 1), noGrams(1)),
    ...reasoned("distinct_2", distinctN(g, 2), noGrams(2)),
    ...reasoned("unique_sequence_ratio", uniqueSequenceRatio(g), none),
    ...reasoned("mean_pairwise_jaccard_2", meanPairwiseJaccard(g, 2), g.length === 0 ? none : "one sample: no pair to compare"),
  };
}

export const generationEvaluator: Evaluator<GenerationValue> = {
  key: "generation",
  id: "sampled-generation",
  version: 1,
  aggregation: { kind: "per-item", item: "sample" },
  identity: { key: "generation", settings: (i) => ({ ...i.settings.generation, seed: i.settings.seed }) },
  steps: (i) => Math.min(i.settings.generation.prompts, usable(i).docs.length) * (i.settings.generation.samplesPerPrompt + 1),
  compute: (ctx) => ctx.samples(),
  render: {
    html: (g) => [
      {
        heading: "Generation: samples and greedy margins",
        html:
          para(
            "Text as generated: ⟨EOS⟩ where generation stopped at the end-of-sequence token, control characters as escapes (\\n), ⟨?⟩ for bytes that are not valid UTF-8 on their own, (empty) for nothing.",
          ) +
          htmlTable(
            ["document", "sample", "prompt", "continuation"],
            g.samples.map((s) => [s.doc, s.sample, visibleText(s.prompt), continuationText(s.text, s.stopped)]),
          ) +
          htmlTable(
            ["document", "prompt", "greedy token", "p", "runner-up", "margin (logits)"],
            g.greedy_margins.map((m) => [
              m.doc,
              visibleText(m.prompt),
              tokenText(m.token, m.token_text),
              { num: fixed(m.probability) },
              tokenText(m.runner_up, m.runner_up_text),
              { num: fixed(m.margin_logits) },
            ]),
          ),
      },
    ],
    markdown: notShown,
    console: notShown,
    figures: notShown,
  },
};

// overlap and diversity read the same samples: the report draws them once, whichever evaluator asks first
const generated = (ctx: ReportContext) => ctx.samples().samples.map((x) => x.tokens);

export const overlapEvaluator: Evaluator<OverlapValue> = {
  key: "overlap",
  id: "sampled-generation",
  version: 1, // no identity of its own: of the samples generation names
  aggregation: { kind: "mean-over-items", item: "sample (a sample with no n-gram of the order counts 0)" },
  compute: (ctx) => sampleOverlap(generated(ctx), ctx.train, ctx.tokenizer, ctx.settings.generation.overlapOrders, noSamples(ctx)),
  render: {
    html: (o) => [
      {
        heading: "N-gram overlap of samples with training text, by order",
        html:
          para(o.definition) +
          htmlTable(
            ["n", "mean overlap", "samples scored"],
            o.orders.map((x) => [x.n, { num: fixed(x.mean_overlap) }, x.samples_scored]),
          ),
      },
    ],
    markdown: notShown,
    figures: notShown,
    // no samples: every quantity is undefined for the same reason, said once per line
    console: (o, r) => [
      o.samples === 0
        ? `overlap with training text: ${shown(r.diversity, "unique_sequence_ratio")}`
        : `overlap of ${o.samples} samples with training text: ${o.orders.map((x) => `n=${x.n} ${shown(x, "mean_overlap")}`).join(", ")}`,
    ],
  },
};

export const diversityEvaluator: Evaluator<DiversityValue> = {
  key: "diversity",
  id: "sampled-generation",
  version: 1, // no identity of its own: of the samples generation names
  aggregation: {
    kind: "ratio-of-sums",
    numerator: "distinct n-grams",
    denominator: "n-gram positions",
    over: "all samples pooled (the pairwise Jaccard is a mean over pairs)",
  },
  compute: (ctx) => sampleDiversity(generated(ctx), noSamples(ctx)),
  render: {
    html: (d) => [
      {
        heading: "Diversity of samples",
        html: htmlTable(
          ["distinct-1", "distinct-2", "unique sequences", "mean pairwise 2-gram Jaccard", "samples"],
          [
            [
              { num: fixed(d.distinct_1) },
              { num: fixed(d.distinct_2) },
              { num: fixed(d.unique_sequence_ratio) },
              { num: fixed(d.mean_pairwise_jaccard_2) },
              d.samples,
            ],
          ],
        ),
      },
    ],
    markdown: notShown,
    figures: notShown,
    console: (d, r) => {
      if (d.samples === 0) return [`diversity: ${shown(d, "unique_sequence_ratio")}`];
      const skipped = r.generation.prompt_documents_skipped_too_short;
      return [
        `diversity: distinct-1 ${shown(d, "distinct_1")}, distinct-2 ${shown(d, "distinct_2")}, unique ${shown(d, "unique_sequence_ratio")}, pairwise 2-gram Jaccard ${shown(d, "mean_pairwise_jaccard_2")}`,
        ...(skipped > 0 ? [`  ${skipped} prompt document(s) skipped: too short to leave a continuation after the prompt`] : []),
      ];
    },
  },
};
