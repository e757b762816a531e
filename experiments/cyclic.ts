// The cyclic-permutation experiment: train a small decoder on 80 cycles for a fixed budget, score train and
// validation (test only on request) against count baselines and by position, and check an in-memory resume.
// A recipe over src/, not library code.
import { performance } from "node:perf_hooks";
import { Rng, type RngState } from "../src/util/rng.ts";
import { ReplacementSource } from "../src/data/sampling.ts";
import { provenance, round6 } from "../src/util/provenance.ts";
import { parameterCount, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { initParameters, type ParamArrays } from "../src/model/init.ts";
import { GPT } from "../src/model/gpt.ts";
import { batchLoss } from "../src/model/loss.ts";
import { AdamW, DEFAULT_ADAMW, type AdamWState } from "../src/train/adamw.ts";
import type { StepResult } from "../src/train/trainer.ts";
import { trainLoop, type LoopArgs } from "../src/train/loop.ts";
import { constantSchedule } from "../src/train/schedule.ts";
import { paddedBatches, type Batch, type Binding } from "../src/data/batches.ts";
import type { Document, Split } from "../src/data/documents.ts";
import type { SplitRows } from "../src/data/split_file.ts";
import { CYCLE_LENGTH, CYCLIC_VOCAB, ROW_LENGTH, cyclicDocuments, readCyclicSplitFile, splitCyclicRows, taskEntropyByPosition } from "../src/data/cyclic.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { evaluateLikelihood } from "../src/eval/likelihood.ts";
import { record, summary, type MetricSummary } from "../src/eval/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";

export interface CyclicOptions {
  seed: number;
  splitSeed: number;
  updates: number;
  lr: number;
  batchRows: number;
  clipNorm: number;
  /** Score train and validation every this many updates (and at 0 and the end). */
  evalEvery: number;
  /** Read the split from this file instead of shuffling with `splitSeed`. */
  splitFile?: string;
  /** Score the test split: a final report, never for choosing anything. */
  finalTest: boolean;
}

export const CYCLIC_DEFAULTS: CyclicOptions = { seed: 1, splitSeed: 1, updates: 300, lr: 0.01, batchRows: 16, clipNorm: 1, evalEvery: 25, finalTest: false };

/**
 * Two layers, d_model 32, 2 heads, d_ff 64 (17,568 parameters): fixed before any run and not tuned. Ample
 * for the task: copying from one cycle back (position t − 3) takes a single head attending by position.
 */
export const CYCLIC_MODEL: ModelConfig = resolveModelConfig({ vocabSize: CYCLIC_VOCAB, contextLength: ROW_LENGTH - 1, nLayers: 2, dModel: 32, nHeads: 2, dFF: 64, dropout: 0, tiedHead: true });

/** Input position 3 sees c0..c3 and predicts c0: from here on the target is determined by the context. */
export const FIRST_DETERMINED_POSITION = CYCLE_LENGTH - 1;

/** Everything an update reads or changes. */
export interface TrainState {
  model: GPT;
  optimizer: AdamW;
  data: ReplacementSource;
  dropout: Rng;
}

/** Everything needed to replay the next update exactly. */
interface Snapshot {
  params: ParamArrays;
  optimizer: AdamWState;
  rngs: { batches: RngState; dropout: RngState };
}

export function checkCyclicOptions(o: CyclicOptions): CyclicOptions {
  for (const k of ["seed", "splitSeed"] as const) if (!Number.isInteger(o[k])) throw new Error(`${k} must be an integer, got ${o[k]}`);
  for (const k of ["updates", "batchRows", "evalEvery"] as const) if (!Number.isInteger(o[k]) || o[k] < 1) throw new Error(`${k} must be a positive integer, got ${o[k]}`);
  if (!(o.lr > 0) || !Number.isFinite(o.lr)) throw new Error(`learning rate must be finite and > 0, got ${o.lr}`);
  if (!(o.clipNorm > 0)) throw new Error(`clip norm must be > 0, got ${o.clipNorm}`);
  return o;
}

/** A fresh model, Adam without weight decay, and named streams from `seed` (init, batches, dropout). */
export function newTrainState(seed: number, train: readonly Document[], batchRows: number, config: ModelConfig = CYCLIC_MODEL): TrainState {
  const root = Rng.fromSeed(seed);
  const model = new GPT(config, initParameters(config, root.child("init")));
  const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, weightDecay: 0 });
  return { model, optimizer, data: new ReplacementSource(train, batchRows, bindingOf(config), root.child("batches")), dropout: root.child("dropout") };
}

export function disposeTrainState(s: TrainState): void {
  s.optimizer.dispose();
  s.model.dispose();
}

/** Continue training to `updates` in total (the optimizer's step says where we are). */
export function trainTo(s: TrainState, updates: number, o: CyclicOptions, hooks: Pick<LoopArgs<Batch>, "checkpointEvery" | "onCheckpoint" | "onUpdate"> = {}): void {
  const lossFn = batchLoss(s.model, { train: true, dropoutRng: s.dropout });
  trainLoop({ params: s.model.params, lossFn, data: s.data, optimizer: s.optimizer, schedule: constantSchedule(o.lr), clipNorm: o.clipNorm, updates, ...hooks });
}

/** One more update; returns its result. */
function oneUpdate(s: TrainState, o: CyclicOptions): StepResult {
  let result: StepResult | undefined;
  trainTo(s, s.optimizer.step + 1, o, { onUpdate: (_step, r) => { result = r; } });
  return result!;
}

const copyMap = (m: Map<string, Float32Array>) => new Map([...m].map(([k, v]) => [k, Float32Array.from(v)]));

function snapshot(s: TrainState): Snapshot {
  const o = s.optimizer.state();
  return {
    params: copyMap(s.model.read()),
    optimizer: { step: o.step, m: copyMap(o.m), v: copyMap(o.v) },
    rngs: { batches: s.data.state(), dropout: s.dropout.state() },
  };
}

/** Put a snapshot back; with `keepBatches` the batch-sampling stream is left where it is (the control below). */
function restore(s: TrainState, snap: Snapshot, keepBatches = false): void {
  s.model.assign(snap.params);
  s.optimizer.restore(snap.optimizer);
  if (!keepBatches) s.data.restore(snap.rngs.batches);
  s.dropout.load(snap.rngs.dropout);
}

/** Names of the entries whose bytes differ between two snapshots (empty: bit-identical). */
function differences(a: Snapshot, b: Snapshot): string[] {
  const bytes = (x: Float32Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  const out: string[] = [];
  const maps: [string, Map<string, Float32Array>, Map<string, Float32Array>][] = [["param", a.params, b.params], ["adam.m", a.optimizer.m, b.optimizer.m], ["adam.v", a.optimizer.v, b.optimizer.v]];
  for (const [what, x, y] of maps) for (const [k, v] of x) if (!bytes(v).equals(bytes(y.get(k)!))) out.push(`${what} ${k}`);
  if (a.optimizer.step !== b.optimizer.step) out.push("adam.step");
  for (const k of ["batches", "dropout"] as const) if (JSON.stringify(a.rngs[k]) !== JSON.stringify(b.rngs[k])) out.push(`rng ${k}`);
  return out;
}

/**
 * Snapshot (weights, Adam moments and step, every RNG state), one update, restore, the same update again:
 * the two results must match bit for bit. A control then restores everything but the batch-sampling
 * stream, which must change the update (else the check could not fail). The state is left as before.
 */
export function resumeCheck(s: TrainState, o: CyclicOptions) {
  const before = snapshot(s);
  const first = oneUpdate(s, o);
  const after = snapshot(s);
  restore(s, before);
  const restored = differences(before, snapshot(s));
  const second = oneUpdate(s, o);
  const replay = differences(after, snapshot(s));
  restore(s, before, true);
  oneUpdate(s, o);
  const control = differences(after, snapshot(s));
  restore(s, before);
  const values = [...after.params.values()].reduce((n, v) => n + v.length, 0);
  return {
    at_update: before.optimizer.step,
    replayed_update: after.optimizer.step,
    compared: { parameter_tensors: after.params.size, parameter_values: values, adam_moments: 2 * after.optimizer.m.size, rng_streams: Object.keys(after.rngs) },
    losses: [first.loss, second.loss],
    restore_differences: restored,
    replay_differences: replay,
    bit_identical: restored.length === 0 && replay.length === 0 && Object.is(first.loss, second.loss),
    control_without_batch_rng: { differing: control.length, identical: control.length === 0 },
  };
}

const bindingOf = (c: ModelConfig): Binding => ({ vocabSize: c.vocabSize, contextLength: c.contextLength });

/** Σ NLL and count per input position; rows hold one document from column 0, so column = position. */
function nllByPosition(model: ScoringModel, batches: readonly Batch[]): MetricSummary[] {
  const n = ROW_LENGTH - 1;
  const sums = new Float64Array(n), counts = new Array<number>(n).fill(0);
  for (const b of batches) {
    if (b.layout !== "padded") throw new Error("loss by position needs one document per row (padded layout)");
    const nll = model.positionNll(b);
    for (let i = 0; i < nll.length; i++) if (b.mask[i] !== 0) { sums[i % b.input.cols] += nll[i]; counts[i % b.input.cols] += 1; }
  }
  return Array.from(sums, (s, t) => summary(s, counts[t]));
}

function score(model: ScoringModel, split: Split, batches: readonly Batch[]) {
  const byPosition = nllByPosition(model, batches);
  const determined = byPosition.slice(FIRST_DETERMINED_POSITION).reduce((a, b) => summary(a.totalNll + b.totalNll, a.targets + b.targets));
  return { name: model.name, ...record(evaluateLikelihood(model, split, batches).metrics), by_position: byPosition.map(record), determined_positions: record(determined) };
}

export type Score = ReturnType<typeof score>;
export type CyclicResult = ReturnType<typeof runCyclic>;

/** Train for `updates`, then score every requested split with the decoder and each baseline. */
export function runCyclic(options: Partial<CyclicOptions> = {}) {
  const t0 = performance.now();
  const o = checkCyclicOptions({ ...CYCLIC_DEFAULTS, ...options });
  const rows: SplitRows = o.splitFile ? readCyclicSplitFile(o.splitFile) : splitCyclicRows(o.splitSeed);
  if (o.finalTest && rows.test.length === 0) throw new Error("--final-test asked for, but the test split is empty");
  const docs = cyclicDocuments(rows);
  const binding = bindingOf(CYCLIC_MODEL);
  const docsOf = (split: Split) => docs.filter((d) => d.split === split);
  const train = docsOf("train");
  // the test rows are batched only for a final report; otherwise nothing below can reach them
  const splits: Split[] = o.finalTest ? ["train", "validation", "test"] : ["train", "validation"];
  const batchesOf = (split: Split) => paddedBatches(docsOf(split), binding, 64);
  const evalBatches = { train: batchesOf("train"), validation: batchesOf("validation") };

  const s = newTrainState(o.seed, train, o.batchRows);
  // evaluation must leave every stream where it was: the adapter's fingerprint covers both
  const adapter = decoderAdapter(s.model, { rngs: [s.data.rng, s.dropout] });
  try {
    const quick = (split: "train" | "validation") => record(evaluateLikelihood(adapter, split, evalBatches[split]).metrics).nll;
    const checkpoints = [{ update: 0, train: quick("train"), validation: quick("validation") }];
    const steps: { loss: number; grad_norm: number; clipped: boolean }[] = [];
    trainTo(s, o.updates, o, {
      onUpdate: (_step, r) => steps.push({ loss: r.loss, grad_norm: r.gradNorm, clipped: r.clipped }),
      checkpointEvery: o.evalEvery,
      onCheckpoint: (step) => checkpoints.push({ update: step, train: quick("train"), validation: quick("validation") }),
    });
    const scorers = [adapter, ...allBaselines(train, binding)];
    const scored = Object.fromEntries(splits.map((split) => [split, scorers.map((m) => score(m, split, batchesOf(split)))])) as Partial<Record<Split, Score[]>>;
    const resume = resumeCheck(s, o);
    return {
      experiment: "cyclic" as const,
      model_config: CYCLIC_MODEL,
      parameters: parameterCount(CYCLIC_MODEL),
      options: o,
      optimizer: { name: "Adam (AdamW with weight decay 0)", beta1: DEFAULT_ADAMW.beta1, beta2: DEFAULT_ADAMW.beta2, eps: DEFAULT_ADAMW.eps, weight_decay: 0 },
      data: {
        split_from: o.splitFile ? `file ${o.splitFile}` : `seeded shuffle, split seed ${o.splitSeed}`,
        rows: { train: rows.train.length, validation: rows.validation.length, test: rows.test.length },
        targets_per_row: ROW_LENGTH - 1,
        split_rows: rows,
      },
      first_determined_position: FIRST_DETERMINED_POSITION,
      task_entropy_by_position: taskEntropyByPosition(),
      training: { steps, checkpoints, clipped_updates: steps.filter((x) => x.clipped).length },
      scored_splits: splits,
      scores: scored,
      resume_check: resume,
      seconds: (performance.now() - t0) / 1000,
      provenance: provenance(),
    };
  } finally {
    disposeTrainState(s);
  }
}

/** The readable report (values rounded to 6 decimals for display only). */
export function formatCyclic(r: CyclicResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const c = r.model_config, o = r.options;
  const lines = [
    ...(r.scores.test ? ["FINAL REPORT (--final-test): the test split is scored at the end of this report."] : []),
    `cyclic permutations: rows train ${r.data.rows.train} / validation ${r.data.rows.validation} / test ${r.data.rows.test} (${r.data.split_from}), ${r.data.targets_per_row} targets per row`,
    `decoder: ${c.nLayers} layers, d_model ${c.dModel}, ${c.nHeads} heads, d_ff ${c.dFF}, context ${c.contextLength}, vocab ${c.vocabSize}, ${r.parameters} parameters; seed ${o.seed}`,
    `training: ${o.updates} updates × ${o.batchRows} rows drawn with replacement, Adam β ${r.optimizer.beta1}/${r.optimizer.beta2} ε ${r.optimizer.eps}, lr ${o.lr}, clip ${o.clipNorm} (${r.training.clipped_updates} updates clipped); backend ${r.provenance.backend}`,
    "", "  update   train NLL   validation NLL",
    ...r.training.checkpoints.map((k) => `  ${String(k.update).padStart(6)}   ${f(k.train)}    ${f(k.validation)}`),
  ];
  const last = r.data.targets_per_row - 1;
  // one row: name, NLL, perplexity, NLL at the determined positions, then NLL at each position
  const row = (name: string, nll: number, determined: number, byPosition: number[]) =>
    `  ${name.padEnd(28)} ${f(nll)} ${f(Math.exp(nll)).padStart(11)} ${f(determined).padStart(11)}   ${byPosition.map((x) => x.toFixed(4).padStart(7)).join(" ")}`;
  const table = (split: Split) => {
    const rows = r.scores[split]!;
    const pos = Array.from({ length: r.data.targets_per_row }, (_, t) => `p${t}`.padStart(7)).join(" ");
    const floor = r.task_entropy_by_position;
    return [
      `${`${split} (${rows[0].targets} targets)`.padEnd(30)} ${"NLL".padStart(8)} ${"perplexity".padStart(11)} ${`p${r.first_determined_position}-${last} NLL`.padStart(11)}   ${pos}`,
      ...rows.map((m) => row(m.name, m.nll, m.determined_positions.nll, m.by_position.map((p) => p.nll))),
      row("task entropy (all 120 rows)", floor.reduce((a, b) => a + b, 0) / floor.length, 0, floor),
    ];
  };
  lines.push("", ...table("train"), "", ...table("validation"));
  const v = r.scores.validation!;
  const dec = v[0].determined_positions.nll, big = v.find((m) => m.name.startsWith("bigram"))!.determined_positions.nll;
  lines.push("", `validation, positions ${r.first_determined_position}-${last} (one full cycle seen, target determined): decoder ${f(dec)} vs ${v.find((m) => m.name.startsWith("bigram"))!.name} ${f(big)} nats per target`);
  const rc = r.resume_check;
  lines.push("", `resume check: snapshot after update ${rc.at_update} (weights, Adam moments and step, RNG streams ${rc.compared.rng_streams.join(", ")}), update ${rc.replayed_update}, restore, update ${rc.replayed_update} again:`);
  lines.push(`  ${rc.compared.parameter_values} weights in ${rc.compared.parameter_tensors} tensors, ${rc.compared.adam_moments} moment tensors, step and RNG states ${rc.bit_identical ? "bit-identical" : `DIFFER: ${[...rc.restore_differences, ...rc.replay_differences].join(", ")}`}; losses ${rc.losses.map(f).join(" / ")}`);
  lines.push(`  control, batch-sampling stream not restored: ${rc.control_without_batch_rng.identical ? "IDENTICAL (the check could not detect a missing stream)" : `${rc.control_without_batch_rng.differing} entries differ, as they must`}`);
  if (r.scores.test) {
    const banner = "=".repeat(100);
    lines.push("", banner, "FINAL REPORT: the test split is scored below. Report it once; choosing anything by it turns it into validation.", banner, ...table("test"), banner);
  } else lines.push("", "test split: not scored (pass --final-test for the final report)");
  lines.push("", `run time ${r.seconds.toFixed(1)} s`);
  return lines.join("\n");
}

/** Loss by position: the decoder (validation and train) against the count baselines and the task's entropy. */
export async function cyclicPositionFigure(r: CyclicResult): Promise<string> {
  const { lineChart } = await import("../src/util/charts.ts");
  const line = (m: Score) => m.by_position.map((p, t) => [t, p.nll] as [number, number]);
  const v = r.scores.validation!;
  const [decoder, unigram, bigram] = [v[0], v.find((m) => m.name.startsWith("unigram (")), v.find((m) => m.name.startsWith("bigram"))].map((m) => m!);
  return lineChart({
    title: `Cyclic permutations: loss by position after ${r.options.updates} updates`, xLabel: "input position (the target is the next token)", yLabel: "NLL (nats per target)",
    series: [
      { name: "decoder, validation", points: line(decoder), marker: true },
      { name: "decoder, train", points: line(r.scores.train![0]), marker: true, dash: "6 4" },
      { name: "bigram (add-1), validation", points: line(bigram), marker: true },
      { name: "unigram, validation", points: line(unigram), dash: "3 3" },
      { name: "task entropy (floor)", points: r.task_entropy_by_position.map((h, t) => [t, h] as [number, number]), marker: true, dash: "2 3" },
    ],
    notes: [`From position ${r.first_determined_position} one full cycle has been seen and the target is determined (entropy 0).`],
  });
}

/** Training batch loss per update (raw and smoothed) with train/validation NLL at checkpoints. */
export async function cyclicTrainingFigure(r: CyclicResult): Promise<string> {
  const { lineChart, rawAndSmoothed } = await import("../src/util/charts.ts");
  const bigram = r.scores.validation!.find((m) => m.name.startsWith("bigram"))!;
  return lineChart({
    title: "Cyclic permutations: training curve", xLabel: "update", yLabel: "NLL (nats per target)",
    series: [
      ...rawAndSmoothed({ name: "batch loss", points: r.training.steps.map((x, i) => [i + 1, x.loss] as [number, number]) }, 0.1),
      { name: "train NLL (all rows)", points: r.training.checkpoints.map((k) => [k.update, k.train] as [number, number]), marker: true },
      { name: "validation NLL", points: r.training.checkpoints.map((k) => [k.update, k.validation] as [number, number]), marker: true, dash: "6 4" },
    ],
    refLines: [{ name: "bigram, validation", y: bigram.nll }],
  });
}
