// A sweep's finished runs read back: each recipe's result file through its schema, a run's row (its seed checked
// against its folder's name), and --collect over a directory of run folders, sorted by name. Node-only; running the
// runs is sweep_runner.ts.
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseJsonFile, type Schema } from "../util/formats/schema.ts";
import { phase, type ProgressStream } from "../util/runtime/progress.ts";
import { readFileText } from "./disk.ts";

/** What a recipe's finished run leaves: its result file, the part of it the sweep reads (a schema) and the numbers taken from it. */
export interface ResultReader {
  result: string;
  schema: Schema<unknown>;
  read(json: any): {
    seed: number;
    train_nll: number | null;
    train_nll_reason?: string;
    validation_nll: number | null;
    validation_nll_reason?: string;
  };
}
export type ResultReaders = Readonly<Record<string, ResultReader>>;

/** "a, b or c": the result files a run folder may hold. */
const resultFiles = (recipes: ResultReaders) =>
  Object.values(recipes)
    .map((r) => r.result)
    .join(", ")
    .replace(/, ([^,]*)$/, " or $1");

export interface SweepRow {
  name: string;
  recipe: string;
  seed: number;
  grid: Record<string, string>;
  train_nll: number | null;
  train_nll_reason?: string;
  validation_nll: number | null;
  validation_nll_reason?: string;
  /** The run's own result file. */
  result: string;
}

export const doneFile = (out: string, name: string) => join(out, `${name}.done.json`);

/** Largest result file read back: a run's JSON is kilobytes; anything near this is not one. */
const RESULT_LIMIT = { bytes: 64 * 2 ** 20, label: "64 MiB" };

/** The seed a run folder's name states (`…,seed=39`), or undefined for a name without one. */
const seedOfName = (name: string): number | undefined => {
  const m = /(?:^|,)seed=(-?\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
};

/** A finished run's row, read from its directory (the sweep's and --collect's one reader). */
export function readRow(dir: string, name: string, recipes: ResultReaders, recipe: string, grid: Record<string, string>): SweepRow {
  const reader = recipes[recipe];
  const file = join(dir, reader.result);
  let text: string;
  try {
    text = readFileText(file, "run result", RESULT_LIMIT);
  } catch (err) {
    throw new Error(`${file}: cannot read the run's result (${(err as Error).message})`);
  }
  const json = parseJsonFile(text, reader.schema, file);
  const row: SweepRow = { name, recipe, grid, ...reader.read(json), result: file };
  const named = seedOfName(name);
  // a result moved or copied into another run's folder would be reported under that folder's seed
  if (named !== undefined && row.seed !== named)
    throw new Error(`${file}: the result is of seed ${row.seed}, but its folder ${name} is seed ${named}`);
  return row;
}

/**
 * Rows of every run directory under `dir` that holds a recipe's result file (made by a sweep, or by separate jobs
 * with the sweep's layout), sorted by name. Grid values come from the name (`lr=0.001,seed=39`).
 */
export function collectSweep(dir: string, recipes: ResultReaders, progress?: ProgressStream): SweepRow[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--collect: not a directory: ${dir}`);
  const rows: SweepRow[] = [];
  const unfinished: string[] = [];
  if (lstatSync(dir).isSymbolicLink())
    throw new Error(`--collect ${dir}: is a symbolic link; give the directory itself (sweep.json is written into it)`);
  const names = readdirSync(dir).sort();
  const bar = phase(progress, "collect", names.length, "entries");
  for (const name of names) {
    bar?.tick();
    const sub = join(dir, name);
    // a linked folder is another place's runs: reading it would report them as this sweep's
    if (lstatSync(sub).isSymbolicLink())
      throw new Error(`--collect ${dir}: ${sub} is a symbolic link; a sweep's run folders are its own directories: remove the link`);
    if (!statSync(sub).isDirectory()) continue;
    const recipe = Object.keys(recipes).find((r) => existsSync(join(sub, recipes[r].result)));
    if (!recipe) {
      // a run the sweep marked done (or made) whose result is gone would silently drop out of the table
      if (existsSync(doneFile(dir, name))) unfinished.push(name);
      continue;
    }
    const grid = Object.fromEntries(
      name
        .split(",")
        .map((p) => p.split("="))
        .filter((kv) => kv.length === 2 && kv[0] !== "seed")
        .map(([k, v]) => [k, decodeNamePart(v)]),
    );
    rows.push(readRow(sub, name, recipes, recipe, grid));
  }
  bar?.done();
  if (unfinished.length > 0)
    throw new Error(
      `--collect: ${unfinished.length} run folder(s) under ${dir} hold no result (${unfinished.join(", ")}): each needs ${resultFiles(recipes)}; re-run the sweep to finish them`,
    );
  if (rows.length === 0) throw new Error(`--collect: no finished run directories under ${dir} (each holds ${resultFiles(recipes)})`);
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
