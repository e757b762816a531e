// Memorization pieces on constructed cases: 000's canary experiment (character bigram with smoothing 0.05)
// reproduced through the ScoringModel path, canary insertion refusals, greedy recovery, and the longest
// verbatim match used by the train-vs-held-out probe.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKBigram, baselineAdapter, fitCounts } from "../../../src/baselines/ngram.ts";
import type { Document, TextDocument } from "../../../src/data/documents.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import {
  canaryProbe,
  continuationLogProb,
  exposureByRepetitions,
  greedyRecovery,
  insertCanary,
} from "../../../src/eval/passes/memorization.ts";
import { longestVerbatimMatch, promptOf, verbatimProbe } from "../../../src/eval/passes/verbatim.ts";
import type { GPT } from "../../../src/model/gpt.ts";
import { tinyData, tinyDecoder } from "../tiny_model.ts";
import { leakedBy, useBackend } from "../../helpers.ts";
import { encodeDocument } from "../../../src/data/documents.ts";
import { ByteTokenizer } from "../../../src/data/tokenizer.ts";
import type { ScoringModel } from "../../../src/model/scoring.ts";
import { GENERATION_DEFAULTS, sampleDiversity, sampleGeneration, sampleOverlap } from "../../../src/eval/report/generation.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";

// 000: base text, canary and control over the sorted alphabet of their characters; no BOS/EOS
const base = "the model reads data and reports loss. ".repeat(6);
const canary = "<Q7|zebra|X9>";
const control = "<Q7|zebra|Y9>";
const alphabet = [...new Set(base + canary + control)].sort();
const ids = (s: string) => Array.from(s, (ch) => alphabet.indexOf(ch));
const V = alphabet.length;

/** 000's fit_character_bigram(texts, alphabet, 0.05) as a ScoringModel: add-0.05 bigram on the train texts. */
function fitted(texts: readonly TextDocument[]) {
  const docs: Document[] = texts
    .filter((t) => t.split === "train")
    .map((t) => ({ id: t.id, split: "train", source: t.source, ids: ids(t.text) }));
  return baselineAdapter("char bigram", addKBigram(fitCounts(docs, V), 0.05), { vocabSize: V, contextLength: 32 });
}
const corpus: TextDocument[] = [{ id: "base", split: "train", source: "base", text: base }];
const prefix = ids(canary).slice(0, -2);
const secret = ids(canary).slice(-2);

describe("canary probe (000)", () => {
  it("reproduces 000: seen −1.4793, unseen −6.3561, greedy recovery of the seen canary", () => {
    const seen = continuationLogProb(fitted(insertCanary(corpus, { text: canary, repetitions: 1 })), prefix, secret);
    const unseen = continuationLogProb(fitted(corpus), prefix, secret);
    expect(seen.logProb).toBeCloseTo(-1.4793, 3); // float32 log-probs: 3 decimals
    expect(unseen.logProb).toBeCloseTo(-6.3561, 3);
    expect(seen.perToken).toHaveLength(2);
    expect(greedyRecovery(fitted(insertCanary(corpus, { text: canary, repetitions: 1 })), prefix, secret)).toMatchObject({
      recovered: true,
      matchedTokens: 2,
    });
    expect(greedyRecovery(fitted(corpus), prefix, secret).recovered).toBe(false);
  });

  it("reproduces 000's exposure by repetitions: 1 → −1.4793, 3 → −0.6399, 8 → −0.2671 (graded, increasing)", () => {
    const rows = exposureByRepetitions((r) => fitted(insertCanary(corpus, { text: canary, repetitions: r })), prefix, secret, [0, 1, 3, 8]);
    expect(rows.map((r) => r.repetitions)).toEqual([0, 1, 3, 8]);
    [-6.3561, -1.4793, -0.6399, -0.2671].forEach((lp, i) => expect(rows[i].log_prob).toBeCloseTo(lp, 3));
    expect(rows.map((r) => r.recovered)).toEqual([false, true, true, true]);
  });

  it("gives the same log-prob when the sequence is longer than the context (per-token cropping path)", () => {
    const model = fitted(insertCanary(corpus, { text: canary, repetitions: 3 }));
    const short = baselineAdapter(
      "same, context 4",
      addKBigram(
        fitCounts(
          [
            { id: "b", split: "train", source: "s", ids: ids(base) },
            ...[0, 1, 2].map((i): Document => ({ id: `c${i}`, split: "train", source: "c", ids: ids(canary) })),
          ],
          V,
        ),
        0.05,
      ),
      { vocabSize: V, contextLength: 4 },
    );
    expect(continuationLogProb(short, prefix, secret).logProb).toBeCloseTo(continuationLogProb(model, prefix, secret).logProb, 5);
    expect(canaryProbe(short, prefix, secret).recovered).toBe(true);
  });

  it("inserts copies as separate training documents and refuses leaks, bad counts and id collisions", () => {
    const out = insertCanary(corpus, { text: canary, repetitions: 3 });
    expect(out.slice(1)).toEqual([0, 1, 2].map((i) => ({ id: `canary-${i}`, split: "train", source: "canary", text: canary })));
    expect(() =>
      insertCanary([{ id: "v", split: "validation", source: "s", text: `x ${canary} y` }], { text: canary, repetitions: 1 }),
    ).toThrow(/validation document "v"/);
    expect(() => insertCanary(corpus, { text: canary, repetitions: -1 })).toThrow(/repetitions/);
    expect(() => insertCanary([{ id: "canary-0", split: "train", source: "s", text: "a" }], { text: canary, repetitions: 1 })).toThrow(
      /collides/,
    );
    expect(() => continuationLogProb(fitted(corpus), [], secret)).toThrow(/prefix/);
  });
});

describe("longest verbatim match", () => {
  it("finds the longest run of the candidate inside one training text, never across two", () => {
    expect(longestVerbatimMatch("a cat sat on", ["the cat sat on the mat"])).toEqual({ length: 11, match: " cat sat on" });
    expect(longestVerbatimMatch("cd", ["abc", "def"]).length).toBe(1); // "cd" only exists across the boundary
    expect(longestVerbatimMatch("zzz", ["abc"])).toEqual({ length: 0, match: "" });
    expect(longestVerbatimMatch("“é—x", ["a “é— b"]).length).toBe(3); // counted in code points
  });

  it("builds prompts as BOS plus up to n content tokens, always leaving a token unshown", () => {
    const d: Document = { id: "d", split: "train", source: "s", ids: [0, 5, 6, 7, 1] };
    expect(promptOf(d, 2)).toEqual([0, 5, 6]);
    expect(promptOf(d, 10)).toEqual([0, 5, 6, 7]);
  });
});

describe("verbatim probe on a decoder", () => {
  let model: GPT;
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(10);
  });
  afterAll(() => model.dispose());

  it("reports train and held-out prompt rows with bounded match lengths, without leaking tensors", () => {
    const { tokenizer, docs } = tinyData();
    const adapter = decoderAdapter(model);
    const settings = { promptTokens: 6, continueTokens: 10, prompts: 2 };
    let probe: ReturnType<typeof verbatimProbe> | undefined;
    expect(
      leakedBy(() => {
        probe = verbatimProbe(
          adapter,
          tokenizer,
          docs.filter((d) => d.split === "train"),
          docs.filter((d) => d.split !== "train"),
          settings,
        );
      }),
    ).toBe(0);
    expect(probe!.train_prompts.rows).toHaveLength(2);
    expect(probe!.held_out_prompts.rows).toHaveLength(2);
    for (const r of [...probe!.train_prompts.rows, ...probe!.held_out_prompts.rows]) {
      expect(r.longest_match).toBeLessThanOrEqual(Array.from(r.continuation).length);
      expect(r.match.length === 0 || docs.some((d) => tokenizer.decode(d.ids).includes(r.match))).toBe(true);
    }
  });
});

describe("prompts longer than the document", () => {
  // A stub that has memorized its training documents exactly: after any prefix of one it predicts that document's
  // next token (EOS past its end), after anything else EOS. Its recall on train prompts must beat held-out.
  const tokenizer = new ByteTokenizer(266);
  const doc = (id: string, split: "train" | "validation", text: string): Document =>
    encodeDocument(tokenizer, { id, split, source: "s", text });
  const train = [doc("t-long", "train", "the cat sat on the mat and then it slept"), doc("t-short", "train", "hi")];
  const held = [doc("v-long", "validation", "a dog ran in the park all day long"), doc("v-short", "validation", "yo")];
  const V = 266;
  const memorizer: ScoringModel = {
    name: "memorizer",
    binding: { vocabSize: V, contextLength: 128 },
    positionNll: () => {
      throw new Error("not used");
    },
    logProbs: (input) => {
      const out = new Float32Array(input.ids.length * V).fill(Math.log(1e-9));
      for (let i = 0; i < input.ids.length; i++) {
        const ctx = input.ids.slice(0, i + 1);
        const d = train.find((x) => x.ids.length > i + 1 && ctx.every((t, j) => x.ids[j] === t));
        out[i * V + (d ? d.ids[i + 1] : tokenizer.eos)] = 0;
      }
      return out;
    },
    stateFingerprint: () => "fixed",
  };

  it("verbatim recall skips documents too short to leave a continuation and counts them, so memorization shows on train", () => {
    const p = verbatimProbe(memorizer, tokenizer, train, held, { promptTokens: 6, continueTokens: 10, prompts: 8 });
    expect([p.train_prompts.prompts, p.train_prompts.skipped_too_short]).toEqual([1, 1]);
    expect([p.held_out_prompts.prompts, p.held_out_prompts.skipped_too_short]).toEqual([1, 1]);
    expect(p.train_prompts.mean_longest_match).toBe(10); // the memorized next 10 characters, verbatim
    expect(p.held_out_prompts.mean_longest_match).toBe(0); // the memorizer knows nothing after a held-out prompt
    const none = verbatimProbe(memorizer, tokenizer, [train[1]], [held[1]], { promptTokens: 6, continueTokens: 10, prompts: 8 });
    expect(none.train_prompts).toMatchObject({ prompts: 0, skipped_too_short: 1, mean_longest_match: null, max_longest_match: null });
    expect(none.train_prompts.mean_longest_match_reason).toBe(
      "all 1 train documents have ≤ 6 content tokens: a 6-token prompt leaves no continuation",
    );
  });

  it("generation skips them too and says how many; with no sample left every quantity is null with a reason", () => {
    const s = { ...GENERATION_DEFAULTS, prompts: 8, promptTokens: 6, maxTokens: 4, samplesPerPrompt: 1 };
    const g = sampleGeneration(memorizer, tokenizer, held, s, Rng.fromSeed(1), () => {});
    expect(g.samples.map((x) => x.doc)).toEqual(["v-long"]);
    expect(g.prompt_documents_skipped_too_short).toBe(1);
    const none = sampleGeneration(memorizer, tokenizer, [held[1]], s, Rng.fromSeed(1), () => {});
    expect(none.samples).toEqual([]);
    // the report's reason for an empty set of samples (report/generation.ts noSamples), passed through to every quantity
    const why = "no samples: all 1 prompt documents have ≤ 6 content tokens: a 6-token prompt leaves no continuation";
    const overlap = sampleOverlap([], train, tokenizer, s.overlapOrders, why),
      diversity = sampleDiversity([], why);
    expect(overlap.orders.every((o) => o.mean_overlap === null && o.mean_overlap_reason === why)).toBe(true);
    expect([diversity.distinct_1, diversity.unique_sequence_ratio, diversity.mean_pairwise_jaccard_2]).toEqual([null, null, null]);
  });
});
