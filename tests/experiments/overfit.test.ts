// The overfitting experiment end to end (short and full), its determinism, and option checks.
import { describe, expect, it, beforeAll } from "vitest";
import { runOverfit, checkOverfitOptions, OVERFIT_DEFAULTS } from "../../experiments/overfit.ts";
import { formatOverfit } from "../../src/cli/views/overfit.ts";
import { overfitFigure } from "../../experiments/overfit/figure.ts";
import { useBackend } from "../helpers.ts";

const withoutDate = (r: ReturnType<typeof runOverfit>) => JSON.stringify({ ...r, provenance: { ...r.provenance, date: undefined } });

describe("overfit experiment", () => {
  beforeAll(() => useBackend("wasm"));

  it("default run: every checkpoint scored on 9 + 9 targets, intervals marked, layouts agree, deterministic JSON", async () => {
    const a = runOverfit();
    expect(a.runs.map((r) => r.seed)).toEqual([39, 40, 41]);
    for (const run of a.runs) {
      expect(run.checkpoints.map((c) => c.update)).toEqual([0, 10, 20, 40, 80]);
      for (const c of run.checkpoints) expect([c.train.targets, c.validation.targets]).toEqual([9, 9]);
      expect(run.intervals.map((i) => `${i.from}-${i.to}`)).toEqual(["20-40", "40-80"]);
      // the flag is exactly the conjunction of the two measured directions
      for (const i of run.intervals) expect(i.overfitting_signal).toBe(i.train_fell && i.validation_rose);
      // initial loss is near uniform (std 0.02 init): within 0.1 nats of ln 266
      expect(Math.abs(run.checkpoints[0].validation.nll - Math.log(266))).toBeLessThan(0.1);
      expect(run.checkpoints[4].train.nll).toBeLessThan(run.checkpoints[0].train.nll);
    }
    expect(a.layout_comparison.rows.map((r) => [r.layout, r.batches, r.rows, r.targets])).toEqual([
      ["separate", 2, 2, 9],
      ["padded", 1, 2, 9],
      ["packed", 1, 2, 9],
    ]);
    expect(a.layout_comparison.largest_nll_difference).toBeLessThan(1e-6);
    expect(a.final_validation_seed_summary.count).toBe(3);
    // the published finals (README) are untouched by the per-document scoring the Multi-Bootstrap adds
    expect(a.runs.map((r) => r.checkpoints[4].validation.nll.toFixed(6))).toEqual(["4.364098", "4.621237", "4.733466"]);
    // Multi-Bootstrap at every checkpoint: its estimate is the seeds' mean validation NLL (equal targets per seed)
    const m = a.multi_bootstrap;
    expect([m.seeds, m.documents, m.replicates]).toEqual([3, 2, 2000]);
    expect(m.checkpoints.map((c) => c.update)).toEqual([0, 10, 20, 40, 80]);
    for (const c of m.checkpoints) {
      const mean = a.runs.reduce((s, r) => s + r.checkpoints.find((k) => k.update === c.update)!.validation.nll, 0) / 3;
      expect(c.both.estimate).toBeCloseTo(mean, 9);
      // 2 validation documents, fewer than MIN_INTERVAL_DOCUMENTS: each resampling gives the estimate alone, and why
      // (the bounds themselves are tested on a larger arm in tests/eval/metrics/multi_bootstrap.test.ts)
      for (const iv of [c.both, c.seeds_only, c.documents_only]) {
        expect(iv).toMatchObject({
          lo: null,
          hi: null,
          se: null,
          interval_reason: "n too small for an interval: 2 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)",
        });
        expect(iv.estimate).toBe(c.both.estimate);
      }
    }
    expect(a.final_validation_seed_summary.mean).toBeCloseTo(m.checkpoints[4].both.estimate, 9);
    expect(a.provenance.backend).toBe("wasm");
    const b = runOverfit();
    expect(withoutDate(b)).toBe(withoutDate(a));
    const table = formatOverfit(a);
    expect(table).toContain("correct merged mean 0.924196 nats, perplexity 2.519842 over 6 targets");
    expect(table).toMatch(/^ {2}bigram \(add-1\) +4\.402665 +81\.668227 +5\.044970 +155\.239620 +9\/9$/m);
    expect(table).toMatch(/Multi-Bootstrap of validation NLL over 3 seeds × 2 documents/);
    expect(table.match(/^ +(0|10|20|40|80) +\d\.\d{6} +n\/a \(n too small for an interval\)$/gm)).toHaveLength(5);
    expect(table).toContain("  n/a interval: n too small for an interval: 2 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)");
    expect(table).toContain("Only 2 validation documents");
    const svg = overfitFigure({ ...a, targets: a.data.targets });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("seed 41, validation");
    expect(svg).toContain("Overfitting: training NLL falls while validation NLL rises after update 20 (3 of 3 seeds)");
  });

  it("refuses bad options with a named error", () => {
    expect(() => checkOverfitOptions({ ...OVERFIT_DEFAULTS, checkpoints: [0, 90] })).toThrow(/checkpoint 90 is outside \[0, 80\]/);
    expect(() => checkOverfitOptions({ ...OVERFIT_DEFAULTS, seeds: [] })).toThrow(/at least one seed/);
    expect(() => checkOverfitOptions({ ...OVERFIT_DEFAULTS, updates: 0 })).toThrow(/updates must be a positive integer/);
    expect(() => checkOverfitOptions({ ...OVERFIT_DEFAULTS, lr: -1 })).toThrow("--lr must be a finite number > 0, got -1"); // the command line's words
    expect(() => checkOverfitOptions({ ...OVERFIT_DEFAULTS, replicates: 1 })).toThrow(/--replicates must be an integer ≥ 2/);
  });
});
