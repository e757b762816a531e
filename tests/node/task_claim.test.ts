// A sweep task's claim on its run (src/node/task_claim.ts): refused while a live process of this host or any process
// of another host holds it, named in the refusal; a dead one of this host taken over; a finished job's stale claims
// removed wherever they were made; released at exit; a stale claim found by several processes at once taken by one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claimFile, claimHolder, claimRun, removeClaimsOf } from "../../src/node/task_claim.ts";
import { raceForStale } from "./lock_race.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-claim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plant = (name: string, claim: object) => writeFileSync(claimFile(dir, name), JSON.stringify(claim));

describe("task claims", () => {
  it("claims a free run with host, pid and job, refuses a second claim while held, and frees it on release", () => {
    const c = claimRun(dir, "seed=1", "12_0");
    expect(JSON.parse(readFileSync(claimFile(dir, "seed=1"), "utf8"))).toMatchObject({ host: hostname(), pid: process.pid, job: "12_0" });
    expect(() => claimRun(dir, "seed=1", "12_1")).toThrow(
      `sweep: run seed=1 is held by process ${process.pid} on ${hostname()} (job 12_0)`,
    );
    c.release();
    expect(existsSync(claimFile(dir, "seed=1"))).toBe(false);
  });

  it("takes over a dead process's claim of this host, or the same task's; never another's of another host, whose pid it cannot check", () => {
    plant("dead", { host: hostname(), pid: 2 ** 31 - 2, job: "", started: "then" });
    expect(claimHolder(dir, "dead")).toBeUndefined();
    claimRun(dir, "dead", "").release();
    plant("far", { host: "node-17", pid: 2 ** 31 - 2, job: "40_3", started: "then" });
    expect(claimHolder(dir, "far")).toBe("process 2147483646 on node-17 (job 40_3), since then");
    expect(() => claimRun(dir, "far", "")).toThrow(
      /held by process 2147483646 on node-17 \(job 40_3\).*if that task is gone, remove the file/,
    );
    // the same task started again by its scheduler (a requeue, a retry): the earlier attempt has ended
    claimRun(dir, "far", "40_3").release();
  });

  it("removes the claims of an ended job only", () => {
    plant("a", { host: "node-1", pid: 5, job: "41_0", started: "then" });
    plant("b", { host: "node-2", pid: 5, job: "410_1", started: "then" });
    expect(removeClaimsOf(dir, (j) => j.startsWith("41_"))).toEqual(["a.lock"]);
    expect(existsSync(claimFile(dir, "b"))).toBe(true);
  });
});

describe("a stale claim found by several tasks at once", () => {
  it("goes to exactly one of them in each of 200 trials (no second claimant ever deletes the first's fresh claim)", async () => {
    const stale = JSON.stringify({ host: hostname(), pid: 999999999, job: "", started: "then" }); // above any pid_max: a dead task of this host
    const r = await raceForStale("claim", join(dir, "race"), stale, 200);
    expect(r.holders.filter((n) => n !== 1)).toEqual([]);
    expect(r.holders).toHaveLength(200);
    for (const e of r.refusals)
      expect(e).toMatch(
        new RegExp(`^sweep: run \\d+ is held by process \\d+ on ${hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, since .* \\(claim `),
      );
    expect(r.leftovers).toEqual([]);
  }, 60_000);
});
