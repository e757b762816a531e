// `tinylab export`: write a model file in another library's layout (experiments/export.ts). Parses, calls, prints.
// Starts the engine on tfjs's own kernels only to probe the model's forward (src/lab/finite_forward.ts) before writing.
import type { CommandModule } from "yargs";
import { backendDefault, optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";

/** export's options: all but --json required, none with a default. */
export const EXPORT_OPTIONS = { format: REQUIRED, model: REQUIRED, out: REQUIRED, json: false } satisfies OptionTable;

export const exportCommand: CommandModule = {
  command: "export",
  describe: "Write a model file as a Hugging Face GPT-2 directory with its ONNX graph (transformers.js loads it), or as the ONNX graph alone",
  builder: (y) =>
    withOptions(y, EXPORT_OPTIONS, {
      out: "directory to write (absent, empty, or a previous export; anything else is refused)",
    }),
  handler: async (argv) => {
    const { json, ...o } = optionValues(argv, EXPORT_OPTIONS);
    const { checkOutputDir } = await import("../../node/disk.ts");
    checkOutputDir(o.out, "--out"); // before the recipe (and tfjs's modules) load
    const [{ startEngine, toJson }, { exportModel }, { formatExport }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/export.ts"), import("../views/export.ts"),
    ]);
    await startEngine(backendDefault(), "tfjs");
    const report = exportModel({ ...o, progress: process.stderr });
    process.stdout.write(json ? toJson(report) : formatExport(report) + "\n");
  },
};
