// `tinylab evaluate`: restore a model and its tokenizer from a model file alone and score documents without
// training (experiments/evaluate.ts). Parses, calls, prints.
import type { CommandModule } from "yargs";
import { EVALUATE_DEFAULTS as d } from "../../../experiments/options.ts";
import { engineOptions, MODEL_DIR, optionValues, SCORING_DATA, SCORING_DATA_HELP, withOptions, type OptionTable } from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

/** evaluate's options and their defaults (experiments/options.ts EVALUATE_DEFAULTS). */
export const EVALUATE_OPTIONS = {
  model: undefined,
  ...MODEL_DIR,
  ...SCORING_DATA,
  "batch-rows": d.batchRows,
  split: d.split,
  "final-test": false,
  stride: undefined,
  json: false,
  "lm-eval-out": undefined,
  ...engineOptions("data"),
} satisfies OptionTable;

export const evaluateCommand: CommandModule = {
  command: "evaluate",
  describe: "Restore a saved model and its tokenizer and score documents without training",
  builder: (y) =>
    withOptions(y, EVALUATE_OPTIONS, {
      ...SCORING_DATA_HELP,
      model:
        "model file (.safetensors), or a Hugging Face / transformers.js model directory scored on onnxruntime-node (docs/any-model.md); default with --run: its model.safetensors",
      split: "split to score; all = train and validation (and test with --final-test); test needs --final-test",
      "final-test": "allow the test split (--split test, or all): a final report, never for choosing anything",
      "lm-eval-out":
        "also write lm-evaluation-harness's results_<date>.json and one samples_<task>_<date>.jsonl per split (task <data>_<split>) into this directory: each text scored after BOS with no EOS (loglikelihood_rolling), word_perplexity, byte_perplexity, bits_per_byte (docs/formats.md)",
    }),
  handler: async (argv) => {
    const [{ modelOfRun, scoringText, startEngine, toJson }, { chosenSplits, scoreModelFile }, { formatEvaluation, FINAL_REPORT_BANNER }] =
      await Promise.all([import("../common.ts"), import("../../../experiments/evaluate_file.ts"), import("../views/evaluate.ts")]);
    const v = optionValues(argv, EVALUATE_OPTIONS);
    const scored = chosenSplits(v.split, v.finalTest); // refused before the engine starts
    const model = modelOfRun(v);
    const text = await scoringText(v); // a changed text file is refused before the engine starts
    if (v.lmEvalOut !== undefined) (await import("../lm_eval_out.ts")).checkLmEvalOut(v.lmEvalOut, model);
    const start = new Date();
    if (scored.includes("test")) (v.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    // what a model file and a model directory are scored with alike
    const scoringSettings = { model, batchRows: v.batchRows, split: v.split, data: v.data, stride: v.stride, finalTest: v.finalTest };
    const { isModelDir } = await import("../../node/disk.ts");
    if (isModelDir(model)) {
      if (v.workers !== undefined && v.workers > 1)
        throw new Error(`--workers ${v.workers} with a model directory: its graph runs in one onnxruntime session, on this thread`);
      const [{ evaluateModelDir }, { formatDirEvaluation }] = await Promise.all([
        import("../../../experiments/model_dir.ts"),
        import("../views/model_dir.ts"),
      ]);
      const report = evaluateModelDir(
        {
          ...scoringSettings,
          convention: v.convention,
          graph: v.graph,
          allowNonFloat32: v.allowNonFloat32,
        },
        text,
      );
      process.stdout.write(v.json ? toJson(report) : formatDirEvaluation(report) + "\n");
      return;
    }
    // the model file from its header and --batch-rows against its shape, before the engine starts
    const [{ judgeModelFile }, { checkScoringMemory }, { parameterCount }] = await Promise.all([
      import("../../node/disk.ts"),
      import("../../lab/memory.ts"),
      import("../../model/config.ts"),
    ]);
    const config = judgeModelFile(model);
    checkScoringMemory(config, 4 * parameterCount(config), v.batchRows);
    const engine = await startEngine(v);
    const { report, lmEval, lmEvalModel } = scoreModelFile(
      {
        ...scoringSettings,
        engine,
        openPool: (await import("../../node/pool.ts")).threadPools(engine),
        lmEval: v.lmEvalOut !== undefined,
        progress: quietClock(process.stderr),
      },
      text,
    );
    process.stdout.write(v.json ? toJson(report) : formatEvaluation(report) + "\n");
    if (v.lmEvalOut !== undefined && lmEval) {
      const wrote = (await import("../lm_eval_out.ts")).writeLmEvalOut(v.lmEvalOut, lmEval, lmEvalModel, {
        batchSize: v.batchRows,
        device: engine.backend,
        start,
        inputs: [model, ...(v.data ? [v.data] : [])],
      });
      for (const line of wrote) (v.json ? console.error : console.log)(line);
    }
  },
};
