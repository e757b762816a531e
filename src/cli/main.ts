// The `tinylab` command line: a thin yargs layer over experiments and src/. Each command lives in commands/ and
// loads its recipe (and the engine) only when it runs, so `--help` never imports tfjs.
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { gradcheckCommand } from "./commands/gradcheck.ts";
import { overfitCommand } from "./commands/overfit.ts";
import { trainCommand } from "./commands/train.ts";
import { evaluateCommand } from "./commands/evaluate.ts";
import { cyclicCommand } from "./commands/cyclic.ts";
import { baselinesCommand } from "./commands/baselines.ts";
import { reportCommand } from "./commands/report.ts";
import { brownCommand } from "./commands/brown.ts";
import { exportCommand } from "./commands/export.ts";
import { compareCommand } from "./commands/compare.ts";
import { sampleCommand } from "./commands/sample.ts";
import { choiceCommand } from "./commands/choice.ts";
import { canaryCommand } from "./commands/canary.ts";
import { labCommand } from "./commands/lab.ts";
import { startAsSweepChild } from "../node/child_watch.ts";
import { sweepCommand } from "./commands/sweep.ts";
import { refuseRepeatedOptions } from "./options.ts";

const commands = [overfitCommand, trainCommand, evaluateCommand, gradcheckCommand, cyclicCommand, baselinesCommand, reportCommand, brownCommand, exportCommand, sweepCommand, compareCommand, sampleCommand, choiceCommand, canaryCommand, labCommand];

export async function main(argv: string[]): Promise<void> {
  refuseRepeatedOptions(argv);
  const cli = yargs(argv)
    .scriptName("tinylab")
    .usage("$0 <command> [options]\n\nA small GPT-style decoder on TensorFlow.js, trained and evaluated honestly.")
    .strict()
    .demandCommand(1, `name a command: ${commands.map((c) => String(c.command)).join(", ")}`)
    .recommendCommands()
    .help()
    .alias("h", "help")
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, err) => {
      if (err) throw err;
      // a sweep's recipe options (e.g. --text) belong after --, where the sweep passes them on unread
      const hint = argv[0] === "sweep" && /^Unknown arguments?:/.test(msg) ? "; a recipe's own options go after --, e.g. tinylab sweep train --grid lr=1e-3,3e-3 -- --text FILE" : "";
      console.error(`tinylab: error: ${msg}${hint} (run tinylab --help for usage)`); // one line, like every other refusal
      process.exit(2);
    });
  for (const c of commands) cli.command(c);
  await cli.parseAsync();
}

startAsSweepChild();
main(hideBin(process.argv)).catch((err: unknown) => {
  // one readable line, not a stack through minified wasm glue; TINYLAB_DEBUG=1 shows the stack
  const e = err as Error;
  console.error(`tinylab: error: ${e?.message ?? String(err)}`);
  if (process.env.TINYLAB_DEBUG) console.error(e?.stack);
  process.exit(1);
});
