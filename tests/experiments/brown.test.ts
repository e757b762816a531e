// The Brown pipeline end to end on a small slice: split manifest, BPE, training with saved state, resume,
// harness evaluation. Asserts contracts (orderings, each target once, resume), not this machine's digits.
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveModelConfig } from "../../src/model/config.ts";
import { BROWN_DEFAULTS, CURVE_NOTE, runBrown, type BrownOptions, type BrownResult } from "../../experiments/brown.ts";
import { formatBrown } from "../../src/cli/views/brown.ts";
import { brownPageHtml } from "../../experiments/brown_page.ts";
import { ALL_SOURCES } from "../../src/eval/passes/grouped.ts";
import { useBackend } from "../helpers.ts";
import { checkLoadedCheckpoint, MARGIN_THRESHOLD } from "./brown_checkpoint.ts";
import { baselineBar } from "../../experiments/brown/readings.ts";
import type { Report } from "../../src/eval/report/types.ts";
import { workersFor } from "../../src/train/pool.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-brown-"));
const slice: Partial<BrownOptions> = {
  slice: { filesPerGenre: 3, chars: 2000 },
  vocab: 300,
  updates: 60,
  evalEvery: 20,
  saveEvery: 20,
  warmup: 5,
  model: resolveModelConfig({ vocabSize: 300, contextLength: 32, nLayers: 1, dModel: 32, nHeads: 2, dFF: 64 }),
  canary: { ...BROWN_DEFAULTS.canary, repetitions: 3 },
};

describe("the Brown bar (004): model < bigram − 0.3 < unigram − 1.0 < uniform, every link", () => {
  // a report reduced to what baselineBar reads: validation, all sources, one row per model and baseline
  const fake = (model: number, prior: number, unigram: number, uniform: number) => {
    const row = (nll: number, baseline?: string) => ({ split: "validation", source: ALL_SOURCES, nll, ...(baseline ? { baseline } : {}) });
    return {
      perplexity: { stride: 64, groups: [row(model)] },
      baselines: {
        groups: [
          row(uniform, "uniform"),
          row(unigram, "unigram (add-one)"),
          row(prior + 0.02, "bigram (add-1)"),
          row(prior, "unigram-prior bigram (k=1)"),
        ],
      },
    } as unknown as Report;
  };
  it("is met only when all three links hold, and the summary names the failing one", () => {
    // 004's numbers: model 2.946, unigram-prior bigram 3.67, unigram 5.22, uniform ln 512 = 6.238
    const met = baselineBar(fake(2.946, 3.67, 5.22, Math.log(512)));
    expect(met.full_order).toMatchObject({
      met: true,
      model_below_prior_bigram_minus_0_3: true,
      prior_bigram_minus_0_3_below_unigram_minus_1: true,
      unigram_minus_1_below_uniform: true,
    });
    // the README's default run: the model link fails, the rest hold
    const brown = baselineBar(fake(3.9251, 3.8444, 5.2808, 6.2383));
    expect(brown.full_order).toMatchObject({
      met: false,
      model_below_prior_bigram_minus_0_3: false,
      prior_bigram_minus_0_3_below_unigram_minus_1: true,
    });
    // a unigram more than a nat worse than uniform (a broken count table) breaks the last link even with a strong model
    expect(baselineBar(fake(1.0, 3.0, 7.5, 6.2)).full_order).toMatchObject({
      met: false,
      model_below_prior_bigram_minus_0_3: true,
      unigram_minus_1_below_uniform: false,
    });
    // and a bigram above unigram − 1.0 + 0.3 breaks the middle one
    expect(baselineBar(fake(1.0, 5.0, 5.5, 6.2)).full_order).toMatchObject({
      met: false,
      prior_bigram_minus_0_3_below_unigram_minus_1: false,
    });
  });
});

describe("the Brown default recipe", () => {
  it("trains on the pool: on 2 cores its auto worker count is 2, since its 8 rows are 2 microbatches", () => {
    expect(BROWN_DEFAULTS.batchRows % BROWN_DEFAULTS.microbatches).toBe(0);
    expect(workersFor(undefined, 2, BROWN_DEFAULTS.microbatches, BROWN_DEFAULTS.model)).toBe(2);
    // with one microbatch it would not: the pool is capped by the microbatches of an update
    expect(workersFor(undefined, 2, 1, BROWN_DEFAULTS.model)).toBe(1);
  });
});

describe("brown lab on a slice", () => {
  beforeAll(() => useBackend("wasm"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let result: BrownResult;

  it("runs end to end: baselines ordered bigram < unigram < uniform, the model below uniform, every target scored once", async () => {
    const r = await runBrown({ ...BROWN_DEFAULTS, ...slice, out: join(dir, "a") });
    if ("stopped" in r) throw new Error("did not finish");
    result = r;
    const b = result.bar;
    expect(b.bigram_below_unigram_below_uniform).toBe(true);
    expect(b.unigram_prior_bigram).toBeLessThan(b.unigram);
    expect(b.model).toBeLessThan(b.uniform);
    expect(Math.abs(b.uniform - Math.log(300))).toBeLessThan(1e-9);
    // each validation target exactly once at both strides: the merged groups hold all targets of the split
    const targets = result.data.tokens.validation;
    const at = (groups: readonly { split: string; source: string; targets: number }[]) =>
      groups.find((g) => g.split === "validation" && g.source === ALL_SOURCES)!.targets;
    expect(at(result.report.perplexity.groups)).toBe(targets);
    expect(at(result.report.perplexity_at_stride_context!.groups)).toBe(targets);
    expect(result.report.perplexity.stride).toBe(16);
    // training reduced the loss and the test split was not touched
    const h = result.training.history.train;
    expect(h.length).toBe(60);
    expect(h[h.length - 1][1]).toBeLessThan(h[0][1]);
    expect(result.report.perplexity.groups.some((g) => g.split === "test")).toBe(false);
    expect(formatBrown(result)).not.toMatch(/FINAL REPORT/);
    // artefacts: auditable manifest, model, loss curve
    const manifest = JSON.parse(readFileSync(join(dir, "a", "manifest.json"), "utf8"));
    expect(manifest.documents.every((d: { sha256: string }) => /^[0-9a-f]{64}$/.test(d.sha256))).toBe(true);
    expect(existsSync(join(dir, "a", "model.safetensors"))).toBe(true);
    const svg = readFileSync(join(dir, "a", "loss_curve.svg"), "utf8");
    for (const label of ["validation", "unigram-prior bigram (k=1)", "train loss (raw)"]) expect(svg).toContain(label);
    // validation during training is the whole split, every target once (stride = context): at 20, 40, 60 and update 0
    const saved = JSON.parse(readFileSync(join(dir, "a", "history.json"), "utf8"));
    const scored = saved.entries.filter((e: { validation_nll: number | null }) => e.validation_nll !== null);
    expect(scored.map((e: { update: number }) => e.update)).toEqual([20, 40, 60]);
    expect(scored.every((e: { validation_targets: number }) => e.validation_targets === targets)).toBe(true);
    expect(result.training.history.validation.map(([s]) => s)).toEqual([0, 20, 40, 60]);
    // the page: headline, then the bar's verdict with its numbers and the loss curve, and genre × (model, baselines)
    const page = brownPageHtml(result, CURVE_NOTE);
    const pos = (s: string) => page.indexOf(s);
    expect(pos('id="headline"')).toBeGreaterThan(-1);
    expect(pos('id="bar-verdict"')).toBeGreaterThan(pos('id="headline"'));
    const m = b.margin_vs_unigram_prior_bigram;
    expect(page).toContain(
      `is ${b.full_order.met ? "met" : "NOT met"}: the model (${b.model.toFixed(4)}) is ${Math.abs(m).toFixed(4)} nats ${m >= 0 ? "below" : "above"} the unigram-prior bigram`,
    );
    expect(pos("Training and validation loss")).toBeGreaterThan(pos('id="bar-verdict"'));
    const bySource = page.split('id="by-source"')[1].split("</table>")[0];
    expect(bySource).toContain("<th>unigram-prior bigram (k=1)</th>");
    const genres = new Set(result.report.perplexity.groups.map((g) => `${g.split}/${g.source}`));
    expect((bySource.match(/<tr>/g) ?? []).length).toBe(1 + genres.size); // header + one row per split and genre
  });

  it("the saved slice checkpoint, loaded from disk: causality, same-seed sampling, margin-gated prediction", () => {
    const r = checkLoadedCheckpoint(join(dir, "a", "model.safetensors"));
    // a 60-update slice model has no firm opinion: the gate must hold the assertion back, and says so
    if (!r.asserted)
      console.info(
        `confident prediction not asserted on the slice model: margin ${r.margin.toFixed(3)} ≤ ${MARGIN_THRESHOLD} (top ${JSON.stringify(r.top)})`,
      );
  });

  it("an interrupted run resumes from its checkpoint to the same model bytes; changed options and a changed manifest are refused", async () => {
    const out = join(dir, "b");
    const stopped = await runBrown({ ...BROWN_DEFAULTS, ...slice, out, stopAt: 40 });
    expect(stopped).toEqual({ stopped: 40, state: join(out, "train_state.safetensors") });
    await expect(runBrown({ ...BROWN_DEFAULTS, ...slice, out, resume: true, lr: 1e-3 })).rejects.toThrow(
      /options\.schedule\.lr: saved 0\.003, this run 0\.001/,
    );
    const resumed = await runBrown({ ...BROWN_DEFAULTS, ...slice, out, resume: true });
    if ("stopped" in resumed) throw new Error("did not finish");
    expect(resumed.training.resumed_from).toBe(40);
    expect(resumed.model_sha256).toBe(result.model_sha256); // same as the uninterrupted run above
    expect(resumed.training.history.train.map(([s]) => s)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const manifestPath = join(out, "manifest.json");
    const m = JSON.parse(readFileSync(manifestPath, "utf8"));
    m.documents[0].sha256 = "0".repeat(64);
    writeFileSync(manifestPath, JSON.stringify(m));
    await expect(runBrown({ ...BROWN_DEFAULTS, ...slice, out })).rejects.toThrow(/sha256/);
  });
});

/** The default run's checkpoint, when present (a long run to make: `npx tinylab brown`). */
const trained = process.env.TINYLAB_BROWN_MODEL ?? "results/brown/model.safetensors";
describe.skipIf(!existsSync(trained))(`trained Brown checkpoint at ${trained} (skipped when absent: run \`npx tinylab brown\`)`, () => {
  beforeAll(() => useBackend("wasm"));
  let r: ReturnType<typeof checkLoadedCheckpoint>;
  it("causality and same-seed sampling hold on the loaded weights", () => {
    r = checkLoadedCheckpoint(trained);
  });
  it(`"of the United" → " States" is asserted only when the greedy margin exceeds ${MARGIN_THRESHOLD}`, (ctx) => {
    if (!r) ctx.skip("the checkpoint checks above failed");
    if (!r.asserted)
      ctx.skip(
        `greedy margin ${r.margin.toFixed(3)} ≤ ${MARGIN_THRESHOLD} (top ${JSON.stringify(r.top)}): no confident prediction to assert`,
      );
    expect(r.asserted).toBe(true); // the assertion itself ran inside checkLoadedCheckpoint
  });
});
