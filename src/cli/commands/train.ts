// `tinylab train`: the experiments' trainer (overfit fixture or a documents file) with atomic checkpoints and
// exact resume. Glue only: the loop is src/train/loop.ts, the files are src/checkpoint/*.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CommandModule } from "yargs";
import { OVERFIT_DEFAULTS, OVERFIT_MODEL } from "../../../experiments/overfit.ts";
import { modelProvenance, saveModel } from "../../checkpoint/model_file.ts";
import { checkResume, loadTrainState, saveTrainState, type TrainOptions, type TrainSnapshot } from "../../checkpoint/train_state.ts";
import { trainingBatches } from "../../data/batches.ts";
import { readDocumentsFile } from "../../data/files.ts";
import { overfitDocuments, overfitTokenizer } from "../../data/fixtures.ts";
import { ByteTokenizer } from "../../data/tokenizer.ts";
import { resolveModelConfig } from "../../model/config.ts";
import { GPT } from "../../model/gpt.ts";
import { initParameters } from "../../model/init.ts";
import { batchLoss } from "../../model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../../train/adamw.ts";
import { EpochSource, trainLoop, type EpochCursor } from "../../train/loop.ts";
import { sha256File } from "../../util/atomic.ts";
import { engineInfo } from "../../util/backend.ts";
import { Rng } from "../../util/rng.ts";
import { startEngine, withBackend } from "../common.ts";

/** Name of the (single, atomically replaced) state file inside --checkpoint-dir. */
export const STATE_FILE = "train_state.safetensors";

export interface TrainRunOptions {
  seed: number;
  updates: number;
  lr: number;
  warmup: number;
  cosineSteps: number;
  minLr: number;
  clipNorm: number;
  weightDecay: number;
  microbatches: number;
  batchRows: number;
  shuffle: boolean;
  /** Overrides of the overfit model config (known keys only), e.g. {dropout: 0.1}. */
  modelConfig: Record<string, unknown>;
  data?: string;
  checkpointEvery?: number;
  checkpointDir?: string;
  /** A state file, or a checkpoint directory holding one. */
  resume?: string;
  saveModel?: string;
  logEvery: number;
}

export const TRAIN_DEFAULTS: TrainRunOptions = {
  seed: OVERFIT_DEFAULTS.seeds[0], updates: OVERFIT_DEFAULTS.updates, lr: OVERFIT_DEFAULTS.lr, warmup: 0, cosineSteps: 0, minLr: OVERFIT_DEFAULTS.lr,
  clipNorm: OVERFIT_DEFAULTS.clipNorm, weightDecay: 0, microbatches: 2, batchRows: 1, shuffle: false, modelConfig: {}, logEvery: 10,
};

export interface TrainRunResult {
  from: number;
  to: number;
  lastLoss: number;
  modelSha256?: string;
}

const ensureDir = (dir: string) => { if (!existsSync(dir)) mkdirSync(dir, { recursive: true }); };

/** Remove temp files that a killed writer left in the checkpoint directory (writeFileAtomic names them .NAME.PID.HEX.tmp). */
function removeStaleTemps(dir: string): void {
  for (const f of readdirSync(dir)) {
    const m = /^\.train_state\.safetensors\.(\d+)\.[0-9a-f]+\.tmp$/.exec(f);
    if (m && !isAlive(Number(m[1]))) rmSync(join(dir, f), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Train (or resume) and save as asked; `log` receives every progress line. */
export function runTraining(o: TrainRunOptions, log: (line: string) => void = console.log): TrainRunResult {
  if (o.checkpointEvery !== undefined && !o.checkpointDir) throw new Error("--checkpoint-every needs --checkpoint-dir");
  if (!Number.isSafeInteger(o.seed)) throw new Error(`--seed must be an integer, got ${o.seed}`);
  const config = resolveModelConfig(o.modelConfig, OVERFIT_MODEL);
  const tokenizer = o.data ? new ByteTokenizer(config.vocabSize) : overfitTokenizer();
  const docs = o.data ? readDocumentsFile(o.data, tokenizer) : overfitDocuments(tokenizer);
  const train = docs.filter((d) => d.split === "train");
  if (train.length === 0) throw new Error(`no train documents in ${o.data}`);
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const microbatches = trainingBatches(train, binding, o.batchRows === 1 ? "separate" : "padded", o.batchRows);
  const options: TrainOptions = {
    seed: o.seed, schedule: { lr: o.lr, warmup: o.warmup, cosineSteps: o.cosineSteps, minLr: o.minLr }, clipNorm: o.clipNorm,
    adamw: { beta1: DEFAULT_ADAMW.beta1, beta2: DEFAULT_ADAMW.beta2, eps: DEFAULT_ADAMW.eps, weightDecay: o.weightDecay },
    microbatchesPerUpdate: o.microbatches, batchRows: o.batchRows, shuffle: o.shuffle,
    data: o.data ? `file sha256:${sha256File(o.data)}` : "overfit-fixture",
  };
  let saved: TrainSnapshot | undefined;
  let resumePath: string | undefined;
  if (o.resume) {
    resumePath = existsSync(o.resume) && statSync(o.resume).isDirectory() ? join(o.resume, STATE_FILE) : o.resume;
    saved = loadTrainState(resumePath);
    checkResume(saved, { config, tokenizer: tokenizer.toJSON(), options }, resumePath);
    if (saved.optimizer.step > o.updates) throw new Error(`${resumePath} is at update ${saved.optimizer.step}, past --updates ${o.updates}`);
  }

  // every random stream is a named child of the run's seed, so a resumed run can reload each one
  const root = Rng.fromSeed(o.seed);
  const model = new GPT(config, saved?.weights ?? initParameters(config, root.child("init")));
  const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, weightDecay: o.weightDecay });
  const dropoutRng = root.child("dropout");
  const data = new EpochSource(microbatches, o.microbatches, o.shuffle ? root.child("data") : undefined);
  try {
    if (saved) {
      optimizer.restore(saved.optimizer);
      if (!saved.rngs.dropout) throw new Error(`${resumePath}: no "dropout" rng state`);
      dropoutRng.load(saved.rngs.dropout);
      data.restore(saved.cursor as EpochCursor);
    }
    const source = o.data ?? "overfit fixture";
    const targets = train.reduce((n, d) => n + d.ids.length - 1, 0);
    log(`train: ${source}, ${train.length} training documents (${targets} targets) in ${microbatches.length} microbatches, ${o.microbatches} per update${o.shuffle ? ", shuffled each epoch" : ""}`);
    log(`  seed ${o.seed}, lr ${o.lr} (warmup ${o.warmup}, cosine ${o.cosineSteps}, min ${o.minLr}), clip ${o.clipNorm}, weight decay ${o.weightDecay}, dropout ${config.dropout}, backend ${engineInfo().backend}`);
    log(saved ? `  resumed from ${resumePath} at update ${saved.optimizer.step}; running to update ${o.updates}` : `  updates 1..${o.updates}`);

    const statePath = o.checkpointDir ? join(o.checkpointDir, STATE_FILE) : undefined;
    if (o.checkpointDir) {
      ensureDir(o.checkpointDir);
      removeStaleTemps(o.checkpointDir);
    }
    let lastLoss = NaN;
    const span = trainLoop({
      params: model.params, lossFn: batchLoss(model, { train: true, dropoutRng }), data, optimizer,
      schedule: options.schedule, clipNorm: o.clipNorm, updates: o.updates, checkpointEvery: o.checkpointEvery,
      onUpdate: (step, r) => {
        lastLoss = r.loss;
        if (step % o.logEvery === 0 || step === o.updates) log(`update ${String(step).padStart(5)}  loss ${r.loss.toFixed(6)}  grad-norm ${r.gradNorm.toFixed(4)}${r.clipped ? " (clipped)" : ""}`);
      },
      onCheckpoint: statePath
        ? (step) => {
          saveTrainState(statePath, {
            config, tokenizer: tokenizer.toJSON(), options, weights: model.read(), optimizer: optimizer.state(),
            rngs: { dropout: dropoutRng.state() }, cursor: data.state(), provenance: modelProvenance(o.seed, step),
          });
          log(`checkpoint update ${step} → ${statePath}`);
        }
        : undefined,
    });
    let modelSha256: string | undefined;
    if (o.saveModel) {
      ensureDir(dirname(o.saveModel));
      modelSha256 = saveModel(o.saveModel, model, tokenizer, modelProvenance(o.seed, optimizer.step));
      log(`saved model (seed ${o.seed}, update ${optimizer.step}) → ${o.saveModel}`);
      log(`model_sha256 ${modelSha256}`);
    }
    return { ...span, lastLoss, modelSha256 };
  } finally {
    model.dispose();
    optimizer.dispose();
  }
}

/** Parse `--model-config '{"dModel":16}'` into overrides (checked against known keys by resolveModelConfig). */
function parseOverrides(json: string | undefined, dropout: number | undefined): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  if (json) {
    try {
      out = JSON.parse(json) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`--model-config is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof out !== "object" || out === null || Array.isArray(out)) throw new Error("--model-config must be a JSON object");
  }
  return dropout === undefined ? out : { ...out, dropout };
}

const positiveInt = (v: unknown, flag: string): number => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new Error(`--${flag} must be a positive integer, got ${v}`);
  return v;
};

export const trainCommand: CommandModule = {
  command: "train",
  describe: "Train the overfit model (or on a documents file) with atomic checkpoints and exact resume",
  builder: (y) =>
    withBackend(y)
      .option("seed", { type: "number", default: TRAIN_DEFAULTS.seed, describe: "seed of initialization, dropout and data order" })
      .option("updates", { type: "number", default: TRAIN_DEFAULTS.updates, describe: "train until this many updates in total" })
      .option("lr", { type: "number", default: TRAIN_DEFAULTS.lr, describe: "peak learning rate" })
      .option("warmup", { type: "number", default: 0, describe: "linear warmup updates" })
      .option("cosine-steps", { type: "number", default: 0, describe: "cosine decay length in updates (0 = constant)" })
      .option("min-lr", { type: "number", describe: "floor of the cosine (default: --lr)" })
      .option("clip", { type: "number", default: TRAIN_DEFAULTS.clipNorm, describe: "global gradient-norm clip" })
      .option("weight-decay", { type: "number", default: 0, describe: "AdamW decoupled weight decay (matrices only)" })
      .option("microbatches", { type: "number", default: TRAIN_DEFAULTS.microbatches, describe: "microbatches accumulated per update" })
      .option("batch-rows", { type: "number", default: 1, describe: "documents (rows) per microbatch" })
      .option("shuffle", { type: "boolean", default: false, describe: "reshuffle the microbatches every epoch (seeded)" })
      .option("dropout", { type: "number", describe: "model dropout (default: the overfit config's 0)" })
      .option("model-config", { type: "string", describe: "JSON overrides of the overfit model config" })
      .option("data", { type: "string", describe: "JSONL documents file to train on (its train split); default: the overfit fixture" })
      .option("checkpoint-every", { type: "number", describe: "write the training state every N updates (and at the end)" })
      .option("checkpoint-dir", { type: "string", describe: `directory of the state file (${STATE_FILE})` })
      .option("resume", { type: "string", describe: "state file or checkpoint directory to resume from (same flags as the original run)" })
      .option("save-model", { type: "string", describe: "write the final model file (.safetensors) here" })
      .option("log-every", { type: "number", default: 10, describe: "print the loss every N updates" }),
  handler: async (argv) => {
    await startEngine(argv.backend as string);
    const lr = argv.lr as number;
    if (!(lr > 0)) throw new Error(`--lr must be > 0, got ${lr}`);
    runTraining({
      seed: argv.seed as number, updates: positiveInt(argv.updates, "updates"), lr, warmup: argv.warmup as number,
      cosineSteps: argv["cosine-steps"] as number, minLr: (argv["min-lr"] as number | undefined) ?? lr, clipNorm: argv.clip as number,
      weightDecay: argv["weight-decay"] as number, microbatches: positiveInt(argv.microbatches, "microbatches"),
      batchRows: positiveInt(argv["batch-rows"], "batch-rows"), shuffle: argv.shuffle as boolean,
      modelConfig: parseOverrides(argv["model-config"] as string | undefined, argv.dropout as number | undefined),
      data: argv.data as string | undefined,
      checkpointEvery: argv["checkpoint-every"] === undefined ? undefined : positiveInt(argv["checkpoint-every"], "checkpoint-every"),
      checkpointDir: argv["checkpoint-dir"] as string | undefined, resume: argv.resume as string | undefined,
      saveModel: argv["save-model"] as string | undefined, logEvery: positiveInt(argv["log-every"], "log-every"),
    });
  },
};
