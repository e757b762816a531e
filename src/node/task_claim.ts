// A sweep task's claim on one run (`<out>/<name>.lock` beside the run's folder), for tasks started by a scheduler on
// any node that sees --out: taken by lock.ts's one mechanism (created whole by a hard link, atomic on a local disk
// and on NFS v3 and later, and a stale claim removed by one process only), holding the claimant's host, pid and
// scheduler job. Judged otherwise than a pid lock: a pid means nothing on another host, so a claim from another
// host is never taken over on a guess; only its own sweep, which knows its job has ended, removes it (removeClaimsOf).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isAlive } from "../util/runtime/process.ts";
import { takeLock, type Lock } from "./lock.ts";

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
    return parseClaim(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

function parseClaim(text: string): Claim | undefined {
  try {
    const c = JSON.parse(text) as Partial<Claim>;
    return typeof c.host === "string" && Number.isSafeInteger(c.pid) && typeof c.job === "string" ? (c as Claim) : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds run `name`'s claim, as a phrase for an error; undefined when nobody does (no claim, or a dead process of this host). */
export function claimHolder(out: string, name: string, here = hostname()): string | undefined {
  const c = readClaim(claimFile(out, name));
  return c === undefined ? undefined : holderOf(c, here);
}

function holderOf(c: Claim, here: string): string | undefined {
  if (c.host === here && !isAlive(c.pid)) return undefined;
  return `process ${c.pid} on ${c.host}${c.job ? ` (job ${c.job})` : ""}, since ${c.started}`;
}

/**
 * Claim run `name` for this process, or refuse naming the holder. A claim of this host whose process is gone is
 * stale and taken over, as is one of the same scheduler task (`job`) and an unreadable one (created whole, a claim
 * is never seen half-written: unreadable is not a claim).
 */
export function claimRun(out: string, name: string, job: string): Lock {
  const path = claimFile(out, name);
  const here = hostname();
  const mine = `${JSON.stringify({ host: here, pid: process.pid, job, started: new Date().toISOString() } satisfies Claim)}\n`;
  return takeLock(path, mine, `sweep: run ${name}`, ({ text }) => {
    const held = parseClaim(text);
    // the same task started again (Slurm's requeue, a Kubernetes retry of the index): a scheduler starts it again
    // only once the earlier attempt has ended, so that attempt's claim is stale wherever it ran
    if (held === undefined || (job !== "" && held.job === job)) return undefined;
    const holder = holderOf(held, here);
    return holder === undefined
      ? undefined
      : `sweep: run ${name} is held by ${holder} (claim ${path}); if that task is gone, remove the file`;
  });
}

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
