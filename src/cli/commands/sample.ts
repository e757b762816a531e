// `tinylab sample --model FILE --prompt TEXT`: greedy or seeded continuations of a prompt (experiments/sample.ts).
// Parses, calls, prints.
import type { CommandModule } from "yargs";
import { SAMPLE_DEFAULTS as d } from "../../../experiments/options.ts";
import { oneThreadEngineOptions, MODEL_DIR, optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";

/** sample's options and their defaults (experiments/options.ts SAMPLE_DEFAULTS). */
export const SAMPLE_OPTIONS = {
  model: REQUIRED,
  ...MODEL_DIR,
  prompt: REQUIRED,
  temperature: d.temperature,
  "top-k": undefined,
  seed: d.seed,
  "max-tokens": d.maxTokens,
  samples: d.samples,
  json: false,
  ...oneThreadEngineOptions("data"),
} satisfies OptionTable;

export const sampleCommand: CommandModule = {
  command: "sample",
  describe: "Continue a prompt with a model file: greedy, or seeded sampling with temperature and top-k",
  builder: (y) =>
    withOptions(y, SAMPLE_OPTIONS, {
      seed: "seed of the sampling stream (sample i uses its child stream i); unused when greedy",
      json: "print the result as JSON: every sample's token ids with their probabilities under the model",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { checkSampleOptions, runSample }, { formatSample }, { judgeModelFile, requireFile }] =
      await Promise.all([
        import("../common.ts"),
        import("../../../experiments/sample.ts"),
        import("../views/sample.ts"),
        import("../../node/disk.ts"),
      ]);
    const { json, backend, kernels, model, convention, graph, allowNonFloat32, ...given } = optionValues(argv, SAMPLE_OPTIONS);
    const { isModelDir } = await import("../../node/disk.ts");
    if (isModelDir(model)) {
      const [{ runSampleDir }, { formatDirSample }] = await Promise.all([
        import("../../../experiments/model_dir.ts"),
        import("../views/model_dir.ts"),
      ]);
      const r = runSampleDir({ ...given, model, convention, graph, allowNonFloat32 });
      process.stdout.write(json ? toJson(r) : formatDirSample(r) + "\n");
      return;
    }
    const o = { ...given, model: requireFile(model, "model file") };
    checkSampleOptions(o);
    judgeModelFile(o.model); // from its header, before the engine starts
    const r = runSample({ ...o, engine: await startEngine({ backend, kernels }) });
    process.stdout.write(json ? toJson(r) : formatSample(r) + "\n");
  },
};
