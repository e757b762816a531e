// `tinylab export`: write a model file in another library's layout (experiments/export.ts). Parses, calls, prints.
// Starts the engine on tfjs's own kernels only to probe the model's forward (src/lab/finite_forward.ts) before writing.
import type { CommandModule } from "yargs";
import { BACKEND_DEFAULT, envValue, optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

/** export's options: all but --json and --overwrite required, none with a default. */
export const EXPORT_OPTIONS = { format: REQUIRED, model: REQUIRED, out: REQUIRED, overwrite: false, json: false } satisfies OptionTable;

export const exportCommand: CommandModule = {
  command: "export",
  describe:
    "Write a model file as a Hugging Face GPT-2 directory with its ONNX graph (transformers.js loads it), or as the ONNX graph alone",
  builder: (y) =>
    withOptions(y, EXPORT_OPTIONS, {
      out: "directory to write (absent, empty, or a previous export of the same format with --overwrite; anything else is refused)",
      overwrite: "--out holds a previous export of the same format: replace it (never any other directory)",
    }),
  handler: async (argv) => {
    const { json, ...o } = optionValues(argv, EXPORT_OPTIONS);
    const { judgeModelFile } = await import("../../node/disk.ts");
    const { checkOutputDir } = await import("../../node/writable.ts");
    checkOutputDir(o.out, "--out"); // before the recipe (and tfjs's modules) load
    judgeModelFile(o.model); // from its header, before the engine starts
    const [{ startEngine, toJson }, { exportModel }, { formatExport }] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/export.ts"),
      import("../views/export.ts"),
    ]);
    await startEngine({ backend: envValue(BACKEND_DEFAULT), kernels: "tfjs" });
    const report = exportModel({ ...o, progress: quietClock(process.stderr) });
    process.stdout.write(json ? toJson(report) : formatExport(report) + "\n");
  },
};
