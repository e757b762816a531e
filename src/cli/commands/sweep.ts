// `tinylab sweep`: a recipe over --seeds and a --grid of one or two options, spread over --jobs processes, one
// directory per run under --out; or --collect DIR over run directories made elsewhere (experiments/sweep.ts).
// Parses, calls, prints.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { backendDefault, isOptionName, nearestOption, optionValues, parseOptionText, positional, withOptions, type OptionTable } from "../options.ts";
import { SWEEP_RECIPE_NAMES, type SweepRecipe } from "../../../experiments/options.ts";
import { OVERFIT_OPTIONS } from "./overfit.ts";
import { CYCLIC_OPTIONS } from "./cyclic.ts";
import { TRAIN_OPTIONS } from "./train.ts";

const RECIPES: readonly string[] = SWEEP_RECIPE_NAMES;
/** Each recipe's own option table: what a --grid may vary (less what the sweep sets for every run). */
const RECIPE_OPTIONS = { overfit: OVERFIT_OPTIONS, cyclic: CYCLIC_OPTIONS, train: TRAIN_OPTIONS } satisfies Record<SweepRecipe, OptionTable>;
/** Options the sweep sets in every run itself. */
const SET_BY_SWEEP = ["seed", "seeds", "out", "json", "resume"];

/** sweep's options and their defaults. */
export const SWEEP_OPTIONS = { seeds: "39,40,41", grid: undefined, jobs: undefined, out: "results/sweep", collect: undefined, json: false, backend: backendDefault() } satisfies OptionTable;

export const sweepCommand: CommandModule = {
  command: "sweep [recipe]",
  describe: `Run a recipe (${RECIPES.join(", ")}) over seeds and a grid of options in parallel processes; one table and JSON across runs`,
  builder: (y) =>
    withOptions(y.positional("recipe", { type: "string", describe: `the recipe each run does: ${RECIPES.join(", ")}; its own options go after --` }), SWEEP_OPTIONS, {
      jobs: `runs at once, each its own process (default: this machine's ${availableParallelism()} cores)`,
      out: "output directory: one directory per run (named like lr=0.001,seed=39), its .log and .done.json, and sweep.json",
      backend: "tfjs backend of every run (passed to each as --backend, unless the --grid varies it)",
    }).example("$0 sweep overfit --seeds 39,40,41 --jobs 2 --out results/sweep", "three seeds of the overfit experiment, two at a time")
      .example("$0 sweep train --grid lr=1e-3,3e-3 --seeds 1,2 -- --text story.txt --updates 500", "a 2 × 2 sweep of train --text"),
  handler: async (argv) => {
    const [{ collectSweep, parseGrid, planSweep, runSweep }, { formatSweep }, { toJson, writeOutput }, { checkOutputDir }, { provenance }, { INTERRUPTED_EXIT_CODE }] = await Promise.all([
      import("../../../experiments/sweep.ts"), import("../views/sweep.ts"), import("../common.ts"), import("../../node/disk.ts"), import("../../util/provenance.ts"), import("../interrupt.ts"),
    ]);
    const { collect, grid: gridText, jobs: jobsGiven, out, seeds, json, backend } = optionValues(argv, SWEEP_OPTIONS);
    const recipe = positional(argv, "recipe");
    const dashes = process.argv.indexOf("--");
    const extra = dashes === -1 ? [] : process.argv.slice(dashes + 1);
    const log = (line: string) => (json ? console.error(line) : console.log(line));
    const finish = (name: string, rows: ReturnType<typeof collectSweep>, dir: string) => {
      const text = toJson({ experiment: "sweep", recipe: name, runs: rows, provenance: provenance() });
      if (json) process.stdout.write(text);
      else console.log(formatSweep(rows));
      writeOutput(join(dir, "sweep.json"), text);
      log(`\nwrote ${join(dir, "sweep.json")}`);
    };
    if (collect) {
      if (recipe || gridText || extra.length > 0) throw new Error("--collect DIR merges finished runs: it takes no recipe, --grid or recipe options");
      const rows = collectSweep(collect, process.stderr);
      finish([...new Set(rows.map((r) => r.recipe))].join(","), rows, collect);
      return;
    }
    if (!isRecipe(recipe)) throw new Error(`sweep: name the recipe, one of ${RECIPES.join(", ")} (got ${recipe === undefined ? "none" : JSON.stringify(recipe)})`);
    if (recipe === "train" && !extra.includes("--text")) throw new Error("sweep train runs train --text: give it after --, e.g. -- --text story.txt");
    if (extra.includes("--backend")) throw new Error("--backend is the sweep's own option (every run gets it): give it before --, or vary it with --grid");
    const grid = gridText ? parseGrid(gridText) : [];
    // a grid value is refused here, by its option's own parser, before any run starts
    const taken = Object.keys(RECIPE_OPTIONS[recipe]).filter((k) => !SET_BY_SWEEP.includes(k)).sort();
    for (const [name, values] of grid) {
      if (!taken.includes(name) || !isOptionName(name)) {
        const near = nearestOption(name);
        throw new Error(`--grid ${name}: ${recipe} has no option --${name}${near ? ` (did you mean --${near}?)` : ""}; it takes ${taken.map((o) => `--${o}`).join(", ")}`);
      }
      for (const v of values) parseOptionText(name, v);
    }
    checkOutputDir(out, "--out");
    const engine = grid.some(([name]) => name === "backend") ? [] : ["--backend", backend];
    const runs = planSweep(recipe, seeds, grid, [...extra, ...engine]);
    const jobs = jobsGiven ?? availableParallelism();
    log(`sweep: ${recipe} × ${runs.length} runs (${grid.map(([k, v]) => `${k} ∈ {${v.join(", ")}}`).concat(`seeds ${seeds.join(",")}`).join(" × ")}), ${jobs} at a time, into ${out}`);
    let stopRuns: (() => void) | undefined;
    const onSigint = () => {
      log("tinylab: interrupt: stopping the running runs (they are started again on the next sweep)");
      stopRuns?.();
    };
    // a terminal closing or a kill stops the runs as Ctrl-C does: no run outlives the sweep
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const sig of signals) process.once(sig, onSigint);
    try {
      const r = await runSweep({ recipe, runs, out, jobs, log, onInterrupt: (stop) => { stopRuns = stop; } });
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

const isRecipe = (name: string | undefined): name is SweepRecipe => name !== undefined && RECIPES.includes(name);
