// Slurm's client commands as the sweep uses them: submit one job array (sbatch, the script on its stdin), read its
// tasks' states and exit codes (squeue, which keeps a finished job for MinJobAge; sacct would need slurmdbd), cancel
// it (scancel). Not a scheduler abstraction: these three calls and the parsing of their output, nothing more.
import { spawnSync } from "node:child_process";

/** A task's state as squeue names it (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, …) and its exit status. */
export interface TaskState {
  state: string;
  /** The exit code, when the task's process exited; undefined while it runs or when a signal ended it. */
  exitCode?: number;
  /** The signal that ended it, if one did. */
  signal?: number;
}

/** States from which a task moves no more (squeue's JOB STATE CODES). */
const FINAL = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "TIMEOUT",
  "OUT_OF_MEMORY",
  "NODE_FAIL",
  "PREEMPTED",
  "BOOT_FAIL",
  "DEADLINE",
  "REVOKED",
  "SPECIAL_EXIT",
]);
export const isFinal = (s: TaskState): boolean => FINAL.has(s.state);

/** Run a Slurm command; refuse in one line naming it and what it said when it is missing or fails. */
function slurm(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { input, encoding: "utf8", timeout: COMMAND_TIMEOUT_MS, killSignal: "SIGKILL" });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new Error(
      `--scheduler slurm: ${missing ? `${cmd} is not installed here (it comes with Slurm's client commands, e.g. Debian's slurm-client)` : `${cmd} failed: ${r.error.message}`}`,
    );
  }
  if (r.status !== 0)
    throw new Error(
      `--scheduler slurm: ${cmd} ${args.join(" ")} exited with ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().split("\n").at(-1)}`,
    );
  return r.stdout;
}

/** Longest a single Slurm command may take: a controller that does not answer within it is reported, not waited on forever. */
const COMMAND_TIMEOUT_MS = 30_000;

/** `--array` of these task indices, at most `throttle` running at once: `0-2,5%2`. */
export function arraySpec(indices: readonly number[], throttle?: number): string {
  const parts: string[] = [];
  for (let i = 0; i < indices.length;) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j] + 1) j++;
    parts.push(i === j ? String(indices[i]) : `${indices[i]}-${indices[j]}`);
    i = j + 1;
  }
  return parts.join(",") + (throttle === undefined ? "" : `%${throttle}`);
}

/** A word as one shell word (single quotes), for the batch script. */
export const shellWord = (w: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * Submit `script` as one job array over `indices`; returns the job id. `site` are the site's own sbatch options
 * (partition, time, account, memory), given last so that one the sweep also sets (a --job-name) is the site's.
 */
export function submitArray(o: {
  script: string;
  indices: readonly number[];
  throttle?: number;
  name: string;
  output: string;
  chdir: string;
  site: readonly string[];
}): string {
  const out = slurm(
    "sbatch",
    [
      "--parsable",
      `--job-name=${o.name}`,
      `--array=${arraySpec(o.indices, o.throttle)}`,
      `--output=${o.output}`,
      `--chdir=${o.chdir}`,
      ...o.site,
    ],
    o.script,
  );
  const id = out.trim().split(";")[0]; // --parsable prints "ID" or "ID;CLUSTER"
  if (!/^\d+$/.test(id)) throw new Error(`--scheduler slurm: sbatch printed ${JSON.stringify(out.trim())}, not a job id`);
  return id;
}

/** Parse `squeue -h -r -O ArrayTaskID:|,State:|,exit_code:|` lines: task index → state. */
export function parseStates(text: string): Map<number, TaskState> {
  const states = new Map<number, TaskState>();
  for (const line of text.split("\n")) {
    const [task, state, status] = line.split("|").map((s) => s.trim());
    if (!task || !/^\d+$/.test(task)) continue; // a pending range not yet split (`-r` splits them) or a blank line
    const raw = Number(status);
    const done = FINAL.has(state) && Number.isInteger(raw);
    // squeue's exit_code is the wait status: the code in its high byte, the signal in its low seven bits
    states.set(Number(task), {
      state,
      ...(done && (raw & 0x7f) === 0 ? { exitCode: raw >> 8 } : {}),
      ...(done && (raw & 0x7f) !== 0 ? { signal: raw & 0x7f } : {}),
    });
  }
  return states;
}

/** The states of job `id`'s array tasks that squeue still knows (finished ones for MinJobAge after they end). */
export const arrayStates = (id: string): Map<number, TaskState> =>
  parseStates(slurm("squeue", ["-h", "-r", "-t", "all", "-j", id, "-O", "ArrayTaskID:|,State:|,exit_code:|"]));

/** Cancel job `id` (pending tasks are dropped, running ones get SIGTERM, then SIGKILL after the site's KillWait). */
export const cancelJob = (id: string): void => {
  slurm("scancel", [id]);
};
