// Test helper, not a test: processes (lock_racer.ts) that find the same stale lock or claim at one instant, trial
// after trial, and how many of them took it each time. lock.test.ts and task_claim.test.ts race with it.
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RaceKind } from "./lock_racer.ts";

export interface RaceResult {
  /** How many racers took the lock, per trial (each must be 1). */
  holders: number[];
  /** The refusals of the racers that did not. */
  refusals: string[];
  /** What is left in the race's directory but the trials' own lock files (guards, temp files: must be none). */
  leftovers: string[];
}

/** `racers` processes race `trials` times in `dir` for a lock file planted as `stale` (a dead owner's) before each trial. */
export async function raceForStale(kind: RaceKind, dir: string, stale: string, trials: number, racers = 3): Promise<RaceResult> {
  const script = fileURLToPath(new URL("./lock_racer.ts", import.meta.url));
  const children: ChildProcess[] = Array.from({ length: racers }, () =>
    fork(script, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
  );
  const replies = new Map<number, { got: boolean; error?: string }[]>();
  let wake: (() => void) | undefined;
  let pending = 0;
  await Promise.all(children.map((r) => new Promise<void>((ready) => r.once("message", () => ready()))));
  for (const r of children) {
    r.on("message", (m: { trial: number; got: boolean; error?: string }) => {
      replies.set(m.trial, [...(replies.get(m.trial) ?? []), m]);
      if (--pending === 0) wake?.();
    });
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const result: RaceResult = { holders: [], refusals: [], leftovers: [] };
  // trials go in rounds (one message each way per round, not per trial: a loaded machine's IPC is slow), each
  // trial of a round at its own instant, a few milliseconds after the one before
  const ROUND = 20,
    GAP_MS = 3;
  try {
    for (let first = 0; first < trials; first += ROUND) {
      const round = Array.from({ length: Math.min(ROUND, trials - first) }, (_, i) => ({
        trial: first + i,
        path: join(dir, `${first + i}.lock`),
      }));
      for (const { path } of round) writeFileSync(path, stale);
      const all = new Promise<void>((res) => {
        wake = res;
      });
      pending = round.length * racers;
      const at = Date.now() + 20;
      for (const r of children) r.send({ kind, trials: round, at, gap: GAP_MS });
      await all;
      for (const { trial } of round) {
        const got = replies.get(trial)!;
        result.holders.push(got.filter((g) => g.got).length);
        result.refusals.push(...got.filter((g) => !g.got).map((g) => g.error ?? ""));
      }
      for (const r of children) r.send({ release: round.map((t) => t.trial) });
    }
  } finally {
    for (const r of children) r.send("exit");
    await Promise.all(children.map((r) => new Promise((res) => (r.exitCode !== null ? res(null) : r.once("exit", res)))));
  }
  result.leftovers = readdirSync(dir).filter((f) => !/^\d+\.lock$/.test(f));
  return result;
}
