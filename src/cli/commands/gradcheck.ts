// `tinylab gradcheck`: every coordinate of every parameter, tfjs gradient vs float64 central difference
// (experiments/gradcheck.ts). Exits 1 when any coordinate fails.
import type { CommandModule } from "yargs";
import { GRADCHECK_DEFAULTS as d } from "../../../experiments/options.ts";
import { oneThreadEngineOptions, optionValues, withOptions, type OptionTable } from "../options.ts";
import { engineLabel } from "../../util/engine.ts";

/** gradcheck's options and their defaults (experiments/options.ts GRADCHECK_DEFAULTS). */
export const GRADCHECK_OPTIONS = {
  config: d.config,
  seed: d.seed,
  json: false,
  ...oneThreadEngineOptions("teaching"),
} satisfies OptionTable;

export const gradcheckCommand: CommandModule = {
  command: "gradcheck",
  describe: "Check every gradient coordinate against float64 finite differences",
  builder: (y) =>
    withOptions(y, GRADCHECK_OPTIONS, {
      config: "model configuration to check: overfit (the overfit experiment's, on its training documents) or micro (random documents)",
      seed: "seed of the check's parameters and data",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine }, { runGradcheck }, { formatGradcheck }, { provenance }, g, { PRESETS }] =
      await Promise.all([
        import("../common.ts"),
        import("../../../experiments/gradcheck.ts"),
        import("../views/gradcheck.ts"),
        import("../../util/runtime/provenance.ts"),
        import("../../model/gradcheck.ts"),
        import("../../model/config.ts"),
      ]);
    const { config, seed, json, backend, kernels } = optionValues(argv, GRADCHECK_OPTIONS);
    const engine = await startEngine({ backend, kernels });
    const report = runGradcheck(config, seed, engine);
    if (json)
      process.stdout.write(
        toJson({
          config,
          ...report,
          tolerances: { eps: g.GRADCHECK_EPS, atol: g.GRADCHECK_ATOL, rtol: g.GRADCHECK_RTOL },
          provenance: provenance(engine),
        }),
      );
    else console.log(formatGradcheck(config, report, engineLabel(engine, PRESETS[config])));
    (json ? console.error : console.log)(wallTimeLine());
    if (!report.passed) process.exitCode = 1;
  },
};
