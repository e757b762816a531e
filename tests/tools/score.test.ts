// tools/score.py, the float64 numpy scorer written from docs/model-format.md alone, against `tinylab evaluate`: models
// of three shapes (byte/BPE, tied/untied, padded/strided) trained a few updates through src/lab, both scorers on
// the same documents file, equal target counts and NLLs within a stated tolerance. Runs in CI (numpy from .ci/run).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/util/backend.ts";
import { trainingBatches } from "../../src/data/batches.ts";
import { splitChunks, trainBpe } from "../../src/data/bpe.ts";
import { encodeDocument, type Document, type Split } from "../../src/data/documents.ts";
import { ByteTokenizer, type Tokenizer } from "../../src/data/tokenizer.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run } from "../../src/lab/run.ts";
import { decodeSafetensors, encodeSafetensors } from "../../src/util/formats/safetensors.ts";
import { signed } from "../../src/lab/file_checks.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { tinylab } from "../cli/spawn.ts";

const PYTHON = process.env.TINYLAB_PYTHON ?? "/usr/bin/python3"; // as tests/tools/models.ts
const SCORE = resolve(import.meta.dirname, "../../tools/score.py");
/**
 * |ΔNLL| allowed per split, in nats: tinylab computes in float32 (tfjs wasm), score.py in float64, so the
 * difference is float32 rounding through a few layers (~1e-7 relative per op). The control
 * below shows a scorer with one detail wrong (erf GELU instead of tanh) falls outside it.
 */
const NLL_TOLERANCE = 1e-5;
/** Enough updates at lr 0.03 that the models are far from uniform (NLL well under ln V), so a wrong detail shows. */
const UPDATES = 40;

const TEXTS: { split: Split; text: string }[] = [
  { split: "train", text: "The cat sat on the mat. It's the cat's mat, and they'll keep it." },
  { split: "train", text: "We've 12 cats and 3 dogs; the dogs don't sit on mats at all!" },
  { split: "train", text: "the mat, the cat, the hat   and the bat\nsat there in 1999." },
  { split: "train", text: "Café au lait costs 4.50 — you're right, it's the café's price." },
  { split: "validation", text: "The dog sat on the cat's hat. We'd say it's 42 percent there." },
  { split: "validation", text: "They're at the mat  again:\tcats, hats (and bats) — 日本の猫 too." },
  { split: "validation", text: "I'm sure the 7 bats'll sit on the mat tonight, aren't they?" },
];

interface Shape {
  name: string;
  tokenizer: "byte" | "bpe";
  config: Record<string, unknown>;
  stride?: number;
}

const SHAPES: Shape[] = [
  {
    name: "1 layer, tied, context 128",
    tokenizer: "byte",
    config: { nLayers: 1, dModel: 16, nHeads: 2, dFF: 32, contextLength: 128, tiedHead: true },
  },
  {
    name: "2 layers, untied, context 96",
    tokenizer: "bpe",
    config: { nLayers: 2, dModel: 16, nHeads: 4, dFF: 48, contextLength: 96, tiedHead: false },
  },
  {
    name: "2 layers, tied, context 16, stride 5",
    tokenizer: "byte",
    config: { nLayers: 2, dModel: 12, nHeads: 3, dFF: 24, contextLength: 16, tiedHead: true },
    stride: 5,
  },
];

const dir = mkdtempSync(join(tmpdir(), "tinylab-score-py-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const probe = spawnSync(PYTHON, ["-c", "import numpy"], { encoding: "utf8" });
/** Why score.py cannot run here, or undefined: a failure in CI (.ci/run installs python3-numpy), a skip elsewhere. */
const noNumpy =
  probe.status === 0
    ? undefined
    : `${PYTHON} with numpy is needed by tools/score.py and this test (apt-get install python3-numpy): ${probe.error?.message ?? probe.stderr.trim()}`;
const SKIP_NUMPY = noNumpy !== undefined && process.env.TINYLAB_REQUIRE_PYTHON !== "1";
if (SKIP_NUMPY) console.warn(`skipping the numpy scorer tests: ${noNumpy}`);

function python(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(PYTHON, args, { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const made = new Map<number, { path: string; tokenizer: Tokenizer }>();
/** A model of `shape` trained UPDATES updates on the training texts through src/lab; its file path. Trained once per index (tests that refuse edited copies of model 9 share it). */
function makeModel(shape: Shape, index: number): { path: string; tokenizer: Tokenizer } {
  if (!made.has(index)) made.set(index, trainModel(shape, index));
  return made.get(index)!;
}

function trainModel(shape: Shape, index: number): { path: string; tokenizer: Tokenizer } {
  const trainTexts = TEXTS.filter((t) => t.split === "train").map((t) => t.text);
  const tokenizer: Tokenizer = shape.tokenizer === "bpe" ? trainBpe(trainTexts, 258 + 24) : new ByteTokenizer(258);
  const config: ModelConfig = resolveModelConfig({ ...shape.config, vocabSize: tokenizer.vocabSize, dropout: 0 });
  const T = config.contextLength;
  // training rows cut to the context (the documents scored below are whole, or windowed when longer)
  const train: Document[] = trainTexts.map((text, i) => {
    const d = encodeDocument(tokenizer, { id: `t${i}`, split: "train", source: "score-test", text });
    return { ...d, ids: d.ids.slice(0, T + 1) };
  });
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: T }, "separate");
  const run = Run.create({
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed: 100 + index, lr: 0.03, data: "score-test" }),
    data: (b) => new EpochSource(mbs, 2, b),
  });
  try {
    run.train({ updates: UPDATES });
    const path = join(dir, `shape${index}.safetensors`);
    writeFileSync(path, run.modelBytes());
    return { path, tokenizer };
  } finally {
    run.dispose();
  }
}

type Splits = Record<string, { nll: number; targets: number }>;
const docsPath = join(dir, "docs.jsonl");
let rows: string[][] = [];

beforeAll(async () => {
  await initBackend("wasm");
  const lines = TEXTS.map((t, i) => JSON.stringify({ id: `d${i}`, split: t.split, source: "score-test", text: t.text }));
  lines.push(JSON.stringify({ id: "ids-row", split: "validation", source: "score-test", ids: [0, 118, 106, 1] })); // "th" given as ids
  writeFileSync(docsPath, lines.join("\n") + "\n");
});

describe.skipIf(SKIP_NUMPY)("tools/score.py agrees with tinylab evaluate", () => {
  it("has python3 with numpy (a failure, not a skip: CI installs it)", () => {
    expect(noNumpy).toBeUndefined();
  });

  it("splits text into the same pre-split chunks as bpe.ts (GPT-2's pattern, written by hand there)", () => {
    if (noNumpy) throw new Error(noNumpy);
    const samples = [...TEXTS.map((t) => t.text), "a  b   c\n\n d\t", "x'll 'S it's ''re 3.14 ++ --", "  ", " \u00a0x\u3000y ", "¼ 二 ½x٣"];
    const code = `import json, sys; sys.path.insert(0, ${JSON.stringify(resolve(import.meta.dirname, "../../tools"))}); import score; print(json.dumps([score.pre_split(s) for s in json.loads(sys.stdin.read())]))`;
    const r = spawnSync(PYTHON, ["-c", code], { input: JSON.stringify(samples), encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual(samples.map(splitChunks));
  });

  it(`scores three model shapes to within ${NLL_TOLERANCE} nats per split, with equal target counts`, async () => {
    if (noNumpy) throw new Error(noNumpy);
    for (const [i, shape] of SHAPES.entries()) {
      const { path } = makeModel(shape, i);
      const stride = shape.stride === undefined ? [] : ["--stride", String(shape.stride)];
      // what `tinylab evaluate --model M --data D [--stride S]` prints, from the recipe it calls (the CLI itself: tests/cli/evaluate.test.ts)
      const a = evaluateModelFile({ model: path, data: docsPath, batchRows: 1, split: "all", stride: shape.stride }).splits as Splits;
      const py = python([SCORE, path, "--data", docsPath, "--json", ...stride]);
      expect(py.code, py.stderr).toBe(0);
      const b = (JSON.parse(py.stdout) as { splits: Splits }).splits;
      expect(Object.keys(b)).toEqual(Object.keys(a));
      for (const split of Object.keys(a)) {
        rows.push([
          shape.name,
          shape.tokenizer,
          split,
          String(a[split].targets),
          a[split].nll.toFixed(7),
          b[split].nll.toFixed(7),
          (b[split].nll - a[split].nll).toExponential(2),
        ]);
        expect(b[split].targets, `${shape.name} ${split}`).toBe(a[split].targets);
        expect(Math.abs(b[split].nll - a[split].nll), `${shape.name} ${split}`).toBeLessThanOrEqual(NLL_TOLERANCE);
      }
    }
    const head = ["shape", "tokenizer", "split", "targets", "tinylab", "score.py", "difference"];
    const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
    const fmt = (r: string[]) => r.map((v, c) => (c < 3 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join("  ");
    console.log(["tools/score.py (float64) vs tinylab evaluate (float32, wasm), NLL in nats:", fmt(head), ...rows.map(fmt)].join("\n"));
    expect(rows.length).toBe(SHAPES.length * 2);
    rows = [];
    // the control: the same scorer with the exact erf GELU (a real GPT-2 variant) must fail the comparison
    const code = [
      "import math, sys, numpy as np",
      `sys.path.insert(0, ${JSON.stringify(resolve(import.meta.dirname, "../../tools"))})`,
      "import score",
      "score.gelu = lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))",
      `score.main([${JSON.stringify(join(dir, "shape0.safetensors"))}, "--data", ${JSON.stringify(docsPath)}, "--json"])`,
    ].join("\n");
    const erf = (JSON.parse(python(["-c", code]).stdout) as { splits: Record<string, { nll: number }> }).splits;
    const right = (
      JSON.parse(python([SCORE, join(dir, "shape0.safetensors"), "--data", docsPath, "--json"]).stdout) as {
        splits: Record<string, { nll: number }>;
      }
    ).splits;
    console.log(`control, erf GELU in score.py: train NLL off by ${(erf.train.nll - right.train.nll).toExponential(2)}`);
    expect(Math.abs(erf.train.nll - right.train.nll)).toBeGreaterThan(NLL_TOLERANCE);
  });

  it("refuses, in one line naming the file and key, an architecture it does not implement", () => {
    if (noNumpy) throw new Error(noNumpy);
    const { path } = makeModel(SHAPES[0], 9);
    const { tensors, metadata } = decodeSafetensors(new Uint8Array(readFileSync(path)));
    const { integrity: _, ...rest } = metadata;
    const bad = join(dir, "erf.safetensors");
    writeFileSync(
      bad,
      encodeSafetensors(tensors, signed(tensors, { ...rest, architecture: rest.architecture.replace('"gelu_tanh"', '"gelu_erf"') })),
    );
    const r = python([SCORE, bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^score\.py: error: model file .*erf\.safetensors: metadata "architecture" declares "activation": "gelu_erf", which score\.py does not implement \(it implements "gelu_tanh"\)\n$/,
    );
    const missing = python([SCORE, join(dir, "absent.safetensors")]);
    expect(missing.stderr).toMatch(/^score\.py: error: model file not found: .*absent\.safetensors\n$/);
  });

  it("agrees with tinylab on what a config must not be: a key given twice, an integer written 266.0 (both refused by both)", async () => {
    if (noNumpy) throw new Error(noNumpy);
    const { path } = makeModel(SHAPES[0], 9);
    const { tensors, metadata } = decodeSafetensors(new Uint8Array(readFileSync(path)));
    const { integrity: _, ...rest } = metadata;
    const cases: [string, string, RegExp, RegExp][] = [
      [
        "twice",
        rest.config.replace('"nHeads":', '"nHeads":1,"nHeads":'),
        /metadata "config" is not valid JSON: key "nHeads" is given twice/,
        /config: not valid JSON: key "nHeads" is given twice/,
      ],
      [
        "float",
        rest.config.replace(/"vocabSize":(\d+)/, '"vocabSize":$1.0'),
        /metadata "config" vocabSize must be a positive integer, got \d+\.0/,
        /config\.vocabSize: must be an integer, written without a fraction or exponent \(got \d+\.0\)/,
      ],
    ];
    for (const [name, config, byScore, byTinylab] of cases) {
      const bad = join(dir, `${name}.safetensors`);
      writeFileSync(bad, encodeSafetensors(tensors, signed(tensors, { ...rest, config })));
      const r = python([SCORE, bad]);
      expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(byScore)]);
      const t = await tinylab(["evaluate", "--model", bad, "--data", docsPath]);
      expect([t.code, t.stderr.trim()]).toEqual([
        1,
        expect.stringMatching(new RegExp(`^tinylab: error: model file .*${byTinylab.source}`)),
      ]);
    }
  });
});
