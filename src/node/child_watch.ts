// A process started by another tinylab process (a sweep's run) stops when its parent is gone, however the parent
// ended (a SIGKILL included, which no exit hook sees), and holds a lock on its folder while it runs.
// Not process management for the parent: the sweep starts and kills its children itself.
import { join } from "node:path";
import { acquireLock } from "./lock.ts";

/** Set by the sweep in each child's environment: the sweep's pid. */
export const SWEEP_PARENT_ENV = "TINYLAB_SWEEP_PARENT";
/** The lock file a sweep's run holds in its folder, so a re-run never clears a folder a live run still writes. */
export const SWEEP_RUN_LOCK = ".tinylab-run.lock";
/** How often a child looks at its parent: a dead sweep's runs stop within this. */
export const PARENT_POLL_MS = 500;

/**
 * Call `onGone` once the parent `parentPid` is gone: the kernel re-parents an orphan (to init or a subreaper), so
 * `ppid()` stops being `parentPid`. The timer never keeps the process alive. Returns a stop function.
 */
export function watchParent(parentPid: number, onGone: () => void, ppid: () => number = () => process.ppid, every = PARENT_POLL_MS): () => void {
  const timer = setInterval(() => {
    if (ppid() === parentPid) return;
    clearInterval(timer);
    onGone();
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * When this process is a sweep's run (SWEEP_PARENT_ENV set): lock its folder, and when the sweep is gone, stop
 * as Ctrl-C would (a run that saves state saves it), then at once if it is still there a second later.
 */
export function startAsSweepChild(env: NodeJS.ProcessEnv = process.env): void {
  const parent = Number(env[SWEEP_PARENT_ENV]);
  if (!Number.isSafeInteger(parent) || parent <= 0) return;
  acquireLock(join(process.cwd(), SWEEP_RUN_LOCK), `sweep run folder ${process.cwd()}`);
  watchParent(parent, () => {
    console.error(`tinylab: the sweep (process ${parent}) that started this run is gone; stopping`);
    // a command that handles Ctrl-C (training) stops after its update and saves; any other exits now, its locks released
    if (process.listenerCount("SIGINT") === 0) process.exit(130);
    process.kill(process.pid, "SIGINT");
    setTimeout(() => process.exit(130), 1000).unref();
  });
}
