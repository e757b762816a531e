// `tinylab sweep` as a recipe: one recipe (overfit, cyclic, train) over seeds and a grid of one or two options,
// each run its own `node bin/tinylab.js …` process in its own directory, --jobs at a time; finished runs are kept,
// results read back and merged in plan order (never arrival order). Also `--collect` over directories made elsewhere.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, openSync, closeSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "../src/util/atomic.ts";
import { ensureDir, readFileText } from "../src/util/disk.ts";
import { acquireLock, DIRECTORY_LOCK, lockDirectory, type Lock } from "../src/util/lock.ts";
import { SWEEP_PARENT_ENV, SWEEP_RUN_LOCK } from "../src/util/child_watch.ts";
import { arr, int, nullable, num, obj, optional, parseJsonFile, type Schema } from "../src/util/schema.ts";
import { SWEEP_RECIPE_NAMES, type SweepRecipe } from "./options.ts";

// bin/ from experiments/ or from its compiled copy in dist/experiments/
const BIN = resolve(import.meta.dirname, import.meta.url.endsWith(".ts") ? ".." : "../..", "bin/tinylab.js");

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
    seed: (s: number) => ["--seeds", String(s)], out: ["--out", "."], result: "overfit.json",
    schema: obj({ options: obj({ seeds: arr(int(), { min: 1 }) }, OPEN), runs: arr(obj({ checkpoints: arr(obj({ train: scoreAt, validation: scoreAt }, OPEN), { min: 1 }) }, OPEN), { min: 1 }) }, OPEN),
    read: (j: any) => ({ seed: j.options.seeds[0], train_nll: j.runs[0].checkpoints.at(-1).train.nll, validation_nll: j.runs[0].checkpoints.at(-1).validation.nll }),
  },
  cyclic: {
    seed: (s: number) => ["--seed", String(s)], out: ["--out", "."], result: "cyclic.json",
    schema: obj({ options: obj({ seed: int() }, OPEN), scores: obj({ train: arr(scoreAt, { min: 1 }), validation: arr(scoreAt, { min: 1 }) }, OPEN) }, OPEN),
    read: (j: any) => ({ seed: j.options.seed, train_nll: j.scores.train[0].nll, validation_nll: j.scores.validation[0].nll }),
  },
  train: {
    seed: (s: number) => ["--seed", String(s)], out: ["--out", ".", "--json"], result: "train.json",
    schema: obj({ options: obj({ seed: int() }, OPEN), validation: optional(nullable(scoreAt)) }, OPEN),
    read: (j: any) => ({
      seed: j.options.seed, train_nll: null, train_nll_reason: TRAIN_NLL_REASON, validation_nll: j.validation?.nll ?? null,
      ...(j.validation ? {} : { validation_nll_reason: "the run scored no validation (it needs --eval-every)" }),
    }),
  },
} as const satisfies Record<SweepRecipe, unknown>;

/** Options of the recipes that name an input file: made absolute, since every run works in its own directory. */
const PATH_OPTIONS = new Set(["--text", "--data", "--split-file", "--model"]);

/**
 * A grid value as part of a run folder's name: every character but letters, digits and `.-_~` percent-encoded,
 * so `/`, `..` runs, `,` and `=` can never leave --out or be mistaken for the name's own separators.
 */
export const encodeNamePart = (v: string): string => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Longest run folder name: a file name's 255 bytes, less the `.done.json` the sweep writes beside it. */
export const MAX_RUN_NAME_BYTES = 255 - ".done.json".length;

/** The folder a run's name gives under `out`, refused unless it is a direct child of it. */
function runDir(out: string, name: string): string {
  const dir = join(out, name);
  if (dirname(resolve(dir)) !== resolve(out) || basename(dir) !== name) throw new Error(`sweep: run name ${JSON.stringify(name)} is not a folder directly under ${out}`);
  return dir;
}

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
  const axes = spec.trim().split(/\s+/).map((part) => {
    const m = /^([a-z][a-z0-9-]*)=(.+)$/.exec(part);
    if (!m) throw new Error(`--grid: "${part}" is not name=v1,v2 (e.g. lr=1e-3,3e-3)`);
    const values = m[2].split(",").filter((v) => v.length > 0);
    if (new Set(values).size !== values.length) throw new Error(`--grid: ${m[1]} repeats a value`);
    return [m[1], values] as [string, string[]];
  });
  if (axes.length > 2) throw new Error(`--grid takes one or two options, got ${axes.length}`);
  if (axes.length === 2 && axes[0][0] === axes[1][0]) throw new Error(`--grid: ${axes[0][0]} is given twice`);
  for (const [name] of axes) if (["seed", "seeds", "out", "json", "resume"].includes(name)) throw new Error(`--grid: --${name} is set by the sweep itself`);
  return axes;
}

/** Every grid point × every seed, in that order (the order of the table and the JSON). */
export function planSweep(recipe: SweepRecipe, seeds: readonly number[], grid: readonly [string, string[]][], extra: readonly string[]): PlannedRun[] {
  const r = SWEEP_RECIPES[recipe];
  const extraAbs = extra.map((a, i) => (i > 0 && PATH_OPTIONS.has(extra[i - 1]) && !isAbsolute(a) ? resolve(a) : a));
  for (const [name] of grid) if (extra.includes(`--${name}`)) throw new Error(`--grid sets --${name}, which is also given after --`);
  let points: Record<string, string>[] = [{}];
  for (const [name, values] of grid) points = points.flatMap((p) => values.map((v) => ({ ...p, [name]: v })));
  return points.flatMap((g) => seeds.map((seed) => {
    const name = [...Object.entries(g).map(([k, v]) => `${k}=${encodeNamePart(v)}`), `seed=${seed}`].join(",");
    if (new TextEncoder().encode(name).length > MAX_RUN_NAME_BYTES) throw new Error(`--grid: the run folder name ${name.slice(0, 40)}… is longer than the ${MAX_RUN_NAME_BYTES} bytes a name may be (MAX_RUN_NAME_BYTES)`);
    const value = (k: string, v: string) => (PATH_OPTIONS.has(`--${k}`) ? resolve(v) : v);
    return { name, seed, grid: g, args: [recipe, ...r.seed(seed), ...Object.entries(g).flatMap(([k, v]) => [`--${k}`, value(k, v)]), ...extraAbs, ...r.out] };
  }));
}

export interface SweepRow {
  name: string;
  recipe: SweepRecipe;
  seed: number;
  grid: Record<string, string>;
  train_nll: number | null;
  train_nll_reason?: string;
  validation_nll: number | null;
  validation_nll_reason?: string;
  /** The run's own result file. */
  result: string;
}

const doneFile = (out: string, name: string) => join(out, `${name}.done.json`);

/** Largest result file read back: a run's JSON is kilobytes; anything near this is not one. */
const RESULT_LIMIT = { bytes: 64 * 2 ** 20, label: "64 MiB" };

/** The seed a run folder's name states (`…,seed=39`), or undefined for a name without one. */
const seedOfName = (name: string): number | undefined => {
  const m = /(?:^|,)seed=(-?\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
};

/** A finished run's row, read from its directory (the sweep's and --collect's one reader). */
function readRow(dir: string, name: string, recipe: SweepRecipe, grid: Record<string, string>): SweepRow {
  const file = join(dir, SWEEP_RECIPES[recipe].result);
  let text: string;
  try {
    text = readFileText(file, "run result", RESULT_LIMIT);
  } catch (err) {
    throw new Error(`${file}: cannot read the run's result (${(err as Error).message})`);
  }
  const json = parseJsonFile(text, SWEEP_RECIPES[recipe].schema as Schema<unknown>, file);
  const row: SweepRow = { name, recipe, grid, ...SWEEP_RECIPES[recipe].read(json), result: file };
  const named = seedOfName(name);
  // a result moved or copied into another run's folder would be reported under that folder's seed
  if (named !== undefined && row.seed !== named) throw new Error(`${file}: the result is of seed ${row.seed}, but its folder ${name} is seed ${named}`);
  return row;
}

export interface SweepOptions {
  recipe: SweepRecipe;
  runs: PlannedRun[];
  out: string;
  jobs: number;
  log: (line: string) => void;
  /** Ctrl-C: start nothing more, pass SIGINT to the running children, wait for them. */
  onInterrupt?: (stop: () => void) => void;
}

/**
 * Run what is not finished, `jobs` at a time. A run is finished when its `<name>.done.json` exists (written after
 * its process exited 0); an unfinished run's directory is cleared and the run started again, so each directory
 * holds what the same command run alone there would write.
 */
export async function runSweep(o: SweepOptions): Promise<{ rows: SweepRow[]; ran: number; kept: number; interrupted: boolean }> {
  ensureDir(o.out);
  // one sweep at a time in a folder: a second would clear the first's running runs
  const outLock = lockDirectory(o.out, "sweep output directory");
  const running = new Set<ChildProcess>();
  // a child never outlives the sweep: killed when it exits (each child also watches its parent, for a SIGKILL)
  const killAll = () => {
    for (const c of running) c.kill("SIGKILL");
  };
  process.on("exit", killAll);
  try {
    return await sweepIn(o, running);
  } finally {
    process.removeListener("exit", killAll);
    killAll();
    outLock.release();
  }
}

/** The log the sweep writes beside each run folder (`<name>.log`) before it makes the folder: its mark of having made it. */
export const logFile = (out: string, name: string) => join(out, `${name}.log`);

/**
 * Empty `dir` for a fresh start of its run, refusing a folder the sweep did not make (not empty, and no log
 * beside it) and one a live process still holds (its lock files): only what a sweep wrote is removed.
 */
function clearRunDir(out: string, dir: string, name: string): void {
  if (!existsSync(dir)) return;
  if (!lstatSync(dir).isDirectory()) throw new Error(`sweep: ${dir} is in the way of run ${name} and is not a directory; move it away`);
  if (readdirSync(dir).length > 0 && !existsSync(logFile(out, name))) throw new Error(`sweep: ${dir} was not made by a sweep (there is no ${name}.log beside it); move it away or choose another --out`);
  // taking each lock refuses a live holder (the run's own process, or a train in it) and takes a dead one's over
  const locks: Lock[] = [];
  try {
    for (const f of [SWEEP_RUN_LOCK, DIRECTORY_LOCK]) locks.push(acquireLock(join(dir, f), `sweep run folder ${dir}`));
    rmSync(dir, { recursive: true, force: true });
  } finally {
    for (const l of locks) l.release();
  }
}

async function sweepIn(o: SweepOptions, running: Set<ChildProcess>): Promise<{ rows: SweepRow[]; ran: number; kept: number; interrupted: boolean }> {
  for (const r of o.runs) runDir(o.out, r.name);
  const todo = o.runs.filter((r) => !existsSync(doneFile(o.out, r.name)));
  const kept = o.runs.length - todo.length;
  if (kept > 0) o.log(`sweep: ${kept} of ${o.runs.length} runs already finished in ${o.out}; running the other ${todo.length}`);
  for (const run of todo) clearRunDir(o.out, runDir(o.out, run.name), run.name);
  let interrupted = false;
  o.onInterrupt?.(() => {
    interrupted = true;
    for (const c of running) c.kill("SIGINT");
  });
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (!interrupted && next < todo.length) {
      const run = todo[next++];
      const dir = runDir(o.out, run.name);
      const t0 = performance.now();
      const logPath = logFile(o.out, run.name);
      if (existsSync(logPath) && !lstatSync(logPath).isFile()) throw new Error(`sweep: ${logPath} is in the way of run ${run.name}'s log and is not a regular file; move it away`);
      const fd = openSync(logPath, "w"); // before the folder: a folder with no log beside it is not the sweep's
      ensureDir(dir);
      // its own process group: a Ctrl-C at the terminal reaches the sweep only, which passes it on once; the
      // child watches this process (SWEEP_PARENT_ENV) and stops when it is gone, so it never outlives the sweep
      const child = spawn(process.execPath, [BIN, ...run.args], { cwd: dir, env: { ...process.env, [SWEEP_PARENT_ENV]: String(process.pid) }, stdio: ["ignore", fd, fd], detached: true });
      running.add(child);
      const code = await new Promise<number | null>((res) => child.on("close", (c) => res(c)));
      running.delete(child);
      closeSync(fd);
      const seconds = (performance.now() - t0) / 1000;
      if (code === 0) {
        writeFileAtomic(doneFile(o.out, run.name), JSON.stringify({ name: run.name, args: run.args, seconds }, null, 1) + "\n");
        o.log(`sweep: ${run.name} done in ${seconds.toFixed(1)} s`);
      } else if (!interrupted) {
        failures.push(`${run.name} (exit ${code}; see ${logPath})`);
        o.log(`sweep: ${run.name} FAILED with exit ${code}: ${readFileText(logPath, "run log").trim().split("\n").at(-1)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.jobs, Math.max(1, todo.length)) }, worker));
  if (interrupted) return { rows: [], ran: todo.length, kept, interrupted };
  if (failures.length > 0) throw new Error(`sweep: ${failures.length} run(s) failed: ${failures.join(", ")}`);
  return { rows: o.runs.map((r) => readRow(runDir(o.out, r.name), r.name, o.recipe, r.grid)), ran: todo.length, kept, interrupted };
}

/**
 * Rows of every run directory under `dir` that holds a recipe's result file (made by a sweep, or by separate jobs
 * with the sweep's layout), sorted by name. Grid values come from the name (`lr=0.001,seed=39`).
 */
export function collectSweep(dir: string): SweepRow[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--collect: not a directory: ${dir}`);
  const rows: SweepRow[] = [];
  const unfinished: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const sub = join(dir, name);
    if (!statSync(sub).isDirectory()) continue;
    const recipe = SWEEP_RECIPE_NAMES.find((r) => existsSync(join(sub, SWEEP_RECIPES[r].result)));
    if (!recipe) {
      // a run the sweep marked done (or made) whose result is gone would silently drop out of the table
      if (existsSync(doneFile(dir, name))) unfinished.push(name);
      continue;
    }
    const grid = Object.fromEntries(name.split(",").map((p) => p.split("=")).filter((kv) => kv.length === 2 && kv[0] !== "seed").map(([k, v]) => [k, decodeNamePart(v)]));
    rows.push(readRow(sub, name, recipe, grid));
  }
  if (unfinished.length > 0) throw new Error(`--collect: ${unfinished.length} run folder(s) under ${dir} hold no result (${unfinished.join(", ")}): each needs overfit.json, cyclic.json or train.json; re-run the sweep to finish them`);
  if (rows.length === 0) throw new Error(`--collect: no finished run directories under ${dir} (each holds overfit.json, cyclic.json or train.json)`);
  return rows;
}

/** A name part as the grid gave it (encodeNamePart undone); a part that is not valid percent-encoding is kept as it is. */
function decodeNamePart(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** The table across runs, in row order. */
export function formatSweep(rows: readonly SweepRow[]): string {
  const f = (x: number | null) => (x === null ? "n/a" : x.toFixed(6));
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.grid)))];
  const head = ["run".padEnd(Math.max(3, ...rows.map((r) => r.name.length))), "recipe ", "seed".padStart(6), ...keys.map((k) => k.padStart(10)), "train NLL".padStart(11), "valid NLL".padStart(11)];
  const lines = [head.join("  ")];
  for (const r of rows) lines.push([r.name.padEnd(head[0].length), r.recipe.padEnd(7), String(r.seed).padStart(6), ...keys.map((k) => (r.grid[k] ?? "").padStart(10)), f(r.train_nll).padStart(11), f(r.validation_nll).padStart(11)].join("  "));
  const reasons = [...new Set(rows.flatMap((r) => [r.train_nll === null ? `train NLL n/a: ${r.train_nll_reason ?? "not reported by the run"}` : "", r.validation_nll === null ? `valid NLL n/a: ${r.validation_nll_reason ?? "not reported by the run"}` : ""]).filter((x) => x))];
  return [...lines, ...reasons].join("\n");
}
