// `tinylab lab`: builds the web page (web/, with Vite) and serves it on localhost, cross-origin isolated so wasm can
// run threads. The page computes everything itself, in the browser; this command only builds and hands out files.
import type { CommandModule } from "yargs";
import { withOptions } from "../options.ts";

export const LAB_DEFAULTS = { port: 8316, out: "results/lab" };

export const labCommand: CommandModule = {
  command: "lab",
  describe: "Build the lab web page (overfit, gradcheck, re-score, report viewer in the browser) and serve it on localhost",
  builder: (y) =>
    withOptions(y, { port: LAB_DEFAULTS.port, out: LAB_DEFAULTS.out, "build-only": false }, {
      out: "directory the page is built into and served from (emptied first, and refused if it holds anything but a lab build)",
    }),
  handler: async (argv) => {
    const { buildLab, checkLabOut, serveLab } = await import("../lab_server.ts");
    const out = argv.out as string;
    checkLabOut(out);
    await buildLab(out);
    console.log(`built the lab page → ${out}`);
    if (argv["build-only"]) return;
    const server = await serveLab(out, argv.port as number);
    console.log(`serving ${out} at ${server.url}`);
    console.log("  cross-origin isolated (COOP same-origin, COEP require-corp): wasm threads on where the browser allows; everything is computed in the page");
    console.log("  Ctrl-C stops the server");
  },
};
