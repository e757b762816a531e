// The `tinylab` program: yargs over the commands, and every refusal as one line with its exit code. It does not
// start itself (main.ts, the entry point, does), so a test can run a command line in its own process.
import yargs, { type CommandModule } from "yargs";
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
import { sweepCommand } from "./commands/sweep.ts";
import { refuseRepeatedOptions } from "./options.ts";

/** Every command, in --help's order. */
export const COMMANDS: readonly CommandModule[] = [
  overfitCommand,
  trainCommand,
  evaluateCommand,
  gradcheckCommand,
  cyclicCommand,
  baselinesCommand,
  reportCommand,
  brownCommand,
  exportCommand,
  sweepCommand,
  compareCommand,
  sampleCommand,
  choiceCommand,
  canaryCommand,
  labCommand,
];

/** A command line yargs refused (unknown option, missing value): exit status 2, as for any usage error. */
class UsageError extends Error {}

export async function main(argv: string[]): Promise<void> {
  refuseRepeatedOptions(argv);
  const cli = yargs(argv)
    .scriptName("tinylab")
    .usage("$0 <command> [options]\n\nA small GPT-style decoder on TensorFlow.js, trained and evaluated honestly.")
    .strict()
    .demandCommand(1, `name a command: ${COMMANDS.map((c) => String(c.command)).join(", ")}`)
    .recommendCommands()
    .help()
    .alias("h", "help")
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, err) => {
      if (err) throw err;
      // a sweep's recipe options (e.g. --text) belong after --, where the sweep passes them on unread
      const hint =
        argv[0] === "sweep" && /^Unknown arguments?:/.test(msg)
          ? "; a recipe's own options go after --, e.g. tinylab sweep train --grid lr=1e-3,3e-3 -- --text FILE"
          : "";
      throw new UsageError(`${msg}${hint} (run tinylab --help for usage)`);
    });
  for (const c of COMMANDS) cli.command(c);
  await cli.parseAsync();
}

/**
 * Run one command line; a refusal or failure is printed as one line and returned as the exit status (2 for
 * usage, 1 for anything else), undefined when the command ran to its end (its own process.exitCode stands).
 */
export async function run(argv: string[]): Promise<number | undefined> {
  try {
    await main(argv);
    return undefined;
  } catch (err) {
    // one readable line, not a stack through minified wasm glue; TINYLAB_DEBUG=1 shows the stack
    const e = err as Error;
    console.error(`tinylab: error: ${e?.message ?? String(err)}`); // one line, like every other refusal
    if (process.env.TINYLAB_DEBUG && !(err instanceof UsageError)) console.error(e?.stack);
    return err instanceof UsageError ? 2 : 1;
  }
}
