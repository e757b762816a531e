// `tinylab sweep`: a recipe over --seeds and a --grid of one or two options, spread over --jobs processes, one
// directory per run under --out; or --collect DIR over run directories made elsewhere (experiments/sweep.ts).
// Parses, calls, prints.
import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve as absolutePath } from "node:path";
import type { CommandModule } from "yargs";
import {
  BACKEND_DEFAULT,
  isOptionName,
  nearestOption,
  optionValues,
  parseOptionText,
  positional,
  withOptions,
  type OptionTable,
} from "../options.ts";
import { SWEEP_RECIPE_NAMES, type SweepRecipe } from "../../../experiments/options.ts";
import { defaultOf } from "../../../experiments/option_catalogue.ts";
import { OVERFIT_OPTIONS } from "./overfit.ts";
import { CYCLIC_OPTIONS } from "./cyclic.ts";
import { TRAIN_OPTIONS } from "./train.ts";
import type { OutputDir, OutputKind } from "../../node/output_dir.ts";

const RECIPES: readonly string[] = SWEEP_RECIPE_NAMES;
/** Each recipe's own option table: what a --grid may vary (less what the sweep sets for every run). */
const RECIPE_OPTIONS = { overfit: OVERFIT_OPTIONS, cyclic: CYCLIC_OPTIONS, train: TRAIN_OPTIONS } satisfies Record<
  SweepRecipe,
  OptionTable
>;
/** Options the sweep sets in every run itself, and --overwrite, which means nothing in a run's own new folder. */
const SET_BY_SWEEP = ["seed", "seeds", "out", "json", "resume", "overwrite"];

/** sweep's options and their defaults. */
export const SWEEP_OPTIONS = {
  seeds: defaultOf("seeds", "sweep").join(","),
  grid: undefined,
  jobs: undefined,
  out: defaultOf("out", "sweep"),
  collect: undefined,
  scheduler: defaultOf("scheduler", "sweep"),
  sbatch: undefined,
  plan: false,
  task: undefined,
  json: false,
  backend: BACKEND_DEFAULT,
} satisfies OptionTable;

export const sweepCommand: CommandModule = {
  command: "sweep [recipe]",
  describe: `Run a recipe (${RECIPES.join(", ")}) over seeds and a grid of options in parallel processes; one table and JSON across runs`,
  builder: (y) =>
    withOptions(
      y.positional("recipe", { type: "string", describe: `the recipe each run does: ${RECIPES.join(", ")}; its own options go after --` }),
      SWEEP_OPTIONS,
      {
        jobs: `runs at once, each its own process (default: this machine's ${availableParallelism()} cores; with --scheduler slurm: the array's %N, default no cap but the site's)`,
        out: "output directory: one directory per run (named like lr=0.001,seed=39), its .log, its .done.json once finished and its .lock while a task holds it, sweep.json with sweep.csv (the table for a spreadsheet), and with --scheduler slurm each task's slurm-JOB_TASK.out",
        backend: "tfjs backend of every run (passed to each as --backend, unless the --grid varies it)",
      },
    )
      .example("$0 sweep overfit --seeds 39,40,41 --jobs 2 --out results/sweep", "three seeds of the overfit experiment, two at a time")
      .example("$0 sweep train --grid lr=1e-3,3e-3 --seeds 1,2 -- --text story.txt --updates 500", "a 2 × 2 sweep of train --text")
      .example(
        "$0 sweep overfit --scheduler slurm --jobs 8 --sbatch 'partition=cpu time=0:10:00'",
        "the same runs as one Slurm job array, 8 at a time",
      )
      .example("$0 sweep overfit --task env", "entry $SLURM_ARRAY_TASK_ID (or $JOB_COMPLETION_INDEX) of the plan, in a job array's task"),
  handler: async (argv) => {
    const [
      { collectSweep, parseGrid, planSweep, runSlurmSweep, runSweep, runTask, splitOptionValues },
      { formatSweep, sweepCsv },
      { toJson },
      { provenance },
      { tfjsOnly },
      { INTERRUPTED_EXIT_CODE },
      { BIN, SWEEP_KIND },
      { claimOutputDir },
    ] = await Promise.all([
      import("../../../experiments/sweep.ts"),
      import("../views/sweep.ts"),
      import("../common.ts"),
      import("../../util/runtime/provenance.ts"),
      import("../../util/backend.ts"),
      import("../interrupt.ts"),
      import("../../node/sweep_runner.ts"),
      import("../../node/output_dir.ts"),
    ]);
    const { checkOutputDir } = await import("../../node/writable.ts");
    const {
      collect,
      grid: gridText,
      jobs: jobsGiven,
      out,
      seeds,
      json,
      backend,
      scheduler,
      sbatch,
      plan: planOnly,
      task,
    } = optionValues(argv, SWEEP_OPTIONS);
    const recipe = positional(argv, "recipe");
    const dashes = process.argv.indexOf("--");
    // --text=story.txt read as --text story.txt, so every check below sees one spelling of each option
    const extra = dashes === -1 ? [] : splitOptionValues(process.argv.slice(dashes + 1));
    const log = (line: string) => (json ? console.error(line) : console.log(line));
    const finish = (name: string, rows: ReturnType<typeof collectSweep>, outputs: OutputDir) => {
      const text = toJson({ experiment: "sweep", recipe: name, runs: rows, provenance: provenance(tfjsOnly()) }); // the sweep computes nothing itself: each run records its own engine
      if (json) process.stdout.write(text);
      else console.log(formatSweep(rows));
      log(`\nwrote ${outputs.write("sweep.json", text)}\nwrote ${outputs.write("sweep.csv", sweepCsv(rows))}`);
    };
    // sweep.json is written under the directory's lock (a sweep running there is refused), never through a link
    const claim = (dir: string, option: string, kind: OutputKind) =>
      claimOutputDir(dir, { option, what: "sweep directory", kind, replace: true });
    const finishInto = (
      dir: string,
      option: string,
      kind: OutputKind,
      name: string | undefined,
      rowsOf: () => ReturnType<typeof collectSweep>,
    ) => {
      const outputs = claim(dir, option, kind);
      try {
        const rows = rowsOf();
        finish(name ?? [...new Set(rows.map((r) => r.recipe))].join(","), rows, outputs);
      } finally {
        outputs.release();
      }
    };
    const slurm = scheduler === "slurm";
    if (sbatch && !slurm) throw new Error("--sbatch passes options to Slurm's sbatch: give it with --scheduler slurm");
    if (
      [collect && "--collect", planOnly && "--plan", task !== undefined && "--task", slurm && "--scheduler slurm"].filter(Boolean).length >
      1
    ) {
      throw new Error("--collect, --plan, --task and --scheduler slurm are separate ways to use the sweep: give one of them");
    }
    if (collect) {
      if (recipe || gridText || extra.length > 0)
        throw new Error("--collect DIR merges finished runs: it takes no recipe, --grid or recipe options");
      if (!statSync(collect, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--collect: not a directory: ${collect}`);
      // a folder --collect reads was laid out elsewhere (job arrays): it may hold their files too
      finishInto(collect, "--collect", { ...SWEEP_KIND, accepts: () => true }, undefined, () => collectSweep(collect, process.stderr));
      return;
    }
    if (!isRecipe(recipe))
      throw new Error(
        `sweep: name the recipe, one of ${RECIPES.join(", ")} (got ${recipe === undefined ? "none" : JSON.stringify(recipe)})`,
      );
    if (recipe === "train" && !extra.includes("--text"))
      throw new Error("sweep train runs train --text: give it after --, e.g. -- --text story.txt");
    if (extra.includes("--backend"))
      throw new Error("--backend is the sweep's own option (every run gets it): give it before --, or vary it with --grid");
    // a run writes into its own folder under --out: an --out (or a seed) after -- would name another
    const own = extra.find((a) => a.startsWith("--") && SET_BY_SWEEP.includes(a.slice(2)));
    if (own !== undefined)
      throw new Error(`${own} after -- is set by the sweep itself in every run (each writes into its folder under the sweep's --out)`);
    const grid = gridText ? parseGrid(gridText) : [];
    // a grid value is refused here, by its option's own parser, before any run starts
    const taken = Object.keys(RECIPE_OPTIONS[recipe])
      .filter((k) => !SET_BY_SWEEP.includes(k))
      .sort();
    for (const [name, values] of grid) {
      if (!taken.includes(name) || !isOptionName(name)) {
        const near = nearestOption(name);
        throw new Error(
          `--grid ${name}: ${recipe} has no option --${name}${near ? ` (did you mean --${near}?)` : ""}; it takes ${taken.map((o) => `--${o}`).join(", ")}`,
        );
      }
      for (const v of values) parseOptionText(name, v);
    }
    checkOutputDir(out, "--out");
    const engine = grid.some(([name]) => name === "backend") ? [] : ["--backend", backend];
    const runs = planSweep(recipe, seeds, grid, [...extra, ...engine]);
    if (planOnly) {
      printPlan(runs, recipe, out, json, toJson);
      return;
    }
    const index = task === "env" ? taskFromEnv(process.env) : task;
    const jobs = jobsGiven ?? availableParallelism();
    if (index === undefined) {
      const how = slurm ? `as one Slurm job array${jobsGiven ? `, ${jobsGiven} at a time` : ""}` : `${jobs} at a time`;
      log(
        `sweep: ${recipe} × ${runs.length} runs (${grid
          .map(([k, v]) => `${k} ∈ {${v.join(", ")}}`)
          .concat(`seeds ${seeds.join(",")}`)
          .join(" × ")}), ${how}, into ${out}`,
      );
    }
    let stopRuns: (() => void) | undefined;
    const onSigint = () => {
      log("tinylab: interrupt: stopping the running runs (they are started again on the next sweep)");
      stopRuns?.();
    };
    // a terminal closing or a kill stops the runs as Ctrl-C does: no run outlives the sweep
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const sig of signals) process.once(sig, onSigint);
    try {
      const onInterrupt = (stop: () => void) => {
        stopRuns = stop;
      };
      if (index !== undefined) {
        const t = await runTask({ runs, index, out, job: schedulerJob(process.env), log: (line) => console.error(line), onInterrupt });
        process.exitCode = t.code;
        return;
      }
      // each task runs this very sweep's entry I: the same plan, from the same folder and environment (sbatch's default --export=ALL)
      const taskCommand = [
        process.execPath,
        BIN,
        "sweep",
        recipe,
        "--seeds",
        seeds.join(","),
        ...(gridText ? ["--grid", gridText] : []),
        "--backend",
        backend,
        "--out",
        absolutePath(out),
        "--task",
        "env",
        ...(extra.length > 0 ? ["--", ...extra] : []),
      ];
      const r = slurm
        ? await runSlurmSweep({
            recipe,
            runs,
            out,
            throttle: jobsGiven,
            site: sbatch ?? [],
            taskCommand,
            log,
            progress: (line) => console.error(line),
            onInterrupt,
          })
        : await runSweep({ recipe, runs, out, jobs, log, onInterrupt });
      if (r.interrupted) {
        console.error(`tinylab: sweep interrupted; finished runs are kept in ${out} (run the same command to continue)`);
        process.exitCode = INTERRUPTED_EXIT_CODE;
        return;
      }
      finishInto(out, "--out", SWEEP_KIND, recipe, () => r.rows);
    } finally {
      for (const sig of signals) process.removeListener(sig, onSigint);
    }
  },
};

const isRecipe = (name: string | undefined): name is SweepRecipe => name !== undefined && RECIPES.includes(name);

/** The plan as a numbered list (entry I is what `--task I` runs), or as JSON with --json. */
function printPlan(
  runs: readonly { name: string; seed: number; grid: Record<string, string>; args: string[] }[],
  recipe: string,
  out: string,
  json: boolean,
  toJson: (v: unknown) => string,
): void {
  if (json) {
    process.stdout.write(toJson({ experiment: "sweep-plan", recipe, out, runs: runs.map((r, index) => ({ index, ...r })) }));
    return;
  }
  console.log(`sweep plan: ${recipe} × ${runs.length} runs into ${out}; entry I is what --task I runs`);
  const width = String(runs.length - 1).length;
  for (const [i, r] of runs.entries()) console.log(`${String(i).padStart(width)}  ${r.name}  tinylab ${r.args.join(" ")}`);
}

/** The plan entry a scheduler gives this task: $SLURM_ARRAY_TASK_ID or a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX. */
function taskFromEnv(env: NodeJS.ProcessEnv): number {
  const given = (["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] as const).filter((k) => env[k] !== undefined && env[k] !== "");
  if (given.length === 0)
    throw new Error("--task env: neither $SLURM_ARRAY_TASK_ID nor $JOB_COMPLETION_INDEX is set; give the entry itself, --task I");
  if (given.length === 2 && env[given[0]] !== env[given[1]])
    throw new Error(
      `--task env: $SLURM_ARRAY_TASK_ID is ${env.SLURM_ARRAY_TASK_ID} but $JOB_COMPLETION_INDEX is ${env.JOB_COMPLETION_INDEX}; give the entry itself, --task I`,
    );
  const v = env[given[0]]!;
  if (!/^\d+$/.test(v)) throw new Error(`--task env: $${given[0]} is ${JSON.stringify(v)}, not a plan entry (0, 1, …)`);
  return Number(v);
}

/**
 * The scheduler's name for this task, recorded in its run's claim and the same for every attempt at it: Slurm's
 * JOB_TASK, a Kubernetes Indexed Job's pod name less its random suffix (`JOB-INDEX`), or "" when started by hand.
 */
function schedulerJob(env: NodeJS.ProcessEnv): string {
  if (env.SLURM_ARRAY_JOB_ID && env.SLURM_ARRAY_TASK_ID) return `${env.SLURM_ARRAY_JOB_ID}_${env.SLURM_ARRAY_TASK_ID}`;
  if (env.SLURM_JOB_ID) return env.SLURM_JOB_ID;
  // an Indexed Job's pods are named JOB-INDEX-xxxxx, five random characters for each attempt
  return env.JOB_COMPLETION_INDEX !== undefined && env.HOSTNAME ? `pod ${env.HOSTNAME.replace(/^(.*-\d+)-[a-z0-9]{5}$/, "$1")}` : "";
}
