// Strided windows: every target scored exactly once at every stride and length, first window full, later
// windows scoring only their last s targets; windowed NLL agrees with the plain evaluator; strides never mix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GPT } from "../../../src/model/gpt.ts";
import type { Document } from "../../../src/data/documents.ts";
import { separateBatches } from "../../../src/data/batches.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../../src/eval/passes/likelihood.ts";
import { meanNll } from "../../../src/eval/metrics/summary.ts";
import { compareWindowed, evaluateWindows, formatWindowed } from "../../../src/eval/passes/windowed.ts";
import { documentWindows, windowBatches } from "../../../src/eval/passes/windows.ts";
import { tinyData, tinyDecoder } from "../tiny_model.ts";
import { leakedBy, useBackend } from "../../helpers.ts";

const doc = (n: number, id = `d${n}`): Document => ({
  id,
  split: "validation",
  source: "s",
  ids: Array.from({ length: n }, (_, i) => 2 + (i % 50)),
});

describe("documentWindows / windowBatches", () => {
  it("scores each target exactly once for strides 1..T and lengths 2..40, with the right target at each scored position", () => {
    const T = 8;
    const binding = { vocabSize: 64, contextLength: T };
    for (let n = 2; n <= 40; n++) {
      for (let s = 1; s <= T; s++) {
        const d = doc(n);
        const { batches, windows, firstWindow } = windowBatches([d], binding, s, 3);
        const seen = new Int32Array(n); // seen[j]: times target j (predicted at input j − 1) was scored
        batches.forEach((b, bi) => {
          for (let r = 0; r < b.input.rows; r++) {
            const w = windows[firstWindow[bi] + r];
            for (let c = 0; c < b.input.cols; c++) {
              const i = r * b.input.cols + c;
              if (b.mask[i] === 0) continue;
              const j = w.start + c + 1;
              seen[j]++;
              expect(b.targets[i]).toBe(d.ids[j]);
              expect(b.input.ids[i]).toBe(d.ids[j - 1]);
            }
          }
        });
        expect(seen[0]).toBe(0); // the first token is context only
        for (let j = 1; j < n; j++) expect(seen[j], `n=${n} s=${s} target ${j}`).toBe(1);
        expect(batches.reduce((k, b) => k + b.targetCount, 0)).toBe(n - 1);
      }
    }
  });

  it("makes the first window full and later ones score their last s targets (fewer in the last partial window)", () => {
    // 20 targets, T = 8, s = 3: first window scores 1..8; then ends 11, 14, 17, 20 each scoring 3 with 8 inputs
    const w = documentWindows(doc(21), 8, 3);
    expect(w.map((x) => [x.start, x.length, x.scored])).toEqual([
      [0, 8, 8],
      [3, 8, 3],
      [6, 8, 3],
      [9, 8, 3],
      [12, 8, 3],
    ]);
    // 19 targets: the last window scores only 2 but still sees a full context
    const v = documentWindows(doc(20), 8, 3);
    expect(v[v.length - 1]).toMatchObject({ start: 11, length: 8, scored: 2 });
    // a document shorter than the context is one window scoring everything
    expect(documentWindows(doc(5), 8, 3)).toMatchObject([{ start: 0, length: 4, scored: 4 }]);
  });

  it("at the default stride (= T), gives a long document's last window up to T − 1 scored tokens as context (docs/evaluation.md's example)", () => {
    // 100 targets, T = 32: windows score 1–32, 33–64, 65–96, then 97–100 from inputs 68..99, the 28 before target 97 as context
    const w = documentWindows(doc(101), 32, 32);
    expect(w.map((x) => [x.start, x.length, x.scored])).toEqual([
      [0, 32, 32],
      [32, 32, 32],
      [64, 32, 32],
      [68, 32, 4],
    ]);
    expect(w[3].length - w[3].scored).toBe(28);
  });

  it("refuses strides outside [1, context]", () => {
    expect(() => documentWindows(doc(10), 8, 0)).toThrow(/stride/);
    expect(() => documentWindows(doc(10), 8, 9)).toThrow(/stride/);
    expect(() => documentWindows(doc(10), 8, 2.5)).toThrow(/stride/);
  });
});

describe("evaluateWindows on a trained decoder", () => {
  let model: GPT;
  let adapter: ReturnType<typeof decoderAdapter>;
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(10);
    adapter = decoderAdapter(model);
  });
  afterAll(() => model.dispose());
  const { tokenizer, docs } = tinyData();
  const validation = docs.filter((d) => d.split === "validation");

  it("agrees with evaluateLikelihood on separate batches when documents fit in the context", () => {
    const short: Document[] = [
      { id: "a", split: "validation", source: "s", ids: [0, 70, 71, 72, 1] },
      { id: "b", split: "validation", source: "s", ids: [0, 80, 1] },
    ];
    const plain = evaluateLikelihood(adapter, "validation", separateBatches(short, adapter.binding)).metrics;
    for (const s of [1, 4, 8]) {
      const w = evaluateWindows(adapter, short, s);
      expect(w.metrics.targets).toBe(plain.targets);
      expect(w.metrics.totalNll).toBeCloseTo(plain.totalNll, 5); // float32 logits, same positions
    }
  });

  it("scores the same targets at every stride, keeps per-window sums, bytes and positions consistent", () => {
    const targets = validation.reduce((n, d) => n + d.ids.length - 1, 0);
    for (const s of [1, 3, 8]) {
      const r = evaluateWindows(adapter, validation, s, { tokenizer, rowsPerBatch: 5 });
      expect(r.metrics.targets).toBe(targets);
      expect(r.windows.reduce((a, w) => a + w.totalNll, 0)).toBeCloseTo(r.metrics.totalNll, 9);
      expect(r.byPosition.reduce((a, p) => a + p.targets, 0)).toBe(targets);
      // every validation text is ASCII, so scored bytes = text bytes (BOS excluded, EOS 0 bytes)
      expect(r.windows.reduce((a, w) => a + w.bytes, 0)).toBe(validation.reduce((a, d) => a + d.ids.length - 2, 0));
      expect(formatWindowed(r)).toContain(`stride ${s}`);
      if (s < 8) expect(r.byPosition.filter((p) => p.position < 8 - s).every((p) => p.targets === validation.length)).toBe(true);
    }
  });

  it("refuses to compare results of different strides, and compares equal strides", () => {
    const a = evaluateWindows(adapter, validation, 4);
    const b = evaluateWindows(adapter, validation, 8);
    expect(() => compareWindowed(a, b)).toThrow(/stride 4.*stride 8/);
    const same = compareWindowed(a, evaluateWindows(adapter, validation, 4));
    expect(same).toMatchObject({ stride: 4, difference: 0 });
    expect(Number.isFinite(meanNll(a.metrics))).toBe(true);
  });

  it("leaks no tensors and leaves the weights untouched", () => {
    evaluateWindows(adapter, validation, 2); // warm-up: lazily created kernels are not leaks
    const fp = adapter.stateFingerprint();
    expect(leakedBy(() => evaluateWindows(adapter, validation, 2, { tokenizer }))).toBe(0);
    expect(adapter.stateFingerprint()).toBe(fp);
  });
});
