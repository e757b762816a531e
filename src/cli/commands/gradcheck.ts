// `tinylab gradcheck`: every coordinate of every parameter, tfjs gradient vs float64 central difference
// (experiments/gradcheck.ts). Exits 1 when any coordinate fails.
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, withOptions } from "../options.ts";
import { engineLabel } from "../../util/backend_choice.ts";

export const gradcheckCommand: CommandModule = {
  command: "gradcheck",
  describe: "Check every gradient coordinate against float64 finite differences",
  builder: (y) =>
    withOptions(y, { config: "overfit", seed: 7, json: false, backend: backendDefault(), kernels: kernelsDefault() }, {
      config: "model configuration to check: overfit (the overfit experiment's, on its training documents) or micro (random documents)",
      seed: "seed of the check's parameters and data",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine }, { runGradcheck }, { formatGradcheck }, { provenance }, g] = await Promise.all([
      import("../common.ts"), import("../../../experiments/gradcheck.ts"), import("../views/gradcheck.ts"), import("../../util/provenance.ts"), import("../../model/gradcheck.ts"),
    ]);
    const info = await startEngine(argv.backend as string, argv.kernels as string);
    const name = argv.config as "overfit" | "micro";
    const report = runGradcheck(name, argv.seed as number);
    if (argv.json) process.stdout.write(toJson({ config: name, ...report, tolerances: { eps: g.GRADCHECK_EPS, atol: g.GRADCHECK_ATOL, rtol: g.GRADCHECK_RTOL }, provenance: provenance() }));
    else console.log(formatGradcheck(name, report, engineLabel(info)));
    (argv.json ? console.error : console.log)(wallTimeLine());
    if (!report.passed) process.exitCode = 1;
  },
};
