// The compare, sample, choice and canary recipes in process: per-token scores add up to the evaluator's total at any
// stride, the seed-39 fixture re-scores as its fixture says, value refusals, and no tensor left behind.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCompare } from "../../experiments/compare.ts";
import { runSample } from "../../experiments/sample.ts";
import { runCanary, CANARY_DEFAULTS } from "../../experiments/canary.ts";
import { runChoice } from "../../experiments/choice.ts";
import { encodeDocument } from "../../src/data/documents.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { scoreTokens } from "../../src/eval/compare/compare.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { windowBatches } from "../../src/eval/passes/windows.ts";
import { leakedBy, loadModel, useBackend } from "../helpers.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-compare-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("compare, sample and choice recipes", () => {
  beforeAll(() => useBackend("wasm"));

  it("scores every target of a document longer than the context once, summing to the evaluator's total at strides 1, 3 and 8", () => {
    const loaded = loadModel(FIXTURE);
    try {
      const model = decoderAdapter(loaded.model);
      const doc = encodeDocument(loaded.tokenizer, { id: "long", split: "validation", source: "s", text: "aaabaabaaabab" }); // 14 targets, context 8
      for (const stride of [1, 3, 8]) {
        const s = scoreTokens(model, doc, stride);
        expect(s.nll).toHaveLength(14);
        const total = evaluateLikelihood(model, "validation", windowBatches([doc], model.binding, stride, 4).batches).metrics.totalNll;
        expect(s.nll.reduce((a, x) => a + x, 0)).toBeCloseTo(total, 9);
      }
    } finally {
      loaded.model.dispose();
    }
  });

  it("re-scores the fixture as it was scored when made (validation total 39.276880…) and leaks no tensor", () => {
    let r: ReturnType<typeof runCompare> | undefined;
    expect(
      leakedBy(() => {
        r = runCompare({
          a: FIXTURE,
          baseline: "uniform",
          split: "validation",
          finalTest: false,
          seed: 0,
          replicates: 200,
          bitsPerByte: false,
        });
      }),
    ).toBe(0);
    const total = r!.result.documents.reduce((s, d) => s + d.a_total_nll, 0);
    expect(total).toBeCloseTo(39.27688026428223, 5); // tests/fixtures/seed39-format2.json, scored in float32
    expect(r!.result.nll!.b).toBeCloseTo(Math.log(266), 12); // uniform over the 266 ids
  });

  it("sample refuses values generation cannot use, naming the option", () => {
    const o = { model: FIXTURE, prompt: "a", temperature: 1, seed: 0, maxTokens: 4, samples: 1 };
    expect(() => runSample({ ...o, temperature: 0, topK: 3 })).toThrow(/--top-k needs --temperature > 0/);
    expect(() => runSample({ ...o, temperature: -1 })).toThrow(/--temperature must be a finite number ≥ 0, got -1/);
    expect(() => runSample({ ...o, temperature: 0, samples: 2 })).toThrow(/with greedy decoding .* repeats one continuation/);
    expect(() => runSample({ ...o, topK: 300 })).toThrow(/--top-k 300 is more than the model's vocabulary 266/);
    expect(() => runSample({ ...o, maxTokens: 0 })).toThrow(/--max-tokens must be a positive integer/);
  });

  it("canary refuses a control equal to the canary, a secret with no prefix and a control already in the data", () => {
    expect(() => runCanary({ ...CANARY_DEFAULTS, control: CANARY_DEFAULTS.canary })).toThrow(/--canary-control must differ from --canary/);
    expect(() => runCanary({ ...CANARY_DEFAULTS, secretTokens: 13 })).toThrow(/--canary-secret 13 leaves no prefix of --canary/);
    expect(() => runCanary({ ...CANARY_DEFAULTS, control: "reads" })).toThrow(/the control canary already occurs in train document "base"/);
  });

  it("sample and choice leave no tensor behind", () => {
    expect(leakedBy(() => runSample({ model: FIXTURE, prompt: "a", temperature: 1, seed: 3, maxTokens: 5, samples: 2 }))).toBe(0);
    const data = join(dir, "q.jsonl");
    writeFileSync(data, JSON.stringify({ question: "a", candidates: ["ab", "b"], answer: 0 }));
    expect(leakedBy(() => runChoice({ model: FIXTURE, data }))).toBe(0);
  });
});
