// A sweep task's claim on one run (`<out>/<name>.lock` beside the run's folder), for tasks started by a scheduler on
// any node that sees --out: created with O_EXCL (atomic on a local disk and on NFS v3 and later, which create it on
// the server), holding the claimant's host, pid and scheduler job. Not lock.ts's pid lock: a pid means nothing on
// another host, so a claim from another host is never taken over on a guess; only its own sweep, which knows its job
// has ended, removes it (removeClaimsOf).
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isAlive } from "../util/runtime/process.ts";
import { LockedError } from "./lock.ts";

export interface Claim {
  host: string;
  pid: number;
  /** The scheduler's name for the task (Slurm `JOB_TASK`, a Kubernetes pod), or "" when started by hand. */
  job: string;
  started: string;
}

/** The claim file of run `name` under `out`. */
export const claimFile = (out: string, name: string) => join(out, `${name}.lock`);

function readClaim(path: string): Claim | undefined {
  try {
    const c = JSON.parse(readFileSync(path, "utf8")) as Partial<Claim>;
    return typeof c.host === "string" && Number.isSafeInteger(c.pid) && typeof c.job === "string" ? (c as Claim) : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds run `name`'s claim, as a phrase for an error; undefined when nobody does (no claim, or a dead process of this host). */
export function claimHolder(out: string, name: string, here = hostname()): string | undefined {
  const c = readClaim(claimFile(out, name));
  if (c === undefined) return undefined;
  if (c.host === here && !isAlive(c.pid)) return undefined;
  return `process ${c.pid} on ${c.host}${c.job ? ` (job ${c.job})` : ""}, since ${c.started}`;
}

/**
 * Claim run `name` for this process, or refuse naming the holder. A claim of this host whose process is gone is
 * stale and taken over, as is one of the same scheduler task (`job`) and an unreadable one (its writer died between
 * create and write) after a pause.
 */
export function claimRun(out: string, name: string, job: string): { release(): void } {
  const path = claimFile(out, name);
  const here = hostname();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${JSON.stringify({ host: here, pid: process.pid, job, started: new Date().toISOString() } satisfies Claim)}\n`);
      closeSync(fd);
      const release = () => rmSync(path, { force: true });
      process.once("exit", release);
      return { release: () => { process.removeListener("exit", release); release(); } };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (readClaim(path) === undefined) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, UNREADABLE_PAUSE_MS);
    const held = readClaim(path);
    // the same task started again (Slurm's requeue, a Kubernetes retry of the index): a scheduler starts it again
    // only once the earlier attempt has ended, so that attempt's claim is stale wherever it ran
    const again = held !== undefined && job !== "" && held.job === job;
    const holder = held === undefined || again ? undefined : claimHolder(out, name, here);
    if (holder !== undefined) throw new LockedError(`sweep: run ${name} is held by ${holder} (claim ${path}); if that task is gone, remove the file`);
    rmSync(path, { force: true });
  }
  throw new LockedError(`sweep: could not claim run ${name} (${path} keeps being recreated)`);
}

/** How long an unreadable claim is given to receive its owner's one small write before it counts as stale. */
const UNREADABLE_PAUSE_MS = 200;

/** Remove the claims under `out` made by tasks of scheduler job `job` (whose tasks have all ended): they are stale wherever they ran. */
export function removeClaimsOf(out: string, job: (taskJob: string) => boolean): string[] {
  const removed: string[] = [];
  for (const f of readdirSync(out)) {
    if (!f.endsWith(".lock") || f.startsWith(".")) continue;
    const c = readClaim(join(out, f));
    if (c && job(c.job)) {
      rmSync(join(out, f), { force: true });
      removed.push(f);
    }
  }
  return removed;
}
