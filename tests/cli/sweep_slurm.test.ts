// `tinylab sweep --scheduler slurm` on a real single-node Slurm cluster (tools/slurm_cluster.sh, on its own ports and
// state folder, so it never meets a user's cluster): the overfit seeds and a 2 × 2 train grid give the local sweep's
// table, the job-completion log shows the tasks COMPLETED, a rerun submits nothing; a failed task is named with its
// state, exit code and log, and the rerun submits only it; Ctrl-C cancels the array and leaves no lock and no
// half-written file; `sweep --task env` with a Kubernetes JOB_COMPLETION_INDEX equals the local run of that entry;
// the cluster's stop leaves nothing running, even a job whose daemons were killed with SIGKILL.
// Required in CI (TINYLAB_REQUIRE_SLURM=1 from .ci/run, which installs the packages): there a cluster that cannot
// start fails the suite; elsewhere the file is skipped, naming what to install, when the daemons are missing.
import { spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start, type Finished } from "./spawn.ts";
import { STORY } from "../story.ts";

const SCRIPT = resolve(import.meta.dirname, "../../tools/slurm_cluster.sh");
const INSTALL = "apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge";
const REQUIRE_SLURM = process.env.TINYLAB_REQUIRE_SLURM === "1";
const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const missing = ["slurmctld", "slurmd", "sbatch", "munged"].filter((c) => !has(c));
const notRoot = process.getuid?.() !== 0;
const SKIP = (missing.length > 0 || notRoot) && !REQUIRE_SLURM;
if (SKIP)
  console.warn(
    `skipping the Slurm tests: ${missing.length > 0 ? `${missing.join(", ")} not installed (${INSTALL})` : "they need root (slurmd runs jobs as their users)"}`,
  );

/** Two free TCP ports in a row (the controller's and the node's), so the test cluster meets no other. */
async function freePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((res) => {
      const s = createServer()
        .once("error", () => res(false))
        .listen(port, "127.0.0.1", () => s.close(() => res(true)));
    });
  for (;;) {
    const p = 20000 + Math.floor(Math.random() * 40000);
    if ((await free(p)) && (await free(p + 1))) return p;
  }
}

/** Every path under `dir`, relative to it. */
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
/** A row without where its result file is (each sweep has its own --out). */
const placeless = (rows: { result: string }[]) => rows.map(({ result: _, ...r }) => r);

// small and fast: a few updates of a tiny model, scored once on validation
const TRAIN = [
  "--layers",
  "1",
  "--d-model",
  "8",
  "--heads",
  "2",
  "--d-ff",
  "16",
  "--context",
  "16",
  "--batch-rows",
  "2",
  "--updates",
  "3",
  "--eval-every",
  "3",
  "--log-every",
  "1000",
  "--tokenizer",
  "byte",
];

// the four sweeps at once: each mostly waits on its tasks, which Slurm runs on the node's cores as they free up
describe.skipIf(SKIP)("tinylab sweep --scheduler slurm on a single-node cluster", { concurrent: true }, () => {
  let dir: string;
  let env: Record<string, string>;
  /** Every tinylab this file starts: one still running when the file ends (a test timed out) is killed before the cluster stops. */
  const started: ChildProcess[] = [];
  const launch = (args: string[], more: Record<string, string> = {}) => {
    const p = start(args, dir, { ...env, ...more });
    started.push(p.child);
    return p;
  };
  const run = (args: string[], more: Record<string, string> = {}): Promise<Finished> => launch(args, more).done;
  /** The job id a sweep printed on submitting. */
  const jobOf = (r: Finished) => /submitted \d+ runs as Slurm job (\d+)/.exec(r.stdout + r.stderr)?.[1];
  /** The job-completion log's records of job `id`'s array tasks: task id → JobState. */
  const completions = (id: string) =>
    new Map(
      readFileSync(join(dir, "cluster", "jobcomp.log"), "utf8")
        .split("\n")
        .filter((l) => l.includes(` ArrayJobId=${id} `))
        .map((l) => [Number(/ArrayTaskId=(\d+)/.exec(l)![1]), /JobState=(\S+)/.exec(l)![1]]),
    );

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(`the Slurm tests need ${missing.join(", ")}: ${INSTALL}`);
    dir = mkdtempSync(join(tmpdir(), "tinylab-slurm-"));
    chmodSync(dir, 0o755); // munged runs as user munge, who must reach its folder inside
    const r = spawnSync("bash", [SCRIPT, "start", join(dir, "cluster"), String(await freePorts())], { encoding: "utf8" });
    if (r.status !== 0)
      throw new Error(`the test cluster did not start (tools/slurm_cluster.sh exited ${r.status ?? r.signal}): ${r.stderr.trim()}`);
    env = { SLURM_CONF: join(dir, "cluster", "slurm.conf") };
    writeFileSync(join(dir, "story.txt"), STORY);
  }, 60_000);

  afterAll(async () => {
    if (!dir) return;
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    const cluster = join(dir, "cluster");
    // the hard case for the stop: a job running when the daemons die by SIGKILL (its slurmstepd and the job outlive them)
    const submitted = spawnSync("sbatch", ["--parsable", "--output=/dev/null", `--chdir=${dir}`], {
      input: "#!/bin/sh\nexec sleep 3117\n",
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    const job = submitted.stdout.trim();
    const processes = () =>
      spawnSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((l) => !l.startsWith("Z"));
    const jobRunning = () =>
      processes().some((l) => l.includes("sleep 3117")) && processes().some((l) => l.includes(`slurmstepd: [${job}.batch]`));
    for (const t0 = Date.now(); !jobRunning() && Date.now() - t0 < 30_000;) await new Promise((r) => setTimeout(r, 100));
    const wasRunning = jobRunning();
    for (const f of ["slurmctld.pid", "slurmd.pid"]) process.kill(Number(readFileSync(join(cluster, f), "utf8")), "SIGKILL");
    // the stop fails unless every process of the cluster (daemons, slurmstepd, jobs) has ended
    const r = spawnSync("bash", [SCRIPT, "stop", cluster], { encoding: "utf8" });
    const left = processes().filter((l) => l.includes("sleep 3117") || l.includes(`slurmstepd: [${job}.`) || l.includes(cluster));
    rmSync(dir, { recursive: true, force: true });
    expect([submitted.status, wasRunning], submitted.stderr).toEqual([0, true]);
    expect(r.status, r.stderr).toBe(0);
    expect(left).toEqual([]);
  }, 90_000);

  it("overfit over 3 seeds: the local sweep's table, every task COMPLETED in the job-completion log; a rerun submits nothing", async () => {
    const args = ["sweep", "overfit", "--seeds", "39,40,41", "--jobs", "2", "--out", "overfit", "--scheduler", "slurm", "--json"];
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout).runs;
    // docs/sweeps.md's table of the local sweep (and the README's update-80 NLLs), seed by seed
    expect(
      rows.map((x: { name: string; train_nll: number; validation_nll: number }) => [
        x.name,
        x.train_nll.toFixed(6),
        x.validation_nll.toFixed(6),
      ]),
    ).toEqual([
      ["seed=39", "0.156560", "4.364098"],
      ["seed=40", "0.155452", "4.621237"],
      ["seed=41", "0.157041", "4.733466"],
    ]);
    expect(r.stderr).toMatch(/Slurm job \d+: 3 of 3 ended \(3 completed\)/); // the progress, on stderr
    const job = jobOf(r)!;
    expect(completions(job)).toEqual(
      new Map([
        [0, "COMPLETED"],
        [1, "COMPLETED"],
        [2, "COMPLETED"],
      ]),
    );
    const again = await run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("all 3 runs already finished");
    expect(jobOf(again)).toBeUndefined();
    expect(JSON.parse(again.stdout).runs).toEqual(rows);
  });

  it("a 2 × 2 train grid gives the local sweep's rows; --task env with JOB_COMPLETION_INDEX runs that entry as the local sweep did", async () => {
    const sweep = (out: string, more: string[]) => [
      "sweep",
      "train",
      "--grid",
      "lr=0.01,0.03",
      "--seeds",
      "1,2",
      "--out",
      out,
      ...more,
      "--json",
      "--",
      "--text",
      "story.txt",
      ...TRAIN,
    ];
    const [slurm, local] = await Promise.all([
      run(sweep("grid-slurm", ["--scheduler", "slurm"])),
      run(sweep("grid-local", ["--jobs", "2"])),
    ]);
    expect(slurm.code, slurm.stderr).toBe(0);
    expect(local.code, local.stderr).toBe(0);
    const rows = JSON.parse(local.stdout).runs;
    expect(rows.map((x: { name: string }) => x.name)).toEqual(["lr=0.01,seed=1", "lr=0.01,seed=2", "lr=0.03,seed=1", "lr=0.03,seed=2"]);
    expect(placeless(JSON.parse(slurm.stdout).runs)).toEqual(placeless(rows));
    expect(completions(jobOf(slurm)!)).toEqual(new Map([0, 1, 2, 3].map((i) => [i, "COMPLETED"])));
    // entry 2 alone, as a Kubernetes Indexed Job's pod would run it
    const task = await run(sweep("grid-task", ["--task", "env"]), { JOB_COMPLETION_INDEX: "2" });
    expect(task.code, task.stderr).toBe(0);
    expect(task.stderr).toContain("sweep: task 2: lr=0.03,seed=1");
    const name = "lr=0.03,seed=1";
    expect(tree(join(dir, "grid-task"))).toEqual(
      [name, `${name}.done.json`, `${name}.log`, ...tree(join(dir, "grid-local", name)).map((f) => join(name, f))].sort(),
    );
    const collected = await run(["sweep", "--collect", "grid-task", "--json"]);
    expect(placeless(JSON.parse(collected.stdout).runs)).toEqual(placeless([rows[2]]));
    expect(readFileSync(join(dir, "grid-task", name, "model.safetensors"))).toEqual(
      readFileSync(join(dir, "grid-local", name, "model.safetensors")),
    );
  });

  it("a failed task is named with its Slurm state, exit code and log; the others are kept and the rerun submits only it", async () => {
    // --checkpoints 0,4 is past --updates 3: that run refuses it when it starts, the --updates 4 run finishes
    // with the site's own options passed through to sbatch (the job-completion log shows them)
    const args = [
      "sweep",
      "overfit",
      "--seeds",
      "1",
      "--grid",
      "updates=3,4",
      "--out",
      "fail",
      "--scheduler",
      "slurm",
      "--sbatch",
      "partition=debug time=7 mem=300M",
      "--",
      "--checkpoints",
      "0,4",
    ];
    const r = await run(args);
    expect(r.code).toBe(1);
    const job = jobOf(r)!;
    const log = join("fail", "updates=3,seed=1.log");
    expect(r.stderr).toContain(
      `sweep: updates=3,seed=1 (task 0 of Slurm job ${job}) FAILED with exit code 1; log ${log}, Slurm's output ${join("fail", `slurm-${job}_0.out`)}`,
    );
    expect(readFileSync(join(dir, log), "utf8")).toContain("--checkpoints: checkpoint 4 is outside [0, 3]");
    expect(r.stderr).toContain("tinylab: error: sweep: 1 of 2 Slurm tasks failed (updates=3,seed=1)");
    expect(completions(job)).toEqual(
      new Map([
        [0, "FAILED"],
        [1, "COMPLETED"],
      ]),
    );
    const record = readFileSync(join(dir, "cluster", "jobcomp.log"), "utf8")
      .split("\n")
      .find((l) => l.includes(` ArrayJobId=${job} ArrayTaskId=1 `))!;
    expect(record).toMatch(/ Partition=debug TimeLimit=7 .*Tres=cpu=1,mem=300M,/);
    const kept = statSync(join(dir, "fail", "updates=4,seed=1.done.json")).mtimeMs;
    const again = await run(args);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(
      /1 of 2 runs already finished .*; submitting the other 1\nsweep: submitted 1 runs as Slurm job \d+ \(array 0\)/,
    );
    expect(completions(jobOf(again)!)).toEqual(new Map([[0, "FAILED"]]));
    expect(statSync(join(dir, "fail", "updates=4,seed=1.done.json")).mtimeMs).toBe(kept);
  });

  it("Ctrl-C cancels the array and exits 130, leaving no lock and no half-written file", async () => {
    // two entries, one task at a time: one runs when Ctrl-C comes, the other is still pending
    const p = launch([
      "sweep",
      "overfit",
      "--seeds",
      "1,2",
      "--jobs",
      "1",
      "--out",
      "cancel",
      "--scheduler",
      "slurm",
      "--",
      "--updates",
      "20000",
      "--checkpoints",
      "0,20000",
    ]);
    const job = (await p.waitFor(/as Slurm job (\d+)/))[1];
    // the running task's run has started (it holds its folder), and 20,000 updates take minutes
    const running = () => {
      try {
        return statSync(join(dir, "cancel", "seed=1", ".tinylab-run.lock")).isFile();
      } catch {
        return false;
      }
    };
    for (const t0 = Date.now(); !running() && Date.now() - t0 < 100_000;) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toBe(true);
    p.child.kill("SIGINT");
    const r = await p.done;
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(r.stderr).toContain(`cancelled Slurm job ${job}`);
    const states = spawnSync("squeue", ["-h", "-r", "-t", "all", "-j", job, "-o", "%K %T"], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    })
      .stdout.trim()
      .split("\n")
      .sort();
    expect(states).toEqual(["0 CANCELLED", "1 CANCELLED"]);
    // what is left: the started run's log and part-made folder (cleared by the next sweep) and Slurm's output; no
    // lock (.lock, .tinylab*.lock), no .done.json, no sweep.json, no temp file
    const left = tree(join(dir, "cancel"));
    expect(left.filter((f) => /\.lock$|\.done\.json$|sweep\.json$|\.tmp/.test(f))).toEqual([]);
    expect(left.filter((f) => !f.includes("/"))).toEqual(["seed=1", "seed=1.log", `slurm-${job}_0.out`]);
  });
});
