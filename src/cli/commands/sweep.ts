// `tinylab sweep`: a recipe over --seeds and a --grid of one or two options, spread over --jobs processes, one
// directory per run under --out; or --collect DIR over run directories made elsewhere (experiments/sweep.ts).
// Parses, calls, prints.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { backendDefault, nearestOption, RENAMED_OPTIONS, withOptions } from "../options.ts";
import { SWEEP_RECIPE_NAMES, type SweepRecipe } from "../../../experiments/options.ts";

const RECIPES: readonly string[] = SWEEP_RECIPE_NAMES;

export const sweepCommand: CommandModule = {
  command: "sweep [recipe]",
  describe: `Run a recipe (${RECIPES.join(", ")}) over seeds and a grid of options in parallel processes; one table and JSON across runs`,
  builder: (y) =>
    withOptions(y.positional("recipe", { type: "string", describe: `the recipe each run does: ${RECIPES.join(", ")}; its own options go after --` }), {
      seeds: "39,40,41", grid: undefined, jobs: undefined, out: "results/sweep", collect: undefined, json: false, backend: backendDefault(),
    }, {
      jobs: `runs at once, each its own process (default: this machine's ${availableParallelism()} cores)`,
      out: "output directory: one directory per run (named like lr=0.001,seed=39), its .log and .done.json, and sweep.json",
      backend: "tfjs backend of every run (passed to the runs as TINYLAB_BACKEND)",
    }).example("$0 sweep overfit --seeds 39,40,41 --jobs 2 --out results/sweep", "three seeds of the overfit experiment, two at a time")
      .example("$0 sweep train --grid lr=1e-3,3e-3 --seeds 1,2 -- --text story.txt --updates 500", "a 2 × 2 sweep of train --text"),
  handler: async (argv) => {
    const [{ collectSweep, parseGrid, planSweep, runSweep }, { formatSweep }, { toJson, writeOutput }, { checkOutputDir }, { provenance }, { INTERRUPTED_EXIT_CODE }] = await Promise.all([
      import("../../../experiments/sweep.ts"), import("../views/sweep.ts"), import("../common.ts"), import("../../node/disk.ts"), import("../../util/provenance.ts"), import("../interrupt.ts"),
    ]);
    const dashes = process.argv.indexOf("--");
    const extra = dashes === -1 ? [] : process.argv.slice(dashes + 1);
    const log = (line: string) => (argv.json ? console.error(line) : console.log(line));
    const finish = (recipe: string, rows: ReturnType<typeof collectSweep>, dir: string) => {
      const json = toJson({ experiment: "sweep", recipe, runs: rows, provenance: provenance() });
      if (argv.json) process.stdout.write(json);
      else console.log(formatSweep(rows));
      writeOutput(join(dir, "sweep.json"), json);
      log(`\nwrote ${join(dir, "sweep.json")}`);
    };
    if (argv.collect) {
      if (argv.recipe || argv.grid || extra.length > 0) throw new Error("--collect DIR merges finished runs: it takes no recipe, --grid or recipe options");
      const rows = collectSweep(argv.collect as string);
      finish([...new Set(rows.map((r) => r.recipe))].join(","), rows, argv.collect as string);
      return;
    }
    const recipe = argv.recipe as string | undefined;
    if (!recipe || !RECIPES.includes(recipe)) throw new Error(`sweep: name the recipe, one of ${RECIPES.join(", ")} (got ${recipe === undefined ? "none" : JSON.stringify(recipe)})`);
    if (recipe === "train" && !extra.includes("--text")) throw new Error("sweep train runs train --text: give it after --, e.g. -- --text story.txt");
    const grid = argv.grid ? parseGrid(argv.grid as string) : [];
    // a grid value is refused here, by its option's own parser, before any run starts
    const { default: yargs } = await import("yargs");
    const taken = await recipeOptions(recipe);
    for (const [name] of grid) {
      if (taken.includes(name)) continue;
      const near = nearestOption(name);
      throw new Error(`--grid ${name}: ${recipe} has no option --${name}${near ? ` (did you mean --${near}?)` : ""}; it takes ${taken.map((o) => `--${o}`).join(", ")}`);
    }
    for (const [name, values] of grid) {
      for (const v of values) withOptions(yargs(), { [name]: undefined } as never).strict().exitProcess(false).fail((msg, err) => { throw err ?? new Error(`--grid ${name}: ${msg}`); }).parseSync([`--${name}`, v]);
    }
    const out = argv.out as string;
    checkOutputDir(out, "--out");
    const runs = planSweep(recipe as never, argv.seeds as number[], grid, extra);
    const jobs = (argv.jobs as number | undefined) ?? availableParallelism();
    process.env.TINYLAB_BACKEND = argv.backend as string;
    log(`sweep: ${recipe} × ${runs.length} runs (${grid.map(([k, v]) => `${k} ∈ {${v.join(", ")}}`).concat(`seeds ${(argv.seeds as number[]).join(",")}`).join(" × ")}), ${jobs} at a time, into ${out}`);
    let stopRuns: (() => void) | undefined;
    const onSigint = () => {
      log("tinylab: interrupt: stopping the running runs (they are started again on the next sweep)");
      stopRuns?.();
    };
    // a terminal closing or a kill stops the runs as Ctrl-C does: no run outlives the sweep
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const sig of signals) process.once(sig, onSigint);
    try {
      const r = await runSweep({ recipe: recipe as never, runs, out, jobs, log, onInterrupt: (stop) => { stopRuns = stop; } });
      if (r.interrupted) {
        console.error(`tinylab: sweep interrupted; finished runs are kept in ${out} (run the same command to continue)`);
        process.exitCode = INTERRUPTED_EXIT_CODE;
        return;
      }
      finish(recipe, r.rows, out);
    } finally {
      for (const sig of signals) process.removeListener(sig, onSigint);
    }
  },
};

/** The options a recipe's own command takes that a grid may vary (not those the sweep sets itself). */
async function recipeOptions(recipe: string): Promise<string[]> {
  const [{ default: yargs }, modules] = await Promise.all([import("yargs"), Promise.all([import("./overfit.ts"), import("./cyclic.ts"), import("./train.ts")])]);
  const command = ({ overfit: modules[0].overfitCommand, cyclic: modules[1].cyclicCommand, train: modules[2].trainCommand } satisfies Record<SweepRecipe, CommandModule>)[recipe as SweepRecipe];
  const y = yargs([]);
  (command.builder as (y: unknown) => unknown)(y);
  const own = ["help", "version", "seed", "seeds", "out", "json", "resume", ...Object.keys(RENAMED_OPTIONS)];
  return Object.keys((y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key).filter((k) => !own.includes(k) && !/[A-Z]/.test(k)).sort();
}
