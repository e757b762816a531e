// `tinylab brown`: the Brown corpus lab (split manifest, BPE, training with checkpoints and resume, harness).
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { BROWN_DEFAULTS, formatBrown, runBrown, type BrownOptions } from "../../../experiments/brown.ts";
import { resolveModelConfig } from "../../model/config.ts";
import { reportHtml } from "../../eval/report_page.ts";
import { startEngine, toJson, withBackend, writeOutput } from "../common.ts";

const d = BROWN_DEFAULTS;

export const brownCommand: CommandModule = {
  command: "brown",
  describe: "Train a decoder on the Brown corpus (BPE, checkpoints, resume) and evaluate it with the harness",
  builder: (y) =>
    withBackend(y)
      .option("out", { type: "string", default: d.outDir, describe: "output directory (manifest, checkpoints, model, report, figures)" })
      .option("seed", { type: "number", default: d.seed, describe: "initialization and data-order seed" })
      .option("split-seed", { type: "number", default: d.splitSeed, describe: "seed of the stratified file split (its own stream)" })
      .option("vocab", { type: "number", default: d.vocab, describe: "BPE vocabulary size (≥ 258), trained on the train split only" })
      .option("steps", { type: "number", default: d.steps, describe: "optimizer updates" })
      .option("batch-rows", { type: "number", default: d.batchRows, describe: `rows of ${d.model.contextLength} tokens per update` })
      .option("layers", { type: "number", default: d.model.nLayers })
      .option("d-model", { type: "number", default: d.model.dModel })
      .option("heads", { type: "number", default: d.model.nHeads })
      .option("d-ff", { type: "number", default: d.model.dFF })
      .option("context", { type: "number", default: d.model.contextLength, describe: "context length; strides are context and context/2" })
      .option("lr", { type: "number", default: d.lr, describe: "peak learning rate (linear warmup, cosine decay to --min-lr)" })
      .option("warmup", { type: "number", default: d.warmup })
      .option("min-lr", { type: "number", default: d.minLr })
      .option("weight-decay", { type: "number", default: d.weightDecay, describe: "AdamW decoupled weight decay on matrices" })
      .option("eval-every", { type: "number", default: d.evalEvery, describe: "validation probe every N updates" })
      .option("checkpoint-every", { type: "number", default: d.checkpointEvery, describe: "write the training state every N updates" })
      .option("resume", { type: "boolean", default: false, describe: "continue from <out>/train_state.safetensors if present" })
      .option("canary-repetitions", { type: "number", default: d.canary.repetitions, describe: "copies of the canary inserted into training" })
      .option("final-test", { type: "boolean", default: false, describe: "also score the test split (a final report: do not tune on it)" }),
  handler: async (argv) => {
    await startEngine(argv.backend as string);
    const o: BrownOptions = {
      ...d,
      outDir: argv.out as string, seed: argv.seed as number, splitSeed: argv["split-seed"] as number, vocab: argv.vocab as number,
      steps: argv.steps as number, batchRows: argv["batch-rows"] as number, lr: argv.lr as number, warmup: argv.warmup as number,
      minLr: argv["min-lr"] as number, weightDecay: argv["weight-decay"] as number, evalEvery: argv["eval-every"] as number,
      checkpointEvery: argv["checkpoint-every"] as number, resume: argv.resume as boolean, finalTest: argv["final-test"] as boolean,
      canary: { ...d.canary, repetitions: argv["canary-repetitions"] as number },
      model: resolveModelConfig({ vocabSize: argv.vocab as number, contextLength: argv.context as number, nLayers: argv.layers as number, dModel: argv["d-model"] as number, nHeads: argv.heads as number, dFF: argv["d-ff"] as number }),
      progress: process.stderr,
    };
    if (o.finalTest) console.log("FINAL REPORT: scoring the test split. Numbers from here must not feed back into any choice.\n");
    const result = await runBrown(o);
    if ("stopped" in result) return;
    console.log(formatBrown(result));
    writeOutput(join(o.outDir, "brown.json"), toJson(result));
    writeOutput(join(o.outDir, "report.html"), reportHtml(result.report));
    console.log(`\nwrote ${join(o.outDir, "brown.json")}, report.html, loss_curve.svg, model.safetensors, manifest.json`);
  },
};
