// `tinylab gradcheck`: every coordinate of every parameter, tfjs gradient vs float64 central difference.
import type { CommandModule } from "yargs";
import { Rng } from "../../util/rng.ts";
import { PRESETS } from "../../model/config.ts";
import { GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL, gradcheck, gradcheckParameters, type GradcheckReport } from "../../model/gradcheck.ts";
import { packedBatches } from "../../data/batches.ts";
import { overfitDocuments, randomDocuments } from "../../data/fixtures.ts";
import { startEngine, toJson, withBackend } from "../common.ts";
import { provenance } from "../../util/provenance.ts";

/** The check's data: the overfit training documents, or random documents over the micro vocabulary. */
export function runGradcheck(configName: "overfit" | "micro", seed = 7): GradcheckReport {
  const config = PRESETS[configName];
  const rng = Rng.fromSeed(seed);
  const docs = configName === "overfit"
    ? overfitDocuments().filter((d) => d.split === "train")
    : randomDocuments(rng.child("docs"), config.vocabSize, 3, config.contextLength);
  const batches = packedBatches(docs, { vocabSize: config.vocabSize, contextLength: config.contextLength }, 4);
  return gradcheck(config, gradcheckParameters(config, rng.child("params")), batches);
}

export function formatGradcheck(name: string, r: GradcheckReport, backend: string): string {
  const e = (x: number) => x.toExponential(2).padStart(9);
  const lines = [
    `gradcheck ${name} on ${backend}: ${r.coordinates} coordinates, loss ${r.loss.toFixed(6)}, eps ${GRADCHECK_EPS}, pass if |Δ| ≤ ${GRADCHECK_ATOL} + ${GRADCHECK_RTOL}·|numeric|`,
    `${"tensor".padEnd(14)} ${"size".padStart(5)} ${"max abs".padStart(9)} ${"max rel".padStart(9)}  worst coordinate (index: analytic vs numeric)`,
  ];
  for (const t of r.tensors) {
    lines.push(`${t.name.padEnd(14)} ${String(t.size).padStart(5)} ${e(t.maxAbsError)} ${e(t.maxRelError)}  ${t.worst.index}: ${t.worst.analytic.toExponential(6)} vs ${t.worst.numeric.toExponential(6)}  ${t.passed ? "ok" : "FAIL"}`);
  }
  lines.push(`${r.passed ? "PASSED" : "FAILED"} in ${r.seconds.toFixed(2)} s`);
  return lines.join("\n");
}

export const gradcheckCommand: CommandModule = {
  command: "gradcheck",
  describe: "Check every gradient coordinate against float64 finite differences",
  builder: (y) =>
    withBackend(y)
      .option("config", { choices: ["overfit", "micro"], default: "overfit", describe: "model configuration to check" })
      .option("seed", { type: "number", default: 7, describe: "seed of the check's parameters and data" })
      .option("json", { type: "boolean", default: false, describe: "print the report as JSON" }),
  handler: async (argv) => {
    const info = await startEngine(argv.backend as string);
    const name = argv.config as "overfit" | "micro";
    const report = runGradcheck(name, argv.seed as number);
    if (argv.json) process.stdout.write(toJson({ config: name, ...report, tolerances: { eps: GRADCHECK_EPS, atol: GRADCHECK_ATOL, rtol: GRADCHECK_RTOL }, provenance: provenance() }));
    else console.log(formatGradcheck(name, report, info.backend));
    if (!report.passed) process.exitCode = 1;
  },
};
