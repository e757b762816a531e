// `tinylab train`: the overfit model (or any shape) on the overfit fixture or a documents file, with atomic
// checkpoints and exact resume (experiments/train.ts). Parses, calls, prints.
import { basename, dirname } from "node:path";
import type { CommandModule } from "yargs";
import { TRAIN_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, workersDefault, modelOverrides, withOptions } from "../options.ts";


export const trainCommand: CommandModule = {
  command: "train",
  describe: "Train the overfit model (or on a documents file) with atomic checkpoints and exact resume",
  builder: (y) =>
    withOptions(y, {
      seed: d.seed, updates: d.updates, lr: d.lr, warmup: d.warmup, "cosine-steps": d.cosineSteps, "min-lr": undefined, clip: d.clipNorm,
      "weight-decay": d.weightDecay, microbatches: d.microbatches, "batch-rows": d.batchRows, shuffle: d.shuffle,
      layers: undefined, "d-model": undefined, heads: undefined, "d-ff": undefined, context: undefined, dropout: undefined, vocab: undefined, "model-config": undefined,
      data: undefined, "checkpoint-every": undefined, "checkpoint-dir": undefined, resume: false, "save-model": undefined, "log-every": d.logEvery, "on-divergence": d.onDivergence,
      backend: backendDefault(), workers: workersDefault(),
    }, {
      layers: "transformer blocks (default: the overfit config's 1; likewise every shape flag)",
      "model-config": 'JSON overrides of the overfit model config for any other key, e.g. \'{"tiedHead": false}\'',
      data: "JSONL documents file to train on (its train split; text as bytes); default: the overfit fixture",
    }),
  handler: async (argv) => {
    const [{ startEngine }, { runTraining }, { checkOutputDir, checkOutputFile, dirStore, requireFile }, { sha256File }, { readDocumentsFile }, { PRESETS, resolveModelConfig }, { lockDirectory, lockPath }, { onInterrupt, reportInterrupted }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/train.ts"), import("../../util/disk.ts"), import("../../util/atomic.ts"), import("../../data/files.ts"), import("../../model/config.ts"),
      import("../../util/lock.ts"), import("../interrupt.ts"),
    ]);
    if (argv.resume && !argv["checkpoint-dir"]) throw new Error("--resume needs --checkpoint-dir (the directory holding train_state.safetensors)");
    resolveModelConfig(modelOverrides(argv), PRESETS.overfit); // refuses a bad or oversized shape before the engine starts
    const dataPath = argv.data === undefined ? undefined : requireFile(argv.data as string, "documents file");
    const savePath = argv["save-model"] as string | undefined;
    const checkpointDir = argv["checkpoint-dir"] as string | undefined;
    if (checkpointDir) checkOutputDir(checkpointDir, "--checkpoint-dir");
    if (savePath) checkOutputFile(savePath, "--save-model");
    await startEngine(argv.backend as string);
    const lr = argv.lr as number;
    const checkpoints = checkpointDir ? dirStore(checkpointDir) : undefined;
    const saveStore = savePath ? dirStore(dirname(savePath)) : undefined;
    // one writer per checkpoint directory and per model path: a second run is refused, naming the holder's pid
    const locks = [
      ...(checkpointDir ? [lockDirectory(checkpointDir, "checkpoint directory")] : []),
      ...(savePath ? [lockPath(savePath, "model path")] : []),
    ];
    const interrupt = onInterrupt();
    try {
      const result = await runTraining({
        seed: argv.seed as number, updates: argv.updates as number, lr, warmup: argv.warmup as number, cosineSteps: argv["cosine-steps"] as number,
        minLr: (argv["min-lr"] as number | undefined) ?? lr, clipNorm: argv.clip as number, weightDecay: argv["weight-decay"] as number,
        microbatches: argv.microbatches as number, batchRows: argv["batch-rows"] as number, shuffle: argv.shuffle as boolean,
        modelConfig: modelOverrides(argv),
        data: dataPath ? { docs: (tokenizer) => readDocumentsFile(dataPath, tokenizer), name: dataPath, identity: `file sha256:${sha256File(dataPath)}` } : undefined,
        checkpointEvery: argv["checkpoint-every"] as number | undefined,
        checkpoints, resume: argv.resume as boolean,
        saveModel: saveStore ? { store: saveStore, name: basename(savePath!) } : undefined,
        logEvery: argv["log-every"] as number, onDivergence: argv["on-divergence"] as "warn" | "stop", workers: argv.workers as number,
      }, console.log, console.error, interrupt.requested);
      if (result.interrupted) reportInterrupted(result.interrupted.at, result.interrupted.state);
    } finally {
      interrupt.dispose();
      for (const l of locks) l.release();
    }
  },
};
