// `sweep --scheduler slurm`: the plan's unfinished runs submitted as one Slurm job array whose task I runs
// `tinylab sweep … --task I` (sweep_runner.ts's runTask, on whichever node Slurm picks), waited on by polling
// squeue with progress on stderr, then read back in plan order as the local sweep reads them. Node-only; not a
// scheduler abstraction (slurm.ts is the three commands).
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { SWEEP_RUN_LOCK } from "./child_watch.ts";
import { DIRECTORY_LOCK } from "./lock.ts";
import { claimOutputDir } from "./output_dir.ts";
import { arraySpec, arrayStates, cancelJob, isFinal, shellWord, submitArray, type TaskState } from "./slurm.ts";
import { logFile, runDir, SWEEP_KIND, type SweepRun } from "./sweep_runner.ts";
import { doneFile, readRow, type ResultReaders, type SweepRow } from "./sweep_results.ts";
import { claimHolder, removeClaimsOf } from "./task_claim.ts";

export interface SlurmSweepOptions {
  recipe: string;
  recipes: ResultReaders;
  runs: SweepRun[];
  out: string;
  /** `%N`: at most this many tasks at once (--jobs), or no limit but the site's. */
  throttle?: number;
  /** The site's own sbatch options, passed as they are (--partition, --time, --account, --mem, …). */
  site: readonly string[];
  /** The task's command line, `node bin/tinylab.js sweep … --task env`: each task finds its entry in $SLURM_ARRAY_TASK_ID. */
  taskCommand: readonly string[];
  log: (line: string) => void;
  progress: (line: string) => void;
  onInterrupt?: (stop: () => void) => void;
}

/**
 * How often squeue is asked: often enough that a sweep of short runs ends soon after its last task, seldom enough
 * that a long one costs the controller little (one call covers the whole array).
 */
export const POLL_MS = 1000;
/** How long squeue may fail (a controller busy or restarting) before the sweep gives up waiting. */
const UNANSWERED_MS = 60_000;
/** After a cancel, how long the tasks are given to end: well past Slurm's default KillWait, the grace before its SIGKILL. */
const CANCEL_WAIT_MS = 120_000;

/** Slurm's output file of array task I of job J, under --out: the task's own messages (the run's are in `<name>.log`). */
export const slurmLog = (out: string, job: string | number, task: string | number) => join(out, `slurm-${job}_${task}.out`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "exit code 3", "signal 9" or "no exit code" for a finished task. */
const exitOf = (s: TaskState | undefined) =>
  s?.exitCode !== undefined ? `exit code ${s.exitCode}` : s?.signal !== undefined ? `signal ${s.signal}` : "no exit code";

export async function runSlurmSweep(
  o: SlurmSweepOptions,
): Promise<{ rows: SweepRow[]; submitted: number; kept: number; interrupted: boolean; job?: string }> {
  // one sweep at a time in a folder; the tasks do not take this lock (they claim their runs), the submitter holds it
  const outLock = claimOutputDir(o.out, { option: "--out", what: "sweep output directory", kind: SWEEP_KIND, replace: true });
  try {
    for (const r of o.runs) runDir(o.out, r.name);
    const todo = o.runs.map((r, i) => [i, r] as const).filter(([, r]) => !existsSync(doneFile(o.out, r.name)));
    const kept = o.runs.length - todo.length;
    const rows = () => o.runs.map((r) => readRow(runDir(o.out, r.name), r.name, o.recipes, o.recipe, r.grid));
    if (todo.length === 0) {
      o.log(`sweep: all ${o.runs.length} runs already finished in ${o.out}; nothing to submit`);
      return { rows: rows(), submitted: 0, kept, interrupted: false };
    }
    if (kept > 0) o.log(`sweep: ${kept} of ${o.runs.length} runs already finished in ${o.out}; submitting the other ${todo.length}`);
    const held = todo.flatMap(([, r]) => {
      const h = claimHolder(o.out, r.name);
      return h ? [`${r.name} by ${h}`] : [];
    });
    if (held.length > 0)
      throw new Error(
        `sweep: ${held.length} run(s) are held by a running task: ${held.join("; ")}; wait for it, or remove its .lock file if that task is gone`,
      );
    const indices = todo.map(([i]) => i);
    const out = resolve(o.out);
    const script = `#!/bin/sh\n# tinylab sweep ${o.recipe}: array task I runs entry I of the plan (tinylab sweep --plan lists them)\nexec ${o.taskCommand.map(shellWord).join(" ")}\n`;
    const job = submitArray({
      script,
      indices,
      throttle: o.throttle,
      name: `tinylab-sweep-${o.recipe}`,
      output: join(out, "slurm-%A_%a.out"),
      chdir: process.cwd(),
      site: o.site,
    });
    o.log(
      `sweep: submitted ${todo.length} runs as Slurm job ${job} (array ${arraySpec(indices, o.throttle)}); each task's output in ${slurmLog(o.out, job, "I")}`,
    );
    let interrupted = false;
    let cancelledAt = 0;
    o.onInterrupt?.(() => {
      if (interrupted) return;
      interrupted = true;
      cancelledAt = Date.now();
      cancelJob(job);
      o.progress(`sweep: cancelled Slurm job ${job}; waiting for its tasks to end`);
    });
    const t0 = Date.now();
    let states = new Map<number, TaskState>();
    let said = "";
    let answered = Date.now();
    for (;;) {
      try {
        states = arrayStates(job);
        answered = Date.now();
      } catch (err) {
        // a busy controller may miss a poll; the job runs on regardless, and the same command later collects it
        if (Date.now() - answered > UNANSWERED_MS)
          throw new Error(
            `${(err as Error).message} (no answer for ${UNANSWERED_MS / 1000} s; Slurm job ${job} goes on: the same command collects its runs, or scancel ${job})`,
          );
        await sleep(POLL_MS);
        continue;
      }
      // a task squeue no longer lists has ended (its record aged out after MinJobAge)
      const ended = (i: number) => {
        const s = states.get(i);
        return s === undefined ? states.size > 0 || Date.now() - t0 > 10 * POLL_MS : isFinal(s);
      };
      const count = (state: string) => indices.filter((i) => states.get(i)?.state === state).length;
      const done = indices.filter(ended).length;
      const line = `sweep: Slurm job ${job}: ${done} of ${indices.length} ended (${count("COMPLETED")} completed), ${count("RUNNING")} running, ${count("PENDING")} pending`;
      if (line !== said) o.progress(`${line} after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      said = line;
      if (done === indices.length) break;
      if (interrupted && Date.now() - cancelledAt > CANCEL_WAIT_MS) {
        o.progress(`sweep: Slurm job ${job}'s tasks did not end within ${CANCEL_WAIT_MS / 1000} s of the cancel; see squeue -j ${job}`);
        break;
      }
      await sleep(POLL_MS);
    }
    // a task ended by SIGKILL (the cancel's KillWait, a time limit) never removed its claim: its job has ended,
    // so the claim is stale on whichever node it ran
    removeClaimsOf(o.out, (j) => j.startsWith(`${job}_`));
    // likewise the locks a run killed that way left in its folder: every process of the job has ended, and a run
    // nobody claims is run by no task (this sweep holds --out, and a task claims its run before touching the folder)
    for (const [, r] of todo) {
      if (existsSync(doneFile(o.out, r.name)) || claimHolder(o.out, r.name) !== undefined) continue;
      for (const f of [SWEEP_RUN_LOCK, DIRECTORY_LOCK]) rmSync(join(runDir(o.out, r.name), f), { force: true });
    }
    if (interrupted) return { rows: [], submitted: todo.length, kept, interrupted, job };
    const failures = todo.filter(([, r]) => !existsSync(doneFile(o.out, r.name)));
    for (const [i, r] of failures) {
      const s = states.get(i);
      const how =
        s?.state === "COMPLETED"
          ? "COMPLETED but its .done.json is not there (a shared filesystem's cache may not show it yet)"
          : `${s?.state ?? "ENDED"} with ${exitOf(s)}`;
      o.progress(
        `sweep: ${r.name} (task ${i} of Slurm job ${job}) ${how}; log ${logFile(o.out, r.name)}, Slurm's output ${slurmLog(o.out, job, i)}`,
      );
    }
    if (failures.length > 0)
      throw new Error(
        `sweep: ${failures.length} of ${todo.length} Slurm tasks failed (${failures.map(([, r]) => r.name).join(", ")}); the others are kept, and the same command submits only the unfinished`,
      );
    return { rows: rows(), submitted: todo.length, kept, interrupted, job };
  } finally {
    outLock.release();
  }
}
