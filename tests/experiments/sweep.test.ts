// The sweep's paths and folders, in process: a grid value never leaves --out (it is encoded into the folder name),
// a folder the sweep did not make or a live run still holds is never cleared, and --collect refuses a run folder
// without its result and a result whose seed is not its folder's. The spawned runs are in tests/cli/sweep.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { collectSweep, parseGrid, planSweep, runSweep } from "../../experiments/sweep.ts";
import { SWEEP_RUN_LOCK } from "../../src/node/child_watch.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-sweep-paths-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const quiet = () => {};

describe("sweep run folders", () => {
  it("encodes a grid value that is a path: the folder stays directly under --out and the run gets the absolute path", () => {
    const [run] = planSweep("cyclic", [39], parseGrid("split-file=/../../../victim/x"), []);
    expect(run.name).toBe("split-file=%2F..%2F..%2F..%2Fvictim%2Fx,seed=39");
    expect(run.args).toContain("/victim/x");
    const [rel] = planSweep("cyclic", [39], parseGrid("split-file=splits/a.json"), []);
    expect(rel.args[rel.args.indexOf("--split-file") + 1]).toBe(join(process.cwd(), "splits/a.json"));
    expect(planSweep("overfit", [1], parseGrid("lr=a=b"), [])[0].name).toBe("lr=a%3Db,seed=1");
    expect(() => planSweep("overfit", [1], parseGrid(`lr=${"x".repeat(300)}`), [])).toThrow(
      /longer than the 245 bytes a name may be \(MAX_RUN_NAME_BYTES\)/,
    );
  });

  it("refuses an empty grid value, as every list option refuses an empty element", () => {
    for (const [spec, say] of [
      ["lr=1,,2", 'value 2 of "1,,2"'],
      ["lr=,1", 'value 1 of ",1"'],
      ["lr=1,", 'value 2 of "1,"'],
    ]) {
      expect(() => parseGrid(spec)).toThrow(`--grid: lr: ${say} is empty; give each value once, separated by single commas`);
    }
  });

  it("reads --name=value after -- as --name value: an input path made absolute, an output path confined to the run folder", () => {
    const [run] = planSweep("cyclic", [39], [], ["--split-file=splits/a.json"]);
    expect(run.args.slice(run.args.indexOf("--split-file"), run.args.indexOf("--split-file") + 2)).toEqual([
      "--split-file",
      join(process.cwd(), "splits/a.json"),
    ]);
    for (const v of ["../x.safetensors", "/tmp/x.safetensors", "a/../../x.safetensors"]) {
      expect(() => planSweep("overfit", [39], [], [`--save-model=${v}`])).toThrow(
        `after --, --save-model ${v}: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors`,
      );
    }
    expect(planSweep("overfit", [39], [], ["--save-model=m.safetensors"])[0].args).toContain("m.safetensors");
  });

  it("a path value runs (and fails) inside --out: nothing outside it is removed or written", async () => {
    const out = join(dir, "escape", "OUT", "a");
    const victim = join(dir, "escape", "OUT", "victim", "x,seed=39");
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, "keep.txt"), "mine");
    const runs = planSweep("cyclic", [39], parseGrid("split-file=/../../../victim/x"), []);
    await expect(runSweep({ recipe: "cyclic", runs, out, jobs: 1, log: quiet })).rejects.toThrow(/1 run\(s\) failed/);
    expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("mine");
    expect(readdirSync(join(dir, "escape", "OUT", "victim"))).toEqual(["x,seed=39"]);
    expect(readdirSync(out).sort()).toEqual([
      "split-file=%2F..%2F..%2F..%2Fvictim%2Fx,seed=39",
      "split-file=%2F..%2F..%2F..%2Fvictim%2Fx,seed=39.log",
    ]);
  }, 60_000);

  it("refuses to clear a folder it did not make, and one a live run holds, before starting anything", async () => {
    const runs = planSweep("overfit", [39], [], []);
    const foreign = join(dir, "foreign");
    mkdirSync(join(foreign, "seed=39"), { recursive: true });
    writeFileSync(join(foreign, "seed=39", "notes.txt"), "not the sweep's");
    await expect(runSweep({ recipe: "overfit", runs, out: foreign, jobs: 1, log: quiet })).rejects.toThrow(
      `sweep: ${join(foreign, "seed=39")} was not made by a sweep (there is no seed=39.log beside it); move it away or choose another --out`,
    );
    expect(readFileSync(join(foreign, "seed=39", "notes.txt"), "utf8")).toBe("not the sweep's");

    const held = join(dir, "held");
    mkdirSync(join(held, "seed=39"), { recursive: true });
    writeFileSync(join(held, "seed=39.log"), "");
    // a run of a killed sweep still alive (here: a live pid that is not this process)
    writeFileSync(join(held, "seed=39", SWEEP_RUN_LOCK), JSON.stringify({ pid: process.ppid }) + "\n");
    await expect(runSweep({ recipe: "overfit", runs, out: held, jobs: 1, log: quiet })).rejects.toThrow(
      `is in use by process ${process.ppid}`,
    );
    expect(existsSync(join(held, "seed=39", SWEEP_RUN_LOCK))).toBe(true);
    expect(existsSync(join(held, ".tinylab.lock"))).toBe(false); // the sweep's own lock on --out, released
  });
});

describe("sweep --collect", () => {
  const cyclicResult = (seed: number) => JSON.stringify({ options: { seed }, scores: { train: [{ nll: 1 }], validation: [{ nll: 2 }] } });
  const made = (name: string, files: Record<string, string>, top: Record<string, string> = {}) => {
    const root = join(dir, name);
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(root, f, ".."), { recursive: true });
      writeFileSync(join(root, f), text);
    }
    for (const [f, text] of Object.entries(top)) writeFileSync(join(root, f), text);
    return root;
  };

  it("reads back encoded grid values as given", () => {
    const root = made("decoded", { "split-file=%2Fa%2Cb,seed=3/cyclic.json": cyclicResult(3) });
    expect(collectSweep(root).map((r) => [r.name, r.seed, r.grid])).toEqual([["split-file=%2Fa%2Cb,seed=3", 3, { "split-file": "/a,b" }]]);
  });

  it("refuses a run folder marked done whose result is gone, naming it (not a table one row short)", () => {
    const root = made("lost", { "seed=1/cyclic.json": cyclicResult(1), "seed=2/cyclic.log.txt": "" }, { "seed=2.done.json": "{}" });
    expect(() => collectSweep(root)).toThrow(`--collect: 1 run folder(s) under ${root} hold no result (seed=2)`);
  });

  it("refuses a result whose own seed is not its folder's", () => {
    const root = made("moved", { "seed=42/cyclic.json": cyclicResult(777) });
    expect(() => collectSweep(root)).toThrow(
      `${join(root, "seed=42", "cyclic.json")}: the result is of seed 777, but its folder seed=42 is seed 42`,
    );
  });
});
