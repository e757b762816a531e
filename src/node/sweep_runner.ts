// The sweep's process runner: each planned run its own `node bin/tinylab.js …` process in its own folder under
// --out, `jobs` at a time, finished runs kept (a `<name>.done.json` beside each), results read back through the
// recipes' readers (sweep_results.ts) in plan order (never arrival order); also one entry of the plan run the same
// way as a scheduler's task (runTask). Node-only; the plan and what each recipe's result holds are
// experiments/sweep.ts's, the Slurm submission sweep_slurm.ts's.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, openSync, closeSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "./atomic.ts";
import { SWEEP_PARENT_ENV, SWEEP_RUN_LOCK } from "./child_watch.ts";
import { readFileText } from "./disk.ts";
import { ensureDir } from "./writable.ts";
import { acquireLock, DIRECTORY_LOCK, type Lock } from "./lock.ts";
import { claimOutputDir, type OutputKind } from "./output_dir.ts";
import { claimRun } from "./task_claim.ts";
import { doneFile, readRow, type ResultReaders, type SweepRow } from "./sweep_results.ts";

/** A run as the runner needs it: its folder name under --out and its command line. */
export interface SweepRun {
  name: string;
  args: string[];
  grid: Record<string, string>;
}

// bin/ from src/node/ or from its compiled copy in dist/src/node/
export const BIN = resolve(import.meta.dirname, import.meta.url.endsWith(".ts") ? "../.." : "../../..", "bin/tinylab.js");

/** The folder a run's name gives under `out`, refused unless it is a direct child of it. */
export function runDir(out: string, name: string): string {
  const dir = join(out, name);
  if (dirname(resolve(dir)) !== resolve(out) || basename(dir) !== name)
    throw new Error(`sweep: run name ${JSON.stringify(name)} is not a folder directly under ${out}`);
  return dir;
}

/**
 * A sweep's directory: its sweep.json and sweep.csv (rewritten from the runs each time), run folders, their logs, done marks and
 * run claims (`<name>.lock`), and Slurm's output file of each array task (`slurm-JOB_TASK.out`).
 */
export const SWEEP_KIND: OutputKind = {
  noun: "a sweep",
  files: ["sweep.json", "sweep.csv"],
  accepts: (name, isDir) =>
    isDir ||
    name.endsWith(".log") ||
    name.endsWith(".done.json") ||
    name.endsWith(".lock") ||
    /\.lock\.break-[0-9a-f]+$/.test(name) ||
    /^slurm-\d+_\d+\.out$/.test(name),
};

export interface SweepOptions {
  recipe: string;
  /** What each recipe's result file is and what the sweep reads from it. */
  recipes: ResultReaders;
  runs: SweepRun[];
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
  // one sweep at a time in a folder: a second would clear the first's running runs
  const outLock = claimOutputDir(o.out, { option: "--out", what: "sweep output directory", kind: SWEEP_KIND, replace: true });
  const running = new Set<ChildProcess>();
  // a child never outlives the sweep: killed when it exits (each child also watches its parent, for a SIGKILL)
  const killAll = () => {
    for (const c of running) c.kill("SIGKILL");
  };
  process.on("exit", killAll);
  const claims = new Map<string, { release(): void }>();
  try {
    return await sweepIn(o, running, claims);
  } finally {
    process.removeListener("exit", killAll);
    killAll();
    for (const c of claims.values()) c.release();
    outLock.release();
  }
}

/** How long a run has, after the sweep's SIGINT, to stop on its own (training finishes its update and saves). */
const STOP_GRACE_MS = 3_000;

/**
 * Ctrl-C passed on to the runs, then SIGKILL for any still running after STOP_GRACE_MS: a run busy in a synchronous
 * loop (overfit's updates) handles no signal until the loop ends. A killed run's locks name a dead process, which the
 * next sweep takes over; its folder has no .done.json, so the next sweep starts it again.
 */
function stopChildren(running: ReadonlySet<ChildProcess>): void {
  for (const c of running) c.kill("SIGINT");
  setTimeout(() => {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  }, STOP_GRACE_MS).unref();
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
  if (readdirSync(dir).length > 0 && !existsSync(logFile(out, name)))
    throw new Error(`sweep: ${dir} was not made by a sweep (there is no ${name}.log beside it); move it away or choose another --out`);
  // taking each lock refuses a live holder (the run's own process, or a train in it) and takes a dead one's over
  const locks: Lock[] = [];
  try {
    for (const f of [SWEEP_RUN_LOCK, DIRECTORY_LOCK]) locks.push(acquireLock(join(dir, f), `sweep run folder ${dir}`));
    rmSync(dir, { recursive: true, force: true });
  } finally {
    for (const l of locks) l.release();
  }
}

async function sweepIn(
  o: SweepOptions,
  running: Set<ChildProcess>,
  claims: Map<string, { release(): void }>,
): Promise<{ rows: SweepRow[]; ran: number; kept: number; interrupted: boolean }> {
  for (const r of o.runs) runDir(o.out, r.name);
  const todo = o.runs.filter((r) => !existsSync(doneFile(o.out, r.name)));
  const kept = o.runs.length - todo.length;
  if (kept > 0) o.log(`sweep: ${kept} of ${o.runs.length} runs already finished in ${o.out}; running the other ${todo.length}`);
  // each run claimed before its folder is cleared: a task of a scheduler (sweep --task) may hold one on another node
  for (const run of todo) claims.set(run.name, claimRun(o.out, run.name, ""));
  for (const run of todo) clearRunDir(o.out, runDir(o.out, run.name), run.name);
  let interrupted = false;
  o.onInterrupt?.(() => {
    interrupted = true;
    stopChildren(running);
  });
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (!interrupted && next < todo.length) {
      const run = todo[next++];
      const { code, seconds, logPath } = await runOne(o.out, run, running);
      claims.get(run.name)?.release();
      if (code === 0) o.log(`sweep: ${run.name} done in ${seconds.toFixed(1)} s`);
      else if (!interrupted) {
        failures.push(`${run.name} (exit ${code}; see ${logPath})`);
        o.log(`sweep: ${run.name} FAILED with exit ${code}: ${lastLine(logPath)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.jobs, Math.max(1, todo.length)) }, worker));
  if (interrupted) return { rows: [], ran: todo.length, kept, interrupted };
  if (failures.length > 0) throw new Error(`sweep: ${failures.length} run(s) failed: ${failures.join(", ")}`);
  return {
    rows: o.runs.map((r) => readRow(runDir(o.out, r.name), r.name, o.recipes, o.recipe, r.grid)),
    ran: todo.length,
    kept,
    interrupted,
  };
}

/** The last line a run wrote to its log (its error, when it failed). */
const lastLine = (logPath: string): string => readFileText(logPath, "run log").trim().split("\n").at(-1) ?? "";

/**
 * Run one planned run as its own process in its folder (cleared beforehand), its output in `<name>.log`; on exit 0
 * write its `<name>.done.json`. The local sweep's workers and a scheduler's task (runTask) both run a run through this.
 */
async function runOne(
  out: string,
  run: SweepRun,
  running: Set<ChildProcess>,
): Promise<{ code: number | null; seconds: number; logPath: string }> {
  const dir = runDir(out, run.name);
  const t0 = performance.now();
  const logPath = logFile(out, run.name);
  if (existsSync(logPath) && !lstatSync(logPath).isFile())
    throw new Error(`sweep: ${logPath} is in the way of run ${run.name}'s log and is not a regular file; move it away`);
  const fd = openSync(logPath, "w"); // before the folder: a folder with no log beside it is not the sweep's
  ensureDir(dir);
  // its own process group: a Ctrl-C at the terminal reaches the sweep only, which passes it on once; the
  // child watches this process (SWEEP_PARENT_ENV) and stops when it is gone, so it never outlives the sweep
  const child = spawn(process.execPath, [BIN, ...run.args], {
    cwd: dir,
    env: { ...process.env, [SWEEP_PARENT_ENV]: String(process.pid) },
    stdio: ["ignore", fd, fd],
    detached: true,
  });
  running.add(child);
  const code = await new Promise<number | null>((res) => child.on("close", (c) => res(c)));
  running.delete(child);
  closeSync(fd);
  const seconds = (performance.now() - t0) / 1000;
  if (code === 0) writeFileAtomic(doneFile(out, run.name), JSON.stringify({ name: run.name, args: run.args, seconds }, null, 1) + "\n");
  return { code, seconds, logPath };
}

export interface TaskOptions {
  runs: SweepRun[];
  /** The plan entry to run (0-based). */
  index: number;
  out: string;
  /** The scheduler's name for this task (recorded in its claim), or "". */
  job: string;
  log: (line: string) => void;
  onInterrupt?: (stop: () => void) => void;
}

/**
 * One entry of the plan, run exactly as the local sweep runs it (its folder, log and `.done.json`), for a scheduler's
 * array task on any node that sees --out. Takes no lock on --out (the other tasks share it): it claims its run
 * instead, refusing one another task holds. A finished run is not redone. Returns the exit code for the task.
 */
export async function runTask(o: TaskOptions): Promise<{ name: string; code: number; interrupted: boolean }> {
  const run = o.runs[o.index];
  if (run === undefined)
    throw new Error(`--task ${o.index}: the plan has ${o.runs.length} runs, numbered 0 to ${o.runs.length - 1} (sweep --plan lists them)`);
  runDir(o.out, run.name);
  ensureDir(o.out);
  const finished = () => existsSync(doneFile(o.out, run.name));
  if (finished()) {
    o.log(`sweep: task ${o.index} (${run.name}) is already finished in ${o.out}; nothing to do`);
    return { name: run.name, code: 0, interrupted: false };
  }
  const claim = claimRun(o.out, run.name, o.job);
  const running = new Set<ChildProcess>();
  const killAll = () => {
    for (const c of running) c.kill("SIGKILL");
  };
  process.on("exit", killAll);
  try {
    // another task may have finished it between the look above and the claim
    if (finished()) return { name: run.name, code: 0, interrupted: false };
    clearRunDir(o.out, runDir(o.out, run.name), run.name);
    let interrupted = false;
    o.onInterrupt?.(() => {
      interrupted = true;
      stopChildren(running);
    });
    o.log(`sweep: task ${o.index}: ${run.name} (${run.args.join(" ")})`);
    const { code, seconds, logPath } = await runOne(o.out, run, running);
    if (code === 0) o.log(`sweep: ${run.name} done in ${seconds.toFixed(1)} s`);
    else if (!interrupted) o.log(`sweep: ${run.name} FAILED with exit ${code} (log ${logPath}): ${lastLine(logPath)}`);
    return { name: run.name, code: interrupted ? 130 : (code ?? 1), interrupted };
  } finally {
    process.removeListener("exit", killAll);
    killAll();
    claim.release();
  }
}
