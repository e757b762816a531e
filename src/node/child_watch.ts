// A process started by another tinylab process (a sweep's run) stops when its parent is gone, however the parent
// ended (a SIGKILL included, which no exit hook sees), and holds a lock on its folder while it runs.
// Not process management for the parent: the sweep starts and kills its children itself.
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { acquireLock } from "./lock.ts";

/** Set by the sweep in each child's environment: the sweep's pid. */
export const SWEEP_PARENT_ENV = "TINYLAB_SWEEP_PARENT";
/** The lock file a sweep's run holds in its folder, so a re-run never clears a folder a live run still writes. */
export const SWEEP_RUN_LOCK = ".tinylab-run.lock";
/**
 * How often a child looks at its parent: a dead sweep's runs stop within this (the kernel re-parents an orphan,
 * to init or a subreaper, so `process.ppid` stops being the sweep's pid).
 */
export const PARENT_POLL_MS = 500;

/**
 * The watch as a worker thread, so it looks at the parent even while the run's thread is busy in a synchronous
 * loop (overfit's updates, a scoring pass) where no timer of that thread fires. When the parent is gone it tells
 * the run's thread, which answers and stops as Ctrl-C would; if no answer comes within a second (the thread is
 * still busy), the worker removes the folder's lock and ends the process with SIGKILL.
 */
const WATCHER = `
const { parentPort, workerData } = require("node:worker_threads");
const { rmSync } = require("node:fs");
const timer = setInterval(() => {
  if (process.ppid === workerData.parent) return;
  clearInterval(timer);
  const kill = setTimeout(() => {
    rmSync(workerData.lock, { force: true });
    process.kill(process.pid, "SIGKILL");
  }, 1000);
  parentPort.once("message", () => clearTimeout(kill));
  parentPort.postMessage("gone");
}, workerData.every);
`;

/**
 * When this process is a sweep's run (SWEEP_PARENT_ENV set): lock its folder, and when the sweep is gone, stop
 * as Ctrl-C would (a run that saves state saves it), then at once if it is still there a second later.
 */
export function startAsSweepChild(env: NodeJS.ProcessEnv = process.env): void {
  const parent = Number(env[SWEEP_PARENT_ENV]);
  if (!Number.isSafeInteger(parent) || parent <= 0) return;
  const lock = join(process.cwd(), SWEEP_RUN_LOCK);
  // whether the command listens to SIGINT itself, besides the listener below
  const ownHandler = () => process.listenerCount("SIGINT") > 1;
  acquireLock(lock, `sweep run folder ${process.cwd()}`);
  const watcher = new Worker(WATCHER, { eval: true, workerData: { parent, lock, every: PARENT_POLL_MS } });
  watcher.on("message", () => {
    watcher.postMessage("stopping"); // this thread heard it: from here it stops, and exits through its exit hooks
    console.error(`tinylab: the sweep (process ${parent}) that started this run is gone; stopping`);
    // a command that handles Ctrl-C (training) stops after its update and saves; any other exits now, its locks released
    if (!ownHandler()) process.exit(130);
    process.kill(process.pid, "SIGINT");
    setTimeout(() => process.exit(130), 1000).unref();
  });
  // the sweep's SIGINT (its Ctrl-C, passed on) or a scheduler's SIGTERM (scancel, a time limit, sent to every process
  // of the task) may come before the command has its own handler, or to one that has none: then exit through the
  // exit hooks, which a signal death never runs (its locks would be left). A command with a handler of its own (training)
  // stops after its update; while this thread is busy in a synchronous loop the watch ends the run once the task is gone.
  process.on("SIGINT", () => {
    if (!ownHandler()) process.exit(130);
  });
  process.on("SIGTERM", () => (ownHandler() ? process.kill(process.pid, "SIGINT") : process.exit(143)));
  watcher.unref(); // after the listener, which would hold the process open: a finished run exits as it would alone
}
