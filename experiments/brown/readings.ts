// The Brown lab's readings of a trained model and its report: the bar of the reference text (model vs
// baselines), the next-token table and the validation contamination audit. Validation during training is src/lab/validated_training.ts's.
import type { Tokenizer } from "../../src/data/tokenizer.ts";
import type { ScoringModel } from "../../src/eval/passes/adapter.ts";
import type { Report } from "../../src/eval/report/types.ts";
import { nextLogProbs, greedyMargin } from "../../src/eval/passes/generate.ts";
import { ALL_SOURCES } from "../../src/eval/passes/grouped.ts";

/** Top-5 next tokens for a prompt (after BOS), with the greedy margin. */
export function nextTokenRow(model: ScoringModel, tokenizer: Tokenizer, prompt: string) {
  const ctx = [tokenizer.bos, ...tokenizer.encode(prompt)];
  const lp = nextLogProbs(model, ctx);
  const top = [...lp.keys()].sort((a, b) => lp[b] - lp[a] || a - b).slice(0, 5);
  const m = greedyMargin(model, ctx);
  return { prompt, top: top.map((id) => ({ token: tokenizer.decode([id]), id, p: Math.exp(lp[id]) })), greedy_margin: m };
}

/**
 * 004's bar on validation (all sources, headline stride), in full: model < bigram − 0.3 < unigram − 1.0 < uniform,
 * where 004's "bigram" is its unigram-prior bigram (the 3.67 beside the unigram's 5.22). Each link is reported on its own.
 */
export function baselineBar(report: Report) {
  const overall = (groups: readonly { split: string; source: string; nll: number }[]) =>
    groups.find((g) => g.split === "validation" && g.source === ALL_SOURCES) ?? groups.find((g) => g.split === "validation");
  const model = overall(report.perplexity.groups)!.nll;
  const base = "groups" in report.baselines ? report.baselines.groups : [];
  const of = (prefix: string) => overall(base.filter((g) => g.baseline.startsWith(prefix)))!.nll;
  const uniform = of("uniform"),
    unigram = of("unigram (add"),
    bigram = of("bigram (add"),
    prior = of("unigram-prior");
  return {
    stride: report.perplexity.stride,
    model,
    uniform,
    unigram,
    bigram_add_one: bigram,
    unigram_prior_bigram: prior,
    margin_vs_unigram_prior_bigram: prior - model,
    model_beats_prior_bigram_by_0_3: model < prior - 0.3,
    bigram_below_unigram_below_uniform: bigram < unigram && unigram < uniform,
    full_order: {
      statement: "model < unigram-prior bigram − 0.3 < unigram − 1.0 < uniform (004)",
      model_below_prior_bigram_minus_0_3: model < prior - 0.3,
      prior_bigram_minus_0_3_below_unigram_minus_1: prior - 0.3 < unigram - 1.0,
      unigram_minus_1_below_uniform: unigram - 1.0 < uniform,
      met: model < prior - 0.3 && prior - 0.3 < unigram - 1.0 && unigram - 1.0 < uniform,
    },
  };
}

/** The report's 13-gram audit of the validation split against train, in the shape brown.json has always had. */
export function validationContamination(report: Report) {
  const c = report.contamination;
  if (!("splits" in c)) throw new Error(`brown: the report has no contamination audit (${c.status})`);
  const v = c.splits.find((s) => s.split === "validation");
  if (!v) throw new Error("brown: the report's contamination audit has no validation split");
  return { n: c.n, flagged: v.flagged, flagged_fraction: v.flagged_fraction, unauditable: v.unauditable, items: v.documents };
}
