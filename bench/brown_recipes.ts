// Benchmark, not a test: the Brown lab's recipe comparison on validation at equal wall time.
//   cost:  each recipe's ms per update on the pool (2 workers), the recipes interleaved round by round, and the
//          updates each affords in --budget seconds of training (median step time × updates = budget)
//   train: one recipe for --updates updates (through the text-run path brown uses), then the whole validation
//          split at stride 64 (the bar's stride) and 128, beside the unigram-prior bigram on the same targets
// Training is bit-identical for any worker count, so `train` runs can go side by side with --workers 1 each;
// only `cost` needs the machine to itself. The test split is never read. Prints JSON lines.
// Usage: npx tsx bench/brown_recipes.ts cost --recipes a,b,c [--budget 600] [--rounds 5] [--per-round 4]
//        npx tsx bench/brown_recipes.ts train --recipe a --updates N [--workers 1]
//        --kernels tfjs|onnxruntime|auto (default auto, as tinylab brown): who computes the matrix products; every line names it
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initBackend } from "../src/util/backend.ts";
import { parseKernelsChoice, type KernelsChoice } from "../src/util/backend_choice.ts";
import { engineLabel } from "../src/util/engine.ts";
import { openKernels } from "../src/node/native_kernels.ts";
import { dirStore } from "../src/node/disk.ts";
import { resolveModelConfig, parameterCount, type ModelConfig } from "../src/model/config.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { evaluateWindows } from "../src/eval/passes/windowed.ts";
import { meanNll } from "../src/eval/metrics/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { BROWN_DEFAULTS, brownData, brownRecipe } from "../experiments/brown.ts";
import { trainWithValidation } from "../src/lab/validated_training.ts";
import { startPool } from "../src/node/pool.ts";
import { loadGraphBuilders } from "../src/model/graph_builders.ts";

interface Recipe {
  layers: number;
  dModel: number;
  dFF: number;
  heads: number;
  rows: number;
  lr: number;
  warmup: number;
}
const base: Recipe = { layers: 2, dModel: 128, dFF: 512, heads: 4, rows: 8, lr: 3e-3, warmup: 30 };
/** The candidates, by name: 8 rows, 16 rows (the default), higher peak rates, a wider and the seed's 4-layer model. */
const RECIPES: Record<string, Recipe> = {
  "l2-b8-lr3e-3": base,
  "l2-b16-lr3e-3": { ...base, rows: 16 },
  "l2-b8-lr1e-2": { ...base, lr: 1e-2, warmup: 100 },
  "l2-b16-lr1e-2": { ...base, rows: 16, lr: 1e-2, warmup: 100 },
  "l4-b8-lr3e-3": { ...base, layers: 4 },
  "l4-b16-lr6e-3": { ...base, layers: 4, rows: 16, lr: 6e-3, warmup: 60 },
  "l2-d192-b8-lr3e-3": { ...base, dModel: 192, dFF: 768 },
};
/** The default's split of an update, so two workers share it. */
const MICROBATCHES = BROWN_DEFAULTS.microbatches;

// bad arguments are refused in one line before the corpus, BPE and engine load
const refuse = (why: string): never => {
  process.stderr.write(`bench/brown_recipes.ts: ${why}\n`);
  process.exit(2);
};
const OPTIONS = {
  recipes: { type: "string" },
  recipe: { type: "string" },
  budget: { type: "string", default: "600" },
  rounds: { type: "string", default: "5" },
  "per-round": { type: "string", default: "4" },
  updates: { type: "string" },
  workers: { type: "string", default: "1" },
  kernels: { type: "string", default: "auto" },
} as const;
const parsed = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (err) {
    return refuse((err as Error).message.split("\n")[0]);
  }
})();
const { positionals, values } = parsed;
const recipeOf = (name: string) => RECIPES[name];
if (positionals[0] !== "cost" && positionals[0] !== "train")
  refuse(`the first argument must be cost or train, got ${positionals[0] ?? "nothing"}`);
const chosen =
  positionals[0] === "cost"
    ? (values.recipes ?? Object.keys(RECIPES).join(",")).split(",")
    : [values.recipe ?? refuse("train needs --recipe NAME")];
for (const name of chosen) if (!RECIPES[name]) refuse(`unknown recipe "${name}": one of ${Object.keys(RECIPES).join(", ")}`);
for (const [flag, v] of [
  ["--budget", values.budget],
  ["--rounds", values.rounds],
  ["--per-round", values["per-round"]],
  ["--workers", values.workers],
  ...(positionals[0] === "train" ? [["--updates", values.updates ?? ""]] : []),
] as const) {
  if (!(Number(v) > 0) || (flag !== "--budget" && !Number.isInteger(Number(v))))
    refuse(`${flag} must be a positive ${flag === "--budget" ? "number" : "integer"}, got ${JSON.stringify(v ?? "")}`);
}

let kernels: KernelsChoice = "auto";
try {
  kernels = parseKernelsChoice(values.kernels);
} catch (err) {
  refuse((err as Error).message);
}
await initBackend("wasm");
await loadGraphBuilders(); // openEngine's part, for the engine openKernels opens here
const opened = openKernels(kernels);
const engine = engineLabel(opened);
const dir = mkdtempSync(join(tmpdir(), "brown-recipes-"));
const o = BROWN_DEFAULTS;
const { tokenizer, train, validation } = brownData(o, dirStore(dir));
const configOf = (r: Recipe): ModelConfig =>
  resolveModelConfig({ nLayers: r.layers, dModel: r.dModel, nHeads: r.heads, dFF: r.dFF }, o.model);
/** The candidate as a Brown run (experiments/brown.ts's brownRecipe): the default's options with this shape, batch and rate, decaying to a tenth of it over `updates`. */
const specOf = (r: Recipe, updates: number) =>
  brownRecipe(
    { ...o, model: configOf(r), updates, lr: r.lr, warmup: r.warmup, minLr: r.lr / 10, batchRows: r.rows, microbatches: MICROBATCHES },
    train,
  );
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  if (positionals[0] === "cost") {
    const names = chosen;
    const budget = Number(values.budget),
      rounds = Number(values.rounds),
      per = Number(values["per-round"]);
    const runs = await Promise.all(
      names.map(async (name) => {
        const s = specOf(recipeOf(name), 100_000);
        const pool = startPool(2, s.config, opened);
        const r = await trainWithValidation({
          engine: opened,
          pool,
          ...s,
          tokenizer: tokenizer.toJSON(),
          train,
          validation,
          updates: 2,
          resume: false,
          onDivergence: "warn",
          warn: () => {},
          curve: { title: "", note: "" },
        });
        return { name, run: r.run, pool, ms: [] as number[] };
      }),
    );
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? runs : [...runs].reverse(); // alternate the order so drift favours no recipe
      for (const x of order) {
        const t = performance.now();
        x.run.train({ updates: x.run.step + per });
        x.ms.push((performance.now() - t) / per);
      }
    }
    const ref = median(runs[0].ms);
    for (const x of runs) {
      const ms = median(x.ms);
      console.log(
        JSON.stringify({
          engine,
          recipe: x.name,
          ...recipeOf(x.name),
          parameters: parameterCount(configOf(recipeOf(x.name))),
          workers: 2,
          ms_per_update: +ms.toFixed(1),
          per_round_ms: x.ms.map((v) => +v.toFixed(1)),
          ratio_to_first: +(ms / ref).toFixed(3),
          updates_in_budget: Math.floor((budget * 1000) / ms),
          budget_seconds: budget,
        }),
      );
      x.run.dispose();
      x.pool.close();
    }
  } else if (positionals[0] === "train") {
    const name = chosen[0],
      r = recipeOf(name),
      updates = Number(values.updates),
      workers = Number(values.workers);
    const s = specOf(r, updates);
    const pool = startPool(workers, s.config, opened);
    const t0 = performance.now();
    const res = await trainWithValidation({
      engine: opened,
      pool,
      ...s,
      tokenizer: tokenizer.toJSON(),
      train,
      validation,
      updates,
      resume: false,
      onDivergence: "warn",
      warn: (l) => process.stderr.write(`${l}\n`),
      curve: { title: "", note: "" },
      onUpdate: (e) => {
        if (e.update % 200 === 0) process.stderr.write(`${name} ${e.update}/${updates} loss ${e.train_loss.toFixed(3)}\n`);
      },
    });
    const trainSeconds = (performance.now() - t0) / 1000;
    const model = decoderAdapter(res.run.model, { pool });
    const prior = allBaselines(train, s.binding).find((b) => b.name.startsWith("unigram-prior"))!;
    const at = (m: typeof model, stride: number) => meanNll(evaluateWindows(m, validation, stride).metrics);
    const v64 = at(model, 64),
      v128 = at(model, 128),
      p64 = at(prior, 64);
    const last = res.history.entries.slice(-50);
    console.log(
      JSON.stringify({
        engine,
        recipe: name,
        ...r,
        updates,
        workers,
        parameters: parameterCount(s.config),
        train_loss_last50: +(last.reduce((a, e) => a + e.train_loss, 0) / last.length).toFixed(4),
        validation_stride64: +v64.toFixed(4),
        validation_stride128: +v128.toFixed(4),
        unigram_prior_bigram_stride64: +p64.toFixed(4),
        margin: +(p64 - v64).toFixed(4),
        train_seconds: +trainSeconds.toFixed(1),
      }),
    );
    res.run.dispose();
    pool.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
