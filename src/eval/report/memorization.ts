// The report's memorization evaluators, the two fields of its `memorization` namespace: verbatim recall (the
// longest match of greedy continuations with training text, training prompts beside held-out ones) and the
// canary probe (log p(secret | prefix), greedy recovery, and the gain over a model fitted without the canary).
import type { Document } from "../../data/documents.ts";
import type { AnyTokenizer } from "../../data/tokenizer.ts";
import { flatEntries, htmlTable, keyValueTable } from "../../util/render/html.ts";
import { visibleText } from "../../util/render/text_view.ts";
import { notShown, type Evaluator, type ReportInputs } from "./evaluator.ts";
import { canaryProbe } from "../passes/memorization.ts";
import { REPORT_SETTING_DEFAULTS } from "./defaults.ts";
import { f4, fixed, para, shown } from "../render/format.ts";
import type { CanaryOptions, CanaryValue, VerbatimValue } from "./types.ts";
import { promptable, verbatimProbe } from "../passes/verbatim.ts";

const usable = (docs: readonly Document[], i: ReportInputs) =>
  Math.min(i.settings.verbatim.prompts, promptable(docs, i.settings.verbatim.promptTokens, i.tokenizer).docs.length);

export const verbatimEvaluator: Evaluator<VerbatimValue> = {
  key: "memorization.verbatim",
  id: "verbatim-recall",
  version: 1,
  aggregation: { kind: "mean-over-items", item: "prompt (the longest match of each, in characters)" },
  identity: { key: "verbatim", settings: (i) => ({ ...i.settings.verbatim }) },
  steps: (i) => (i.train.length > 0 ? usable(i.train, i) + usable(i.heldOut, i) : 0),
  compute: (ctx) =>
    ctx.train.length > 0
      ? verbatimProbe(ctx.model, ctx.tokenizer, ctx.train, ctx.heldOut, ctx.settings.verbatim, ctx.tick)
      : { status: "not run: no training documents to match against" },
  render: {
    html: (v) => {
      if (!("train_prompts" in v)) return [{ heading: "Memorization", html: para(v.status) }];
      const rows = [...v.train_prompts.rows, ...v.held_out_prompts.rows].map((x) => [
        x.split,
        x.doc,
        visibleText(x.prompt),
        visibleText(x.continuation),
        x.longest_match,
        visibleText(x.match),
      ]);
      // a side without prompts has no mean and no max: its reason instead (as on the console)
      const side = (s: typeof v.train_prompts) =>
        typeof s.mean_longest_match === "number"
          ? `mean ${fixed(s.mean_longest_match)} (max ${s.max_longest_match})`
          : shown(s, "mean_longest_match");
      return [
        {
          heading: "Memorization",
          html:
            para(
              `Longest verbatim match with training text, in ${v.unit}: training prompts ${side(v.train_prompts)}, held-out prompts ${side(v.held_out_prompts)}.`,
            ) + htmlTable(["split", "document", "prompt", "greedy continuation", "longest match", "match"], rows),
        },
      ];
    },
    markdown: notShown,
    figures: notShown,
    console: (v) => {
      if (!("train_prompts" in v)) return [];
      const t = v.train_prompts,
        h = v.held_out_prompts;
      if (t.prompts + h.prompts === 0) return [`verbatim recall: n/a (${t.mean_longest_match_reason}; ${h.mean_longest_match_reason})`];
      const skipped = t.skipped_too_short + h.skipped_too_short;
      return [
        `verbatim recall: longest match with training text in characters, mean ${shown(t, "mean_longest_match")} on ${t.prompts} train prompts vs ${shown(h, "mean_longest_match")} on ${h.prompts} held-out prompts` +
          (skipped > 0
            ? `; skipped, too short to leave a continuation: ${t.skipped_too_short} train, ${h.skipped_too_short} held-out documents`
            : ""),
      ];
    },
  },
};

type Canary = CanaryOptions;

/** BOS + all but the last k canary tokens, and those k tokens; refused before any work is done. */
function canaryParts(tokenizer: AnyTokenizer, c: Canary): { prefix: number[]; secret: number[] } {
  const k = c.secretTokens ?? REPORT_SETTING_DEFAULTS.secretTokens;
  const ids = tokenizer.encode(c.text);
  if (ids.length < 2) throw new Error(`canary "${c.text}" is ${ids.length} token(s); it needs a prefix and a secret`);
  if (!Number.isInteger(k) || k < 1 || k >= ids.length) throw new Error(`canary secret must be 1 to ${ids.length - 1} tokens, got ${k}`);
  return { prefix: [tokenizer.bos, ...ids.slice(0, -k)], secret: ids.slice(-k) };
}

function canarySection(model: ReportInputs["model"], tokenizer: AnyTokenizer, train: readonly Document[], c: Canary): CanaryValue {
  const { prefix, secret } = canaryParts(tokenizer, c);
  const occurrences = train.reduce((n, d) => n + tokenizer.decode(d.ids).split(c.text).length - 1, 0);
  const withModel = canaryProbe(model, prefix, secret);
  const without = c.without ? canaryProbe(c.without, prefix, secret) : null;
  return {
    text: c.text,
    prefix: tokenizer.decode(prefix),
    secret: tokenizer.decode(secret),
    occurrences_in_training_documents_given: occurrences,
    evaluated: withModel,
    without_canary: without,
    log_prob_gain: without ? withModel.log_prob - without.log_prob : null,
    note: without
      ? "gain = log p(secret | prefix) of the evaluated model minus that of the model fitted without the canary"
      : "no model fitted without the canary was given: a log-probability alone is not evidence of memorization",
  };
}

export const canaryEvaluator: Evaluator<CanaryValue> = {
  key: "memorization.canary",
  id: "canary-probe",
  version: 1,
  aggregation: { kind: "per-item", item: "canary" },
  identity: {
    key: "canary",
    settings: ({ settings: s }) => ({
      text: s.canary?.text ?? null,
      secret_tokens: s.canary?.secretTokens ?? REPORT_SETTING_DEFAULTS.secretTokens,
    }),
  },
  check: (i) => void (i.settings.canary && canaryParts(i.tokenizer, i.settings.canary)),
  compute: (ctx) =>
    ctx.settings.canary ? canarySection(ctx.model, ctx.tokenizer, ctx.train, ctx.settings.canary) : { status: "not run: no canary given" },
  render: {
    html: (c) => [
      { heading: "Memorization", html: "<h3>canary</h3>" + keyValueTable(flatEntries(c).map(([k, v]) => [k, visibleText(v)])) },
    ],
    markdown: notShown,
    figures: notShown,
    console: (c) => [
      "evaluated" in c
        ? `canary: log p(secret | prefix) ${f4(c.evaluated.log_prob)}, greedy recovery ${c.evaluated.recovered}${c.log_prob_gain !== null ? `, gain over model without it ${f4(c.log_prob_gain)}` : ""}`
        : `canary: ${c.status}`,
    ],
  },
};
