// Verbatim-recall probe (after 004): greedy-continue prompts taken from training and from held-out documents
// and find the longest piece of each continuation that occurs verbatim in the training text. Long matches on
// training prompts only suggest recall; equal lengths for both put matches at the level of common phrases.
import type { Document } from "../../data/documents.ts";
import type { AnyTokenizer } from "../../data/tokenizer.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { generate } from "./generate.ts";
import { reasoned } from "../metrics/reasoned.ts";

/**
 * Longest run of consecutive characters (Unicode code points) of `candidate` found inside one training
 * text; matches never span two texts. Returns its length and the matched string.
 */
export function longestVerbatimMatch(candidate: string, trainingTexts: readonly string[]): { length: number; match: string } {
  const chars = Array.from(candidate);
  let best = "";
  for (let i = 0; i < chars.length; i++) {
    // only a run longer than the best so far can change the answer
    for (let len = best.length > 0 ? Array.from(best).length + 1 : 1; i + len <= chars.length; len++) {
      const piece = chars.slice(i, i + len).join("");
      if (!trainingTexts.some((t) => t.includes(piece))) break;
      best = piece;
    }
  }
  return { length: Array.from(best).length, match: best };
}

export interface VerbatimSettings {
  /** Content tokens after BOS taken as the prompt (fewer when a document is shorter). */
  readonly promptTokens: number;
  readonly continueTokens: number;
  /** Documents per side (train, held-out), taken in order. */
  readonly prompts: number;
}

export const VERBATIM_DEFAULTS: VerbatimSettings = { promptTokens: 24, continueTokens: 30, prompts: 8 };

/** Prompt of a document: BOS plus up to n content tokens, always leaving at least one token unshown. */
export function promptOf(doc: Document, n: number): number[] {
  return doc.ids.slice(0, Math.max(1, Math.min(1 + n, doc.ids.length - 1)));
}

/** Content tokens of a document: its ids without a leading BOS and a final EOS. */
export function contentLength(doc: Document, tokenizer: Pick<AnyTokenizer, "bos" | "eos">): number {
  const start = doc.ids[0] === tokenizer.bos ? 1 : 0;
  const end = doc.ids.length > start && doc.ids[doc.ids.length - 1] === tokenizer.eos ? doc.ids.length - 1 : doc.ids.length;
  return end - start;
}

/**
 * Documents that leave a continuation after an n-token prompt (more than n content tokens), and how many do not.
 * A shorter one would become its own prompt whole, so its "continuation" is only what follows the document's end:
 * a memorized document would then score no recall, inverting the probe's signal. Those are skipped and counted.
 */
export function promptable(
  docs: readonly Document[],
  n: number,
  tokenizer: Pick<AnyTokenizer, "bos" | "eos">,
): { docs: Document[]; skipped: number } {
  const ok = docs.filter((d) => contentLength(d, tokenizer) > n);
  return { docs: ok, skipped: docs.length - ok.length };
}

/** Why a probe over `docs` has nothing to average: no documents, or all too short for the prompt. */
export function noPromptReason(total: number, promptTokens: number, what: string): string {
  return total === 0
    ? `no ${what} documents`
    : `all ${total} ${what} documents have ≤ ${promptTokens} content tokens: a ${promptTokens}-token prompt leaves no continuation`;
}

export interface VerbatimRow {
  readonly doc: string;
  readonly split: string;
  readonly prompt: string;
  readonly continuation: string;
  readonly longest_match: number;
  readonly match: string;
}

/** Greedy continuations of training and held-out prompts with their longest verbatim match against training text. */
export function verbatimProbe(
  model: ScoringModel,
  tokenizer: AnyTokenizer,
  train: readonly Document[],
  heldOut: readonly Document[],
  settings: VerbatimSettings = VERBATIM_DEFAULTS,
  onRow?: () => void,
) {
  const trainingTexts = train.map((d) => tokenizer.decode(d.ids));
  const rows = (docs: readonly Document[]): VerbatimRow[] =>
    promptable(docs, settings.promptTokens, tokenizer)
      .docs.slice(0, settings.prompts)
      .map((d) => {
        const prompt = promptOf(d, settings.promptTokens);
        const { tokens } = generate(model, prompt, {
          maxTokens: settings.continueTokens,
          decoding: { kind: "greedy" },
          stopToken: tokenizer.eos,
        });
        const continuation = tokenizer.decode(tokens);
        const m = longestVerbatimMatch(continuation, trainingTexts);
        onRow?.();
        return { doc: d.id, split: d.split, prompt: tokenizer.decode(prompt), continuation, longest_match: m.length, match: m.match };
      });
  const side = (docs: readonly Document[], what: string) => {
    const r = rows(docs);
    const why = noPromptReason(docs.length, settings.promptTokens, what);
    return {
      prompts: r.length,
      skipped_too_short: promptable(docs, settings.promptTokens, tokenizer).skipped,
      ...reasoned("mean_longest_match", r.length === 0 ? NaN : r.reduce((s, x) => s + x.longest_match, 0) / r.length, why),
      ...reasoned("max_longest_match", r.length === 0 ? NaN : Math.max(...r.map((x) => x.longest_match)), why),
      rows: r,
    };
  };
  return {
    unit: "characters (Unicode code points)",
    settings,
    train_prompts: side(train, "train"),
    held_out_prompts: side(heldOut, "held-out"),
  };
}
