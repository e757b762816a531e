// `tinylab sweep` as a recipe: one recipe (overfit, cyclic, train) over seeds and a grid of one or two options:
// the plan (a run folder and a command line per grid point and seed) and what each recipe's result holds. The
// processes and the reading back are src/node/sweep_runner.ts's (a Slurm job array: sweep_slurm.ts); also `--collect`
// over directories made elsewhere.
import { absolutePath } from "../src/node/disk.ts";
import { arr, int, nullable, num, obj, optional } from "../src/util/formats/schema.ts";
import { runSweep as runRuns, runTask, type SweepOptions } from "../src/node/sweep_runner.ts";
import { collectSweep as collectRuns, type ResultReader, type SweepRow } from "../src/node/sweep_results.ts";
import { runSlurmSweep as runSlurm, type SlurmSweepOptions } from "../src/node/sweep_slurm.ts";
import type { SweepRecipe } from "./options.ts";
import type { ProgressStream } from "../src/util/runtime/progress.ts";

export type { SweepRow };

/** Why a train run has no train NLL: a null is never left without its reason (sweep.json and the table). */
const TRAIN_NLL_REASON = "train scores the validation split only; its training loss is each update's own batch, not the train split";

/** A score a run's result holds: a finite NLL (each result file's own schema says where). */
const NLL = num({ min: 0 });
const OPEN = { open: true };
const scoreAt = obj({ nll: NLL }, OPEN);

/**
 * What the sweep knows of each recipe: how a seed is given, where its results go, the part of the result file it
 * reads (a schema: other fields are the recipe's own) and the numbers it takes from it.
 */
export const SWEEP_RECIPES = {
  overfit: {
    seed: (s: number) => ["--seeds", String(s)],
    out: ["--out", "."],
    result: "overfit.json",
    schema: obj(
      {
        options: obj({ seeds: arr(int(), { min: 1 }) }, OPEN),
        runs: arr(obj({ checkpoints: arr(obj({ train: scoreAt, validation: scoreAt }, OPEN), { min: 1 }) }, OPEN), { min: 1 }),
      },
      OPEN,
    ),
    read: (j: any) => ({
      seed: j.options.seeds[0],
      train_nll: j.runs[0].checkpoints.at(-1).train.nll,
      validation_nll: j.runs[0].checkpoints.at(-1).validation.nll,
    }),
  },
  cyclic: {
    seed: (s: number) => ["--seed", String(s)],
    out: ["--out", "."],
    result: "cyclic.json",
    schema: obj(
      { options: obj({ seed: int() }, OPEN), scores: obj({ train: arr(scoreAt, { min: 1 }), validation: arr(scoreAt, { min: 1 }) }, OPEN) },
      OPEN,
    ),
    read: (j: any) => ({ seed: j.options.seed, train_nll: j.scores.train[0].nll, validation_nll: j.scores.validation[0].nll }),
  },
  train: {
    seed: (s: number) => ["--seed", String(s)],
    out: ["--out", ".", "--json"],
    result: "train.json",
    schema: obj({ options: obj({ seed: int() }, OPEN), validation: optional(nullable(scoreAt)) }, OPEN),
    read: (j: any) => ({
      seed: j.options.seed,
      train_nll: null,
      train_nll_reason: TRAIN_NLL_REASON,
      validation_nll: j.validation?.nll ?? null,
      ...(j.validation ? {} : { validation_nll_reason: "the run scored no validation (it needs --eval-every)" }),
    }),
  },
} as const satisfies Record<SweepRecipe, ResultReader & { seed: (s: number) => string[]; out: readonly string[] }>;

/** Options of the recipes that name an input file: made absolute, since every run works in its own directory. */
const PATH_OPTIONS = new Set(["--text", "--data", "--split-file", "--model"]);

/** Options of the recipes that name a file the run writes: each must stay inside the run's folder, which the sweep owns. */
const OUTPUT_PATH_OPTIONS = new Set(["--save-model"]);

/**
 * A recipe's command line with every `--name=value` word split into `--name value`, as yargs reads both: the
 * sweep's checks (a path made absolute, an output path confined, an option it sets itself) then see one spelling.
 */
export const splitOptionValues = (args: readonly string[]): string[] =>
  args.flatMap((a) => {
    const m = /^(--[a-zA-Z][a-zA-Z0-9-]*)=([\s\S]*)$/.exec(a);
    return m ? [m[1], m[2]] : [a];
  });

/** Refuse a path a run would write outside its folder: absolute, or climbing out with `..`. */
function confinedToRun(where: string, option: string, v: string): void {
  if (v.startsWith("/") || v.split(/[\\/]/).includes("..")) {
    throw new Error(
      `${where} ${option} ${v}: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors`,
    );
  }
}

/**
 * A grid value as part of a run folder's name: every character but letters, digits and `.-_~` percent-encoded,
 * so `/`, `..` runs, `,` and `=` can never leave --out or be mistaken for the name's own separators.
 */
export const encodeNamePart = (v: string): string =>
  encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Longest run folder name: a file name's 255 bytes, less the `.done.json` the sweep writes beside it. */
export const MAX_RUN_NAME_BYTES = 255 - ".done.json".length;

export interface PlannedRun {
  /** The run's directory under --out, e.g. `lr=0.001,seed=39`: grid values then the seed. */
  name: string;
  seed: number;
  grid: Record<string, string>;
  /** The recipe's command line, as the run's process receives it (and as a job array would give it). */
  args: string[];
}

/** `lr=1e-3,3e-3` or `lr=1e-3,3e-3 batch-rows=4,8`: one or two options, each with its values. */
export function parseGrid(spec: string): [string, string[]][] {
  const axes = spec
    .trim()
    .split(/\s+/)
    .map((part) => {
      const m = /^([a-z][a-z0-9-]*)=(.+)$/.exec(part);
      if (!m) throw new Error(`--grid: "${part}" is not name=v1,v2 (e.g. lr=1e-3,3e-3)`);
      const values = m[2].split(",");
      const empty = values.indexOf("");
      if (empty !== -1)
        throw new Error(`--grid: ${m[1]}: value ${empty + 1} of "${m[2]}" is empty; give each value once, separated by single commas`);
      if (new Set(values).size !== values.length) throw new Error(`--grid: ${m[1]} repeats a value`);
      return [m[1], values] as [string, string[]];
    });
  if (axes.length > 2) throw new Error(`--grid takes one or two options, got ${axes.length}`);
  if (axes.length === 2 && axes[0][0] === axes[1][0]) throw new Error(`--grid: ${axes[0][0]} is given twice`);
  for (const [name] of axes)
    if (["seed", "seeds", "out", "json", "resume"].includes(name)) throw new Error(`--grid: --${name} is set by the sweep itself`);
  return axes;
}

/** Every grid point × every seed, in that order (the order of the table and the JSON). */
export function planSweep(
  recipe: SweepRecipe,
  seeds: readonly number[],
  grid: readonly [string, string[]][],
  given: readonly string[],
): PlannedRun[] {
  const r = SWEEP_RECIPES[recipe];
  const extra = splitOptionValues(given);
  for (const [i, a] of extra.entries()) if (i > 0 && OUTPUT_PATH_OPTIONS.has(extra[i - 1])) confinedToRun("after --,", extra[i - 1], a);
  for (const [name, values] of grid)
    if (OUTPUT_PATH_OPTIONS.has(`--${name}`)) for (const v of values) confinedToRun("--grid", `--${name}`, v);
  const extraAbs = extra.map((a, i) => (i > 0 && PATH_OPTIONS.has(extra[i - 1]) ? absolutePath(a) : a));
  for (const [name] of grid) if (extra.includes(`--${name}`)) throw new Error(`--grid sets --${name}, which is also given after --`);
  let points: Record<string, string>[] = [{}];
  for (const [name, values] of grid) points = points.flatMap((p) => values.map((v) => ({ ...p, [name]: v })));
  return points.flatMap((g) =>
    seeds.map((seed) => {
      const name = [...Object.entries(g).map(([k, v]) => `${k}=${encodeNamePart(v)}`), `seed=${seed}`].join(",");
      if (new TextEncoder().encode(name).length > MAX_RUN_NAME_BYTES)
        throw new Error(
          `--grid: the run folder name ${name.slice(0, 40)}… is longer than the ${MAX_RUN_NAME_BYTES} bytes a name may be (MAX_RUN_NAME_BYTES)`,
        );
      const value = (k: string, v: string) => (PATH_OPTIONS.has(`--${k}`) ? absolutePath(v) : v);
      return {
        name,
        seed,
        grid: g,
        args: [recipe, ...r.seed(seed), ...Object.entries(g).flatMap(([k, v]) => [`--${k}`, value(k, v)]), ...extraAbs, ...r.out],
      };
    }),
  );
}

/** Run the plan's unfinished runs (src/node/sweep_runner.ts) and read every row back with the recipes' readers. */
export const runSweep = (o: Omit<SweepOptions, "recipes"> & { recipe: SweepRecipe }) => runRuns({ ...o, recipes: SWEEP_RECIPES });

/** Submit the plan's unfinished runs as one Slurm job array (src/node/sweep_slurm.ts) and read every row back. */
export const runSlurmSweep = (o: Omit<SlurmSweepOptions, "recipes" | "recipe"> & { recipe: SweepRecipe }) =>
  runSlurm({ ...o, recipes: SWEEP_RECIPES });

export { runTask };

/** Rows of every finished run folder under `dir`, whichever recipe made it. */
export const collectSweep = (dir: string, progress?: ProgressStream): SweepRow[] => collectRuns(dir, SWEEP_RECIPES, progress);
