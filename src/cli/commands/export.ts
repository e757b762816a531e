// `tinylab export`: write a model file in another library's layout (experiments/export.ts). Parses, calls, prints.
// Starts no engine: the model file is decoded and validated, never built into a model.
import type { CommandModule } from "yargs";
import type { ExportFormat } from "../../../experiments/options.ts";
import { withOptions } from "../options.ts";

export const exportCommand: CommandModule = {
  command: "export",
  describe: "Write a model file as a Hugging Face GPT-2 directory with its ONNX graph (transformers.js loads it), or as the ONNX graph alone",
  builder: (y) =>
    withOptions(y, { format: undefined, model: undefined, out: undefined, json: false }, {
      out: "directory to write (absent, empty, or a previous export; anything else is refused)",
    }).demandOption(["format", "model", "out"]),
  handler: async (argv) => {
    const { checkOutputDir } = await import("../../node/disk.ts");
    checkOutputDir(argv.out as string, "--out"); // before the recipe (and tfjs's modules) load
    const [{ toJson }, { exportModel }, { formatExport }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/export.ts"), import("../views/export.ts"),
    ]);
    const report = exportModel({ model: argv.model as string, out: argv.out as string, format: argv.format as ExportFormat });
    process.stdout.write(argv.json ? toJson(report) : formatExport(report) + "\n");
  },
};
