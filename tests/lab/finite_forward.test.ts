// A model file whose weights are finite but whose forward overflows float32 is refused once, naming the file, by
// every command that loads it (evaluate, compare, sample, report), instead of Infinity, NaN or an accounting error.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { runCompare } from "../../experiments/compare.ts";
import { runReport } from "../../experiments/report.ts";
import { runSample } from "../../experiments/sample.ts";
import { tf } from "../../src/util/backend.ts";
import { leakedBy, loadModel, useBackend } from "../helpers.ts";
import { reencode } from "./file_edits.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-finite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture with one tensor scaled by `k` and re-signed: every weight finite, as a forged or runaway writer's file. */
function scaled(name: string, k: number): string {
  const bytes = reencode(
    new Uint8Array(readFileSync(FIXTURE)),
    (t) => {
      const data = t[name].data as Float32Array;
      for (let i = 0; i < data.length; i++) data[i] *= k;
    },
    true,
  );
  const path = join(dir, `${name}-x${k}.safetensors`);
  writeFileSync(path, bytes);
  return path;
}

describe("a finite model whose forward is not", () => {
  beforeAll(() => useBackend("wasm"));

  it("loads the fixture (the control) and refuses huge final-norm gains and embeddings by the file's name, leaking nothing", () => {
    expect(leakedBy(() => loadModel(FIXTURE).model.dispose())).toBe(0);
    for (const [name, k] of [
      ["lnf.g", 1e30],
      ["lnf.g", 1e37],
      ["wte", 1e25],
    ] as const) {
      const path = scaled(name, k);
      const before = tf.memory().numTensors;
      expect(() => loadModel(path)).toThrow(
        new RegExp(
          `^model file ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the weights are finite but the model's forward is not \\(logit -?(Infinity|NaN|[\\d.]+e\\+\\d+) for token \\d+ at position \\d+ of probe row \\d+, past ±10000, MAX_ABS_LOGIT\\)`,
        ),
      );
      expect(tf.memory().numTensors).toBe(before);
    }
  });

  it("is the one refusal of evaluate (table and --json alike), compare, sample and report", () => {
    const path = scaled("lnf.g", 1e30);
    const says = `model file ${path}: the weights are finite but the model's forward is not`;
    expect(() => evaluateModelFile({ model: path, batchRows: 4, split: "validation", finalTest: false })).toThrow(says);
    expect(() =>
      runCompare({ a: path, baseline: "uniform", split: "validation", finalTest: false, seed: 0, replicates: 10, bitsPerByte: false }),
    ).toThrow(says);
    expect(() =>
      runCompare({ a: FIXTURE, b: path, split: "validation", finalTest: false, seed: 0, replicates: 10, bitsPerByte: false }),
    ).toThrow(says);
    expect(() => runSample({ model: path, prompt: "a", temperature: 0, maxTokens: 4, samples: 1, seed: 0 })).toThrow(says);
    expect(() => runReport({ model: path } as never)).toThrow(says);
  });
});
