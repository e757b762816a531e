// The report's declared evaluators: a metric added as one evaluator file and one line in the list is computed,
// recorded with its identity and shown by the page, the card and the console with no other change; the declared
// aggregations hold on the report's own numbers; an evaluator's check refuses before any pass runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allBaselines } from "../../../src/baselines/ngram.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { notShown, valueOf, type Evaluator } from "../../../src/eval/report/evaluator.ts";
import { ratioOfSums } from "../../../src/eval/metrics/aggregate.ts";
import { ALL_SOURCES } from "../../../src/eval/passes/grouped.ts";
import { buildReport } from "../../../src/eval/report/build.ts";
import type { Report } from "../../../src/eval/report/types.ts";
import { reportCard } from "../../../src/eval/render/report_card.ts";
import { REPORT_EVALUATORS } from "../../../src/eval/report/evaluators.ts";
import { reportHtml } from "../../../src/eval/render/report_page.ts";
import { formatReport } from "../../../src/cli/views/report.ts";
import type { GPT } from "../../../src/model/gpt.ts";
import type { ScoringModel } from "../../../src/model/scoring.ts";
import { useBackend } from "../../helpers.ts";
import { gapEvaluator } from "./gap_evaluator.ts";
import { tinyData, tinyDecoder } from "../tiny_model.ts";

const small = {
  stride: 4,
  replicates: 20,
  generation: { prompts: 1, maxTokens: 2, samplesPerPrompt: 1 },
  verbatim: { prompts: 1, promptTokens: 4, continueTokens: 2 },
};

describe("a metric added as one evaluator and one line in the list", () => {
  let model: GPT;
  let plain: Report;
  let extended: Report;
  const list = [...REPORT_EVALUATORS, gapEvaluator];
  const { tokenizer, docs } = tinyData();
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(2);
    const adapter = decoderAdapter(model, { name: "tiny" });
    const opts = {
      ...small,
      baselines: allBaselines(
        docs.filter((d) => d.split === "train"),
        adapter.binding,
      ),
    };
    plain = buildReport(adapter, tokenizer, docs, opts);
    extended = buildReport(adapter, tokenizer, docs, { ...opts, evaluators: list });
  });
  afterAll(() => model.dispose());

  it("is computed from the report's passes, recorded with its identity, and moves no other number", () => {
    const gap = valueOf(extended, gapEvaluator)!;
    const merged = (split: string) => extended.perplexity.groups.find((g) => g.split === split && g.source === ALL_SOURCES)!;
    expect(gap.train_nll).toBeCloseTo(merged("train").nll, 12);
    expect(gap.validation_nll).toBeCloseTo(merged("validation").nll, 12);
    expect(gap.gap).toBeCloseTo(merged("validation").nll - merged("train").nll, 12);
    expect(extended.identities.evaluators.generalization_gap).toMatchObject({
      name: "generalization-gap",
      version: 1,
      settings: { stride: 4 },
    });
    expect(extended.identities.evaluators.generalization_gap.id).toMatch(/^eval-[0-9a-f]{16}$/);
    expect(valueOf(plain, gapEvaluator)).toBeUndefined();
    const { generalization_gap: _, ...rest } = extended.identities.evaluators;
    const strip = (r: Report) => JSON.stringify({ ...r, identities: undefined, provenance: undefined, generalization_gap: undefined });
    expect(strip(extended)).toBe(strip(plain));
    expect(rest).toEqual(plain.identities.evaluators);
  });

  it("is shown by the page, the card and the console, each from its own renderer, in the list's place", () => {
    const html = reportHtml(extended, {}, list);
    expect(html).toContain("<h2>Generalization gap</h2>");
    expect(html.indexOf("<h2>Generalization gap")).toBeGreaterThan(html.indexOf("<h2>Count baselines"));
    expect(html.indexOf("<h2>Generalization gap")).toBeLessThan(html.indexOf("<h2>Identities"));
    expect(reportHtml(extended)).not.toContain("Generalization gap"); // the default list does not know it
    const card = reportCard(extended, { git: null, figures: [] }, list);
    const gap = valueOf(extended, gapEvaluator)!.gap;
    expect(card).toContain(`## Generalization gap\n\nvalidation − train NLL at stride 4: ${gap.toFixed(4)} nats per target\n`);
    expect(card.indexOf("## Generalization gap")).toBeGreaterThan(card.indexOf("## Headline"));
    expect(card.indexOf("## Generalization gap")).toBeLessThan(card.indexOf("## Figures"));
    expect(card).toContain("| generalization_gap | generalization-gap | 1 |");
    const lines = formatReport(extended, list).split("\n");
    const at = lines.findIndex((l) => l.startsWith("generalization gap (stride 4): validation "));
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.startsWith("canary: ")));
    expect(formatReport(extended)).toBe(formatReport(plain)); // the default list prints what it always did
  });

  it("leaves no key when it does not apply", () => {
    const adapter = decoderAdapter(model, { name: "tiny" });
    const r = buildReport(
      adapter,
      tokenizer,
      docs.filter((d) => d.split !== "validation"),
      { ...small, baselines: [], evaluators: list },
    );
    expect(valueOf(r, gapEvaluator)).toBeUndefined();
    expect(r.identities.evaluators).not.toHaveProperty("generalization_gap");
    expect(reportHtml(r, {}, list)).not.toContain("Generalization gap");
  });

  it("holds every declared ratio-of-sums over groups: a merged group is its parts' sums divided once", () => {
    let checked = 0,
      distinguished = 0;
    for (const e of REPORT_EVALUATORS) {
      const v = valueOf(extended, e) as { groups?: Record<string, unknown>[] } | undefined;
      if (e.aggregation.kind !== "ratio-of-sums" || !v || !Array.isArray(v.groups) || !(e.aggregation.numerator in v.groups[0])) continue;
      const { numerator, denominator } = e.aggregation;
      const rows = v.groups as Record<string, number | string>[];
      for (const all of rows.filter((g) => g.source === ALL_SOURCES)) {
        const parts = rows.filter((g) => g.split === all.split && g.source !== ALL_SOURCES && g.baseline === all.baseline);
        const pooled = ratioOfSums(parts.map((p) => ({ numerator: p[numerator] as number, denominator: p[denominator] as number })));
        expect(all.nll as number).toBeCloseTo(pooled, 12);
        // never the mean of the parts' means: where the parts' NLLs differ (the uniform baseline's do not), the
        // sources' unequal target counts set the two apart
        const nlls = parts.map((p) => p.nll as number);
        const meanOfMeans = nlls.reduce((s, x) => s + x, 0) / nlls.length;
        if (Math.max(...nlls) - Math.min(...nlls) > 1e-3) {
          expect(Math.abs(pooled - meanOfMeans)).toBeGreaterThan(1e-6);
          distinguished++;
        }
        checked++;
      }
    }
    expect(checked).toBe(2 + 2 + 2 * 4); // the model's two merged groups at stride 4 and at stride = context, and each of the 4 baselines'
    expect(distinguished).toBeGreaterThanOrEqual(2);
  });
});

describe("an evaluator's check", () => {
  it("refuses before any pass runs, with its own message", () => {
    const { tokenizer, docs } = tinyData();
    let calls = 0;
    const counting: ScoringModel = {
      name: "counting",
      binding: { vocabSize: 266, contextLength: 8 },
      stateFingerprint: () => "x",
      positionNll: () => {
        calls++;
        throw new Error("scored");
      },
      logProbs: () => {
        calls++;
        throw new Error("scored");
      },
    };
    const refusing: Evaluator<null> = {
      key: "never",
      id: "never",
      version: 1,
      aggregation: { kind: "per-item", item: "nothing" },
      check: () => {
        throw new Error("never: refused by its check");
      },
      compute: () => null,
      render: { html: notShown, markdown: notShown, console: notShown, figures: notShown },
    };
    expect(() => buildReport(counting, tokenizer, docs, { ...small, baselines: [], evaluators: [...REPORT_EVALUATORS, refusing] })).toThrow(
      "never: refused by its check",
    );
    expect(calls).toBe(0);
    // the report's own checks refuse the same way: a canary with no secret left, before any pass
    expect(() => buildReport(counting, tokenizer, docs, { ...small, baselines: [], canary: { text: "ab", secretTokens: 2 } })).toThrow(
      /canary secret must be 1 to 1 tokens, got 2/,
    );
    expect(calls).toBe(0);
  });
});
