// `tinylab lab`: builds the web page (web/, with Vite) and serves it on localhost, cross-origin isolated so wasm can
// run threads. The page computes everything itself, in the browser; this command only builds and hands out files.
import type { CommandModule } from "yargs";
import { LAB_DEFAULTS as d } from "../../../experiments/options.ts";
import { optionValues, withOptions, type OptionTable } from "../options.ts";

/** lab's options and their defaults (experiments/options.ts LAB_DEFAULTS). */
export const LAB_OPTIONS = { port: d.port, out: d.out, "build-only": false } satisfies OptionTable;

export const labCommand: CommandModule = {
  command: "lab",
  describe: "Build the lab web page (overfit, gradcheck, re-score, report viewer in the browser) and serve it on localhost",
  builder: (y) =>
    withOptions(y, LAB_OPTIONS, {
      out: "directory the page is built into and served from (emptied first, and refused if it holds anything but a lab build); locked while it is built and served",
    }),
  handler: async (argv) => {
    const { runLab } = await import("../lab_server.ts");
    const { out, port, buildOnly } = optionValues(argv, LAB_OPTIONS);
    await runLab(out, port, buildOnly, (line) => console.log(line));
  },
};
