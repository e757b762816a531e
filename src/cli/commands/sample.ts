// `tinylab sample --model FILE --prompt TEXT`: greedy or seeded continuations of a prompt (experiments/sample.ts).
// Parses, calls, prints.
import type { CommandModule } from "yargs";
import { SAMPLE_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, withOptions } from "../options.ts";

export const sampleCommand: CommandModule = {
  command: "sample",
  describe: "Continue a prompt with a model file: greedy, or seeded sampling with temperature and top-k",
  builder: (y) =>
    withOptions(y, {
      model: undefined, prompt: undefined, temperature: d.temperature, "top-k": undefined, seed: d.seed, "max-tokens": d.maxTokens, samples: d.samples, json: false, backend: backendDefault(), kernels: kernelsDefault(),
    }, {
      seed: "seed of the sampling stream (sample i uses its child stream i); unused when greedy",
      json: "print the result as JSON: every sample's token ids with their probabilities under the model",
    }).demandOption(["model", "prompt"]),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { checkSampleOptions, runSample }, { formatSample }, { requireFile }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/sample.ts"), import("../views/sample.ts"), import("../../node/disk.ts"),
    ]);
    const o = {
      model: requireFile(argv.model as string, "model file"), prompt: argv.prompt as string, temperature: argv.temperature as number, topK: argv["top-k"] as number | undefined,
      seed: argv.seed as number, maxTokens: argv["max-tokens"] as number, samples: argv.samples as number,
    };
    checkSampleOptions(o);
    await startEngine(argv.backend as string, argv.kernels as string);
    const r = runSample(o);
    process.stdout.write(argv.json ? toJson(r) : formatSample(r) + "\n");
  },
};
