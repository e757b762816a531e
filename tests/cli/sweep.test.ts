// `tinylab sweep` of the overfit recipe over 3 seeds with --jobs 2: each run's directory holds what the same
// command run alone writes (JSON equal apart from the date, SVG bit for bit); a finished run is not redone;
// --collect gives the same rows; the table is in plan order; bad grids are refused before any run starts (through
// the CLI's own code in this process: tests/cli/in_process.ts).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseGrid, planSweep } from "../../experiments/sweep.ts";
import { SWEEP_RUN_LOCK } from "../../src/node/child_watch.ts";
import { isAlive } from "../../src/util/runtime/process.ts";
import { start, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-sweep-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const json = (p: string) => JSON.parse(readFileSync(p, "utf8"));
const undated = (j: { provenance: { date: string } }) => ({ ...j, provenance: { ...j.provenance, date: "(date)" } });

describe("tinylab sweep", () => {
  it("overfit over 3 seeds with --jobs 2: each run equals the run done alone; a second sweep redoes nothing; --collect agrees", async () => {
    const out = join(dir, "out");
    const sweeping = tinylab(["sweep", "overfit", "--seeds", "39,40,41", "--jobs", "2", "--out", out, "--json"]);
    // the same command alone, in a directory of its own: what the sweep's child ran (`tinylab overfit --seeds S --backend wasm
    // --out .`), run here (the CLI's own code, tests/cli/in_process.ts) while the sweep's children run theirs
    const alone: string[] = [];
    for (const seed of [39, 40, 41]) {
      const cwd = join(dir, `alone-${seed}`);
      mkdirSync(cwd);
      const r = await tinylabHere(["overfit", "--seeds", String(seed), "--backend", "wasm", "--out", "."], { cwd });
      expect(r.code, r.stderr).toBe(0);
      alone.push(cwd);
    }
    const sweep = await sweeping;
    expect(sweep.code, sweep.stderr).toBe(0);
    const result = JSON.parse(sweep.stdout);
    expect(result.runs.map((r: { name: string }) => r.name)).toEqual(["seed=39", "seed=40", "seed=41"]); // plan order, not arrival
    for (const [i, seed] of [39, 40, 41].entries()) {
      const run = join(out, `seed=${seed}`);
      expect(readdirSync(run).sort()).toEqual(readdirSync(alone[i]).sort());
      expect(undated(json(join(run, "overfit.json")))).toEqual(undated(json(join(alone[i], "overfit.json"))));
      expect(readFileSync(join(run, "overfit.svg"))).toEqual(readFileSync(join(alone[i], "overfit.svg")));
      expect(result.runs[i].validation_nll).toBe(json(join(alone[i], "overfit.json")).runs[0].checkpoints.at(-1).validation.nll);
    }
    // the README's seed-39 final validation NLL, through the sweep
    expect(result.runs[0].validation_nll.toFixed(6)).toBe("4.364098");
    const modified = statSync(join(out, "seed=40", "overfit.json")).mtimeMs;
    const again = await tinylabHere(["sweep", "overfit", "--seeds", "39,40,41", "--jobs", "2", "--out", out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("sweep: 3 of 3 runs already finished");
    expect(statSync(join(out, "seed=40", "overfit.json")).mtimeMs).toBe(modified);
    const collected = await tinylabHere(["sweep", "--collect", out, "--json"]);
    expect(collected.code, collected.stderr).toBe(0);
    expect(JSON.parse(collected.stdout).runs).toEqual(result.runs);
    // sweep.csv: the same rows, every digit of the NLLs
    const csv = readFileSync(join(out, "sweep.csv"), "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe("run,recipe,seed,train_nll,train_nll_reason,validation_nll,validation_nll_reason,result");
    expect(csv.slice(1).map((l) => l.split(",").slice(0, 6))).toEqual(
      result.runs.map((r: { name: string; seed: number; train_nll: number; validation_nll: number }) => [
        r.name,
        "overfit",
        String(r.seed),
        String(r.train_nll),
        "",
        String(r.validation_nll),
      ]),
    );
  });

  it("SIGINT stops the children; the interrupted runs are not marked done and the next sweep finishes them", async () => {
    const out = join(dir, "int");
    const p = start([
      "sweep",
      "overfit",
      "--seeds",
      "1,2",
      "--jobs",
      "2",
      "--out",
      out,
      "--",
      "--updates",
      "20000",
      "--checkpoints",
      "0,20000",
    ]);
    await p.waitFor(/sweep: overfit × 2 runs/);
    // both children started (each holds its run's folder); 20,000 updates take minutes, so neither is done
    const held = () => ["seed=1", "seed=2"].every((run) => existsSync(join(out, run, SWEEP_RUN_LOCK)));
    for (const t0 = Date.now(); !held() && Date.now() - t0 < 30_000;) await new Promise((r) => setTimeout(r, 50));
    expect(held()).toBe(true);
    p.child.kill("SIGINT");
    const stopped = await p.done;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain("sweep interrupted");
    expect(readdirSync(out).filter((f) => f.endsWith(".done.json"))).toEqual([]);
    const resumed = await tinylab([
      "sweep",
      "overfit",
      "--seeds",
      "1,2",
      "--jobs",
      "2",
      "--out",
      out,
      "--",
      "--updates",
      "20",
      "--checkpoints",
      "0,20",
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      readdirSync(out)
        .filter((f) => f.endsWith(".done.json"))
        .sort(),
    ).toEqual(["seed=1.done.json", "seed=2.done.json"]);
  });

  it("a run never outlives a SIGKILLed sweep, and its folder is left unheld", async () => {
    const out = join(dir, "killed");
    const p = start(["sweep", "overfit", "--seeds", "1", "--out", out, "--", "--updates", "20000", "--checkpoints", "0,20000"]);
    await p.waitFor(/sweep: overfit × 1 runs/);
    const lock = join(out, "seed=1", SWEEP_RUN_LOCK);
    const until = async (ok: () => boolean, ms: number) => {
      for (const t0 = Date.now(); !ok() && Date.now() - t0 < ms;) await new Promise((r) => setTimeout(r, 50));
      return ok();
    };
    // the run holds its folder: the lock file is created, then its holder written into it
    const holder = (): number | undefined => {
      try {
        return (JSON.parse(readFileSync(lock, "utf8")) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    };
    expect(await until(() => holder() !== undefined, 20_000)).toBe(true);
    const child = holder()!;
    // by now the run is in overfit's synchronous updates, where no timer of its own thread fires: the watch is a worker thread
    await new Promise((r) => setTimeout(r, 3000));
    p.child.kill("SIGKILL");
    await p.done;
    expect(await until(() => !isAlive(child), 5_000)).toBe(true); // stopped within a few of its looks at the parent (PARENT_POLL_MS apart)
    expect(existsSync(lock)).toBe(false); // released as it stopped
  }, 60_000);

  it("--grid with an option the recipe does not take lists the ones it does", async () => {
    const r = await tinylabHere(["sweep", "overfit", "--grid", "bogus=1,2", "--out", join(dir, "bogus")]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr.trim()).toBe(
      "tinylab: error: --grid bogus: overfit has no option --bogus; it takes --backend, --checkpoints, --figures, --kernels, --lr, --replicates, --save-model, --tensorboard, --updates, --workers",
    );
  });

  it("plans grid × seeds in order with absolute input paths; refuses bad grids by name before any run", async () => {
    const plan = planSweep("train", [1, 2], parseGrid("lr=1e-3,3e-3"), ["--text", "story.txt"]);
    expect(plan.map((r) => r.name)).toEqual(["lr=1e-3,seed=1", "lr=1e-3,seed=2", "lr=3e-3,seed=1", "lr=3e-3,seed=2"]);
    expect(plan[0].args).toEqual([
      "train",
      "--seed",
      "1",
      "--lr",
      "1e-3",
      "--text",
      join(process.cwd(), "story.txt"),
      "--out",
      ".",
      "--json",
    ]);
    expect(() => parseGrid("lr=1 seed=2,3")).toThrow(/--seed is set by the sweep itself/);
    expect(() => parseGrid("lr")).toThrow(/"lr" is not name=v1,v2/);
    const engine = await tinylabHere(["sweep", "overfit", "--out", join(dir, "engine"), "--", "--backend", "cpu"]);
    expect([engine.code, engine.stderr.trim()]).toEqual([
      1,
      "tinylab: error: --backend is the sweep's own option (every run gets it): give it before --, or vary it with --grid",
    ]);
    const bad = await tinylabHere(["sweep", "overfit", "--grid", "lr=0.01,-1", "--out", join(dir, "bad")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe("tinylab: error: --lr must be a finite number > 0, got -1");
  });

  it("--plan lists the entries --task I runs (numbered, and as JSON), running nothing", async () => {
    const out = join(dir, "plan");
    const plan = ["sweep", "overfit", "--grid", "lr=0.01,0.02", "--seeds", "1,2", "--backend", "wasm", "--out", out, "--plan"];
    const list = await tinylabHere(plan);
    expect([list.code, list.stderr]).toEqual([0, ""]);
    expect(list.stdout).toBe(`sweep plan: overfit × 4 runs into ${out}; entry I is what --task I runs
0  lr=0.01,seed=1  tinylab overfit --seeds 1 --lr 0.01 --backend wasm --out .
1  lr=0.01,seed=2  tinylab overfit --seeds 2 --lr 0.01 --backend wasm --out .
2  lr=0.02,seed=1  tinylab overfit --seeds 1 --lr 0.02 --backend wasm --out .
3  lr=0.02,seed=2  tinylab overfit --seeds 2 --lr 0.02 --backend wasm --out .
`);
    const asJson = await tinylabHere([...plan, "--json"]);
    const planned = JSON.parse(asJson.stdout);
    expect(planned.runs.map((r: { index: number; name: string }) => `${r.index} ${r.name}`)).toEqual([
      "0 lr=0.01,seed=1",
      "1 lr=0.01,seed=2",
      "2 lr=0.02,seed=1",
      "3 lr=0.02,seed=2",
    ]);
    expect(planned.runs[3].args).toEqual(["overfit", "--seeds", "2", "--lr", "0.02", "--backend", "wasm", "--out", "."]);
    expect(existsSync(out)).toBe(false);
  });

  it("--task, --scheduler and --sbatch are refused in one line naming the option and the value", async () => {
    const out = join(dir, "task");
    const refused = async (args: string[], env: Record<string, string> = {}) => {
      const r = await tinylabHere(["sweep", "overfit", "--out", out, ...args], {
        env: { TINYLAB_BACKEND: "wasm", TINYLAB_KERNELS: "tfjs", ...env },
      });
      expect(r.code).toBe(1);
      return r.stderr.trim();
    };
    expect(await refused(["--task", "3"])).toBe("tinylab: error: --task 3: the plan has 3 runs, numbered 0 to 2 (sweep --plan lists them)");
    expect(await refused(["--task", "x"])).toBe(
      `tinylab: error: --task must be a plan entry (0, 1, …) or env ($SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX), got "x"`,
    );
    expect(await refused(["--task", "env"])).toBe(
      "tinylab: error: --task env: neither $SLURM_ARRAY_TASK_ID nor $JOB_COMPLETION_INDEX is set; give the entry itself, --task I",
    );
    expect(await refused(["--task", "env"], { SLURM_ARRAY_TASK_ID: "1", JOB_COMPLETION_INDEX: "2" })).toBe(
      "tinylab: error: --task env: $SLURM_ARRAY_TASK_ID is 1 but $JOB_COMPLETION_INDEX is 2; give the entry itself, --task I",
    );
    expect(await refused(["--task", "1", "--scheduler", "slurm"])).toBe(
      "tinylab: error: --collect, --plan, --task and --scheduler slurm are separate ways to use the sweep: give one of them",
    );
    expect(await refused(["--sbatch", "time=5"])).toBe(
      "tinylab: error: --sbatch passes options to Slurm's sbatch: give it with --scheduler slurm",
    );
    expect(await refused(["--scheduler", "slurm", "--sbatch", "array=0-9"])).toMatch(
      /^tinylab: error: --sbatch must be the site's own options only \(the sweep sets array, output, error, chdir, parsable, wrap, wait itself\)/,
    );
    expect(await refused(["--scheduler", "slurm", "--sbatch", "time=0:10:00 5"])).toMatch(
      /^tinylab: error: --sbatch must be sbatch's long options as name=value words \('partition=cpu time=0:30:00'\), and "5" is not one/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
