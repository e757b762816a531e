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
      out: "directory the page is built into and served from (emptied first, and refused if it holds anything but a lab build)",
    }),
  handler: async (argv) => {
    const { buildLab, checkLabOut, serveLab } = await import("../lab_server.ts");
    const { out, port, buildOnly } = optionValues(argv, LAB_OPTIONS);
    checkLabOut(out);
    await buildLab(out);
    console.log(`built the lab page → ${out}`);
    if (buildOnly) return;
    const server = await serveLab(out, port);
    console.log(`serving ${out} at ${server.url}`);
    console.log("  cross-origin isolated (COOP same-origin, COEP require-corp): wasm threads on where the browser allows; everything is computed in the page");
    console.log("  Ctrl-C stops the server");
  },
};
