// The composed report: every namespace present and kept apart, strides beside the numbers, counts that add
// up, an HTML page with the three SVG figures, progress on the given stream, and no tensor leaks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allBaselines } from "../../../src/baselines/ngram.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { buildReport } from "../../../src/eval/report/build.ts";
import type { Report } from "../../../src/eval/report/types.ts";
import { HEADLINE_COLUMNS, reportHtml } from "../../../src/eval/render/report_page.ts";
import { reportCard } from "../../../src/eval/render/report_card.ts";
import type { GPT } from "../../../src/model/gpt.ts";
import { encodeDocument } from "../../../src/data/documents.ts";
import { tinyData, tinyDecoder } from "../tiny_model.ts";
import { leakedBy, useBackend } from "../../helpers.ts";

describe("buildReport on a briefly trained decoder", () => {
  let model: GPT;
  let report: Report;
  let leaked = NaN;
  const lines: string[] = [];
  const { tokenizer, docs } = tinyData();
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(15);
    const adapter = decoderAdapter(model, { name: "tiny" });
    const opts = {
      baselines: allBaselines(
        docs.filter((d) => d.split === "train"),
        adapter.binding,
      ),
      stride: 4,
      seed: 3,
      replicates: 200,
      finalTest: true, // this suite reads every split, the test one included
      generation: { prompts: 3, maxTokens: 12, samplesPerPrompt: 2 },
      verbatim: { prompts: 2, promptTokens: 6, continueTokens: 10 },
      canary: { text: "the cat sat.", secretTokens: 3 },
      progress: { write: (s: string) => lines.push(s), isTTY: false, quietMs: 0 }, // no quiet time: a quick build still shows its bar
    };
    buildReport(adapter, tokenizer, docs, { ...opts, progress: undefined }); // warm-up: kernels created once are not leaks
    leaked = leakedBy(() => {
      report = buildReport(adapter, tokenizer, docs, opts);
    });
  });
  afterAll(() => model.dispose());

  it("has every namespace, each with its own units", () => {
    for (const k of [
      "data",
      "perplexity",
      "bits_per_byte",
      "loss_by_position",
      "calibration",
      "generation",
      "overlap",
      "diversity",
      "memorization",
      "contamination",
      "baselines",
      "identities",
      "provenance",
    ])
      expect(report).toHaveProperty(k);
    expect(report).not.toHaveProperty("intervals"); // each metric carries its own, from its declared aggregation
    // one identity per evaluator that names a pass, in REPORT_EVALUATORS's order
    expect(Object.keys(report.identities.evaluators)).toEqual([
      "perplexity",
      "bits_per_byte",
      "loss_by_position",
      "calibration",
      "generation",
      "verbatim",
      "contamination",
      "canary",
      "baselines",
    ]);
    for (const e of Object.values(report.identities.evaluators)) expect(e.id).toMatch(/^eval-[0-9a-f]{16}$/);
    expect(report.identities.model).toEqual({ name: "tiny", path: null, sha256: null });
  });

  it("groups by (split, source) with counts that add up to every target once, stride beside each number", () => {
    const groups = report.perplexity.groups;
    expect(groups.map((g) => `${g.split}/${g.source}`)).toEqual([
      "train/animals",
      "train/code",
      "validation/animals",
      "validation/code",
      "test/quotes",
      "train/(all sources)",
      "validation/(all sources)",
    ]);
    const perSource = groups.filter((g) => g.source !== "(all sources)");
    expect(perSource.reduce((n, g) => n + g.targets, 0)).toBe(docs.reduce((n, d) => n + d.ids.length - 1, 0));
    // each merged group holds exactly its split's per-source sums (token-weighted, never a mean of means)
    for (const split of ["train", "validation"]) {
      const all = groups.find((g) => g.split === split && g.source === "(all sources)")!;
      const parts = perSource.filter((g) => g.split === split);
      expect(all.targets).toBe(parts.reduce((n, g) => n + g.targets, 0));
      expect(all.total_nll).toBeCloseTo(
        parts.reduce((n, g) => n + g.total_nll, 0),
        9,
      );
    }
    for (const g of groups) {
      expect(g.stride).toBe(4);
      expect(g.perplexity).toBeCloseTo(Math.exp(g.nll), 9);
    }
    expect(report.loss_by_position.stride).toBe(8);
    const quotes = report.bits_per_byte.groups.find((g) => g.source === "quotes")!;
    expect(quotes.bytes).toBe(new TextEncoder().encode("“the cat” — sat").length);
    expect(quotes.chars).toBe(Array.from("“the cat” — sat").length);
    expect(quotes.bits_per_byte).toBeLessThan(quotes.bits_per_char!);
  });

  it("keeps calibration, intervals and memorization separate and well-formed", () => {
    for (const c of report.calibration.by_split) {
      expect(c.stride).toBe(4);
      expect(c.report.bins.reduce((n, b) => n + b.count, 0)).toBe(c.accuracy.predictions);
    }
    // each group here has fewer than MIN_INTERVAL_DOCUMENTS documents: the estimate alone, null with the reason
    const few = /^n too small for an interval: \d documents?, fewer than 10 \(MIN_INTERVAL_DOCUMENTS\)$|^one window/;
    for (const g of [...report.perplexity.groups, ...report.bits_per_byte.groups]) {
      expect(g.block_bootstrap_95).toBeNull();
      expect(g.block_bootstrap_95_reason).toMatch(few);
    }
    for (const c of report.calibration.by_split) {
      expect(c.accuracy.wilson95).toBeNull();
      expect(c.accuracy.wilson95_reason).toMatch(few);
      expect(c.accuracy.rate).toBe(c.accuracy.correct / c.accuracy.predictions);
    }
    expect(report.overlap.orders.map((o) => o.n)).toEqual([1, 2, 3, 4]);
    // 3 held-out prompts × 2 samples, less v-code: its 14 characters leave no continuation after a 16-token prompt
    expect(report.diversity.samples).toBe(4);
    expect(report.generation.prompt_documents_skipped_too_short).toBe(1);
    const canary = report.memorization.canary;
    expect("evaluated" in canary && canary.occurrences_in_training_documents_given).toBe(1); // "the cat sat." ends t-cat once
    expect("train_prompts" in report.memorization.verbatim).toBe(true);
    expect("groups" in report.baselines && report.baselines.groups.length).toBe(4 * 7); // 4 baselines × (5 groups + 2 merged)
  });

  it("renders an HTML page with the reliability diagram (with diagonal), loss by position and per-source bars", () => {
    const html = reportHtml(report);
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect((html.match(/<svg/g) ?? []).length).toBe(2 + report.calibration.by_split.length);
    // the headline comes first, identities and provenance last
    expect(html.indexOf('id="headline"')).toBeLessThan(html.indexOf("<svg"));
    expect(html.indexOf("<h2>Provenance")).toBeGreaterThan(html.indexOf("<h2>Identities"));
    expect(html).not.toContain("<pre>");
    expect(html).toContain('class="diagonal"');
    expect(html).toContain("Loss by position");
    expect(html).toContain("Model NLL per split and source (stride 4)");
  });

  it("writes a report card: provenance with the git state, the headline with every baseline, linked figures, evaluator ids", () => {
    const md = reportCard(report, {
      git: { commit: "abc123", dirty: true },
      figures: [{ file: "figures/loss_by_position.svg", title: "Loss by position" }],
    });
    expect(md).toContain("| git commit | abc123 (dirty: uncommitted changes in the checkout) |");
    expect(reportCard(report, { git: null, figures: [] })).toContain("| git commit | not run from a git checkout |");
    expect(md).toContain("[![Loss by position](figures/loss_by_position.svg)](figures/loss_by_position.svg)");
    for (const e of Object.values(report.identities.evaluators)) expect(md).toContain(e.id);
    const headline = md.split("## Headline")[1].split("\n\n")[1].split("\n");
    // header, rule, then per group the model and each of the 4 baselines: 7 groups × 5 rows
    expect(headline.length).toBe(2 + 7 * 5);
    for (const line of headline) expect(line.split(/(?<!\\)\|/).length).toBe(HEADLINE_COLUMNS.length + 2);
    // exactly one bold scorer per group: the lowest NLL
    expect(headline.filter((l) => /^ \*\*/.test(l.split("|")[3])).length).toBe(7);
    for (const [split, h] of Object.entries(report.data.split_sha256)) expect(md).toContain(`| ${split} split sha256 | ${h} |`);
  });

  it("shows source and file names in the card as text: no raw HTML, no link", () => {
    const payload = "<img src=x onerror=alert(1)>[x](javascript:alert(2))";
    const forged = JSON.parse(JSON.stringify(report).replaceAll('"quotes"', JSON.stringify(payload))) as typeof report;
    (forged.identities.model as { path: string }).path = payload;
    const card = reportCard(forged, { git: null, figures: [{ file: "f.svg", title: payload }] });
    expect(card).not.toContain("<img");
    expect(card).not.toContain("[x]");
    expect(card).toContain("&lt;img src=x onerror=alert(1)&gt;\\[x\\](javascript:alert(2))");
    expect((card.match(/&lt;img/g) ?? []).length).toBeGreaterThan(3); // the title, the provenance, the figure and the headline's rows
  });

  it("writes progress to the given stream and leaks no tensors", () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[lines.length - 1]).toMatch(/^report .*elapsed/);
    expect(leaked).toBe(0);
  });
});

describe("calibration sharing the stride-T pass", () => {
  beforeAll(() => useBackend("cpu"));
  it("gives the same calibration as a separate next-token pass at that stride, and the same loss by position", async () => {
    const { nextTokenCalibration, nextTokenPredictions } = await import("../../../src/eval/passes/next_token.ts");
    const { tokenizer, docs } = tinyData();
    const model = tinyDecoder(10);
    const adapter = decoderAdapter(model, { name: "tiny" });
    const small = {
      baselines: allBaselines(
        docs.filter((d) => d.split === "train"),
        adapter.binding,
      ),
      generation: { prompts: 1, maxTokens: 2, samplesPerPrompt: 1 },
      verbatim: { prompts: 1, promptTokens: 4, continueTokens: 2 },
      replicates: 20,
    };
    const T = adapter.binding.contextLength;
    const shared = buildReport(adapter, tokenizer, docs, { ...small, stride: 4, calibrationStride: T });
    const separate = buildReport(adapter, tokenizer, docs, { ...small, stride: T }); // loss by position from its own pass
    for (const c of shared.calibration.by_split) {
      const direct = nextTokenCalibration(
        nextTokenPredictions(
          adapter,
          docs.filter((d) => d.split === c.split),
          T,
        ),
        { bins: 10 },
      );
      expect(c.accuracy).toMatchObject(direct.accuracy); // plus its Wilson interval (or why none)
      expect(c.report.ece).toBeCloseTo(direct.report.ece!, 12);
      expect(c.stride).toBe(T);
    }
    // NLL read off log-softmax vs logsumexp: float32 rounding only
    shared.loss_by_position.by_split.forEach((s, i) =>
      s.positions.forEach((p, j) => expect(Math.abs(p.nll - separate.loss_by_position.by_split[i].positions[j].nll)).toBeLessThan(1e-5)),
    );
    model.dispose();
  });
});

describe("the contamination namespace", () => {
  let model: GPT;
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(2);
  });
  afterAll(() => model.dispose());

  it("flags a held-out document sharing a word 13-gram with training, and rescores without it from the same windows", () => {
    const { tokenizer } = tinyData();
    const long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    const docs = [
      { id: "t-long", split: "train" as const, source: "s", text: `Start. ${long}.` },
      { id: "v-copy", split: "validation" as const, source: "s", text: `${long.toUpperCase()} and more` }, // case folds: shares 13-grams
      {
        id: "v-new",
        split: "validation" as const,
        source: "s",
        text: "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu",
      },
      { id: "v-short", split: "validation" as const, source: "s", text: "too short" },
    ].map((d) => encodeDocument(tokenizer, d));
    const adapter = decoderAdapter(model, { name: "tiny" });
    const r = buildReport(adapter, tokenizer, docs, {
      baselines: allBaselines(
        docs.filter((d) => d.split === "train"),
        adapter.binding,
      ),
      stride: 4,
      replicates: 20,
      generation: { prompts: 1, maxTokens: 2, samplesPerPrompt: 1 },
      verbatim: { prompts: 1, promptTokens: 4, continueTokens: 2 },
    });
    const c = r.contamination;
    if (!("splits" in c)) throw new Error(`expected an audit, got: ${c.status}`);
    expect(c.splits.map((s) => s.split)).toEqual(["validation"]); // train is the reference, never audited against itself
    const v = c.splits[0];
    expect(v).toMatchObject({ documents: 3, flagged: ["v-copy"], unauditable: 1 });
    const group = r.perplexity.groups.find((g) => g.split === "validation" && g.source === "s")!;
    expect(v.all_documents.targets).toBe(group.targets);
    expect(v.all_documents.nll).toBeCloseTo(group.nll, 12);
    const copyTargets = docs.find((d) => d.id === "v-copy")!.ids.length - 1;
    expect(v.unflagged_documents.targets).toBe(group.targets - copyTargets);
    expect(reportHtml(r)).toContain("v-copy");
  });

  it("never reads the test split without finalTest: not scored, not a prompt, and refused if asked for", () => {
    const { tokenizer, docs } = tinyData();
    const adapter = decoderAdapter(model, { name: "tiny" });
    const small = {
      baselines: [],
      stride: 4,
      replicates: 20,
      generation: { prompts: 8, maxTokens: 2, samplesPerPrompt: 1 },
      verbatim: { prompts: 8, promptTokens: 4, continueTokens: 2 },
    };
    const r = buildReport(adapter, tokenizer, docs, small);
    expect(r.final_test).toBe(false);
    expect(r.perplexity.groups.some((g) => g.split === "test")).toBe(false);
    expect(r.calibration.by_split.map((c) => c.split)).toEqual(["train", "validation"]);
    expect(r.generation.samples.some((x) => x.doc === "x-dash")).toBe(false);
    expect(r.test_split).toMatch(/^not scored: 1 test documents/);
    expect(() => buildReport(adapter, tokenizer, docs, { ...small, scoreSplits: ["validation", "test"] })).toThrow(
      /test split is scored only in a final report/,
    );
  });

  it("says why when there are no training documents", () => {
    const { tokenizer, docs } = tinyData();
    const r = buildReport(
      decoderAdapter(model, { name: "tiny" }),
      tokenizer,
      docs.filter((d) => d.split !== "train"),
      { baselines: [], stride: 4, replicates: 20, generation: { prompts: 1, maxTokens: 2, samplesPerPrompt: 1 } },
    );
    expect(r.contamination).toEqual({ status: "not run: no training documents to audit against" });
  });
});
