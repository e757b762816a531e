// The output lock: one live writer per output directory or model path, stale locks of dead writers taken over,
// released on exit; and two real `tinylab train` processes on one output directory, the second refused.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock, DIRECTORY_LOCK, LockedError } from "../../src/node/lock.ts";
import { start, tinylab } from "../cli/spawn.ts";
import { raceForStale } from "./lock_race.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("acquireLock", () => {
  it("holds a lock file naming this pid, refuses a live holder by pid, and removes the file on release", () => {
    const path = join(dir, "a.lock");
    const lock = acquireLock(path, "output directory X");
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    writeFileSync(join(dir, "b.lock"), JSON.stringify({ pid: 4242 }));
    expect(() => acquireLock(join(dir, "b.lock"), "model path Y", () => true)).toThrow(
      new LockedError(
        `model path Y is in use by process 4242 (lock file ${join(dir, "b.lock")}); wait for it to finish, or remove the lock file if that process is not tinylab`,
      ),
    );
    expect(() => acquireLock(path, "output directory X")).toThrow(/already locked by this process/);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("hooks process exit only while it holds a lock (a command run in a test's process leaves no listener)", () => {
    const before = process.listeners("exit");
    const [a, b] = [acquireLock(join(dir, "h1.lock"), "x"), acquireLock(join(dir, "h2.lock"), "y")];
    expect(process.listenerCount("exit")).toBe(before.length + 1); // one hook for every lock held
    a.release();
    expect(process.listenerCount("exit")).toBe(before.length + 1);
    b.release();
    expect(process.listeners("exit")).toEqual(before);
  });

  it("takes over a stale lock whose owner is gone, and an unreadable one", () => {
    const stale = join(dir, "stale.lock");
    writeFileSync(stale, JSON.stringify({ pid: 999999999 })); // above any pid_max: never a live process
    const a = acquireLock(stale, "x");
    expect(JSON.parse(readFileSync(stale, "utf8")).pid).toBe(process.pid);
    a.release();
    writeFileSync(stale, "half-written");
    acquireLock(stale, "x").release();
    expect(existsSync(stale)).toBe(false);
  });
});

describe("a stale lock found by several processes at once", () => {
  it("goes to exactly one of them in each of 200 trials (no second holder ever deletes the first's fresh lock)", async () => {
    const r = await raceForStale("lock", join(dir, "race"), JSON.stringify({ pid: 999999999 }), 200); // above any pid_max: a dead owner's lock
    expect(r.holders.filter((n) => n !== 1)).toEqual([]); // exactly one holder in every trial
    expect(r.holders).toHaveLength(200);
    for (const e of r.refusals) expect(e).toMatch(/^race is in use by process \d+ \(lock file /);
    // nothing left behind but the released locks' absence: no guard file, no temp file
    expect(r.leftovers).toEqual([]);
  }, 60_000);
});

describe("two training runs on one output directory", () => {
  it("refuses the second while the first runs, naming the first's pid; the first, stopped, leaves no lock", async () => {
    const ckpt = join(dir, "shared");
    const first = start(["train", "--updates", "100000", "--log-every", "1", "--out", ckpt]);
    await first.waitFor(/update\s+1 /);
    const second = await tinylab(["train", "--updates", "10", "--out", ckpt]);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(
      `tinylab: error: output directory ${ckpt} is in use by process ${first.child.pid} (lock file ${join(ckpt, DIRECTORY_LOCK)}); wait for it to finish, or remove the lock file if that process is not tinylab`,
    );
    first.child.kill("SIGINT"); // stops after the update in progress (tests/cli/interrupt.test.ts)
    const done = await first.done;
    expect(done.code).toBe(130);
    expect(existsSync(join(ckpt, DIRECTORY_LOCK))).toBe(false);
  });
});
