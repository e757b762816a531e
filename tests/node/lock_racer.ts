// Helper process for lock.test.ts and task_claim.test.ts, not a test: takes locks (or sweep claims) when told to, at
// instants shared with the other racers, and says whether it got each one; it holds each until told to let go.
import { basename, dirname } from "node:path";
import { acquireLock, type Lock } from "../../src/node/lock.ts";
import { claimRun } from "../../src/node/task_claim.ts";

export type RaceKind = "lock" | "claim";
const take = (kind: RaceKind, path: string): Lock =>
  kind === "lock" ? acquireLock(path, "race") : claimRun(dirname(path), basename(path, ".lock"), "");

const held = new Map<number, Lock>();
process.on(
  "message",
  (m: { kind: RaceKind; trials: { trial: number; path: string }[]; at: number; gap: number } | { release: number[] } | "exit") => {
    if (m === "exit") process.exit(0);
    if ("release" in m) {
      for (const t of m.release) held.get(t)?.release();
      for (const t of m.release) held.delete(t);
      return;
    }
    for (const [i, { trial, path }] of m.trials.entries()) {
      while (Date.now() < m.at + i * m.gap); // spin to the trial's shared instant: every racer finds the stale lock at once
      try {
        held.set(trial, take(m.kind, path));
        process.send!({ trial, got: true });
      } catch (err) {
        process.send!({ trial, got: false, error: (err as Error).message });
      }
    }
  },
);
process.send!("ready");
