// Resume across processes: 80 updates straight vs 40, exit, and a new process resuming to 80; and a run killed
// with SIGKILL at seeded moments, resumed each time from its last saved state, ending on the uninterrupted weights.
// A refused resume runs through the CLI's own code in this process (tests/cli/in_process.ts).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Rng } from "../../src/util/primitives/rng.ts";
import { sha256File } from "../../src/node/atomic.ts";
import { loadTrainState } from "../helpers.ts";
import { ok, start, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-train-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const STATE = "train_state.safetensors";

describe("tinylab train across processes", () => {
  it("80 updates straight equal 40 updates, exit, and a new process resuming for 40 more (same model sha256)", async () => {
    const ckpt = join(dir, "half");
    const [straight, first] = await Promise.all([
      tinylab(["train", "--updates", "80", "--save-model", join(dir, "straight.safetensors")]),
      tinylab(["train", "--updates", "40", "--out", ckpt]),
    ]);
    ok(straight);
    expect(ok(first).stdout).toContain(`saved state at update 40 → ${join(ckpt, STATE)}`);
    // one after the other: two runs on one output directory at once are refused (tests/node/lock.test.ts)
    const resumed = await tinylab([
      "train",
      "--updates",
      "80",
      "--out",
      ckpt,
      "--resume",
      "--save-model",
      join(dir, "resumed.safetensors"),
    ]);
    const wrongConfig = await tinylabHere(["train", "--updates", "80", "--out", ckpt, "--resume", "--dropout", "0.1"]);
    expect(ok(resumed).stdout).toContain(`resumed from ${join(ckpt, STATE)} at update 40; running to update 80`);
    const sha = sha256File(join(dir, "straight.safetensors"));
    expect(sha256File(join(dir, "resumed.safetensors"))).toBe(sha);
    expect(resumed.stdout).toContain(`model_sha256 ${sha}`);
    // the saved state is not overwritten by a refused resume, and the refusal names the difference
    expect(wrongConfig.code).toBe(1);
    expect(wrongConfig.stderr.trim()).toBe(
      `tinylab: error: cannot resume from ${join(ckpt, STATE)}: this run differs from it in config.dropout: saved 0, this run 0.1`,
    );
    // another engine is refused the same way, in one line naming the flag (the run was made on tfjs's kernels)
    const wrongEngine = await tinylab(["train", "--updates", "80", "--out", ckpt, "--resume", "--kernels", "onnxruntime"]);
    expect(wrongEngine.code).toBe(1);
    expect(wrongEngine.stderr.trim()).toBe(
      `tinylab: error: cannot resume from ${join(ckpt, STATE)}: it was trained on backend wasm, kernels tfjs, this run is on backend wasm, kernels onnxruntime; resume with --kernels tfjs (a run stays on one engine: another rounds differently, and the result would match neither)`,
    );
  });

  it("killed with SIGKILL at seeded moments and resumed each time, ends on the uninterrupted run's weights", async () => {
    // dropout, shuffling and one microbatch per update, so the RNG states and the data cursor all matter
    const run = ["train", "--updates", "200", "--dropout", "0.1", "--shuffle", "--microbatches", "1", "--log-every", "1000"];
    const ckpt = join(dir, "crash");
    const state = join(ckpt, STATE);
    const withCheckpoints = [...run, "--save-every", "4", "--out", ckpt, "--save-model", join(dir, "crashed.safetensors")];
    const uninterrupted = tinylab([...run, "--save-model", join(dir, "uninterrupted.safetensors")]);
    // a reader polls the state file throughout: every read must decode and validate, so it is never half-written
    let reads = 0;
    const failures: string[] = [];
    const poll = setInterval(() => {
      try {
        loadTrainState(state);
        reads++;
      } catch (err) {
        if (!/not found/.test((err as Error).message)) failures.push((err as Error).message);
      }
    }, 10);
    // the moments come from a seeded stream: after a seeded number of this process's saves (1–8), a
    // further 0–60 ms, about one save interval, so the kill lands anywhere in it (sometimes mid-write)
    const moments = Rng.fromSeed("tinylab crash test");
    const reached: number[] = [];
    let leftovers = 0;
    try {
      for (let kill = 0; kill < 3; kill++) {
        const from = reached[reached.length - 1] ?? 0;
        const p = start(kill === 0 ? withCheckpoints : [...withCheckpoints, "--resume"]);
        await p.waitFor(new RegExp(`saved state at update ${from + 4 * (1 + moments.int(8))} →`));
        await new Promise((r) => setTimeout(r, moments.next() * 60));
        p.child.kill("SIGKILL");
        const killed = await p.done;
        expect(killed.signal, `kill ${kill} came after the run finished:\n${killed.stdout}`).toBe("SIGKILL");
        const step = loadTrainState(state).optimizer.step;
        expect(step).toBeGreaterThan(from);
        reached.push(step);
        leftovers += readdirSync(ckpt).filter((f) => f.endsWith(".tmp")).length; // a kill during a write leaves one
      }
      const last = ok(await tinylab([...withCheckpoints, "--resume"]));
      expect(last.stdout).toContain(`at update ${reached[2]}; running to update 200`);
    } finally {
      clearInterval(poll);
    }
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    ok(await uninterrupted);
    expect(sha256File(join(dir, "crashed.safetensors"))).toBe(sha256File(join(dir, "uninterrupted.safetensors")));
    // only the state file remains: the resuming runs removed temp files of killed writers
    expect(readdirSync(ckpt)).toEqual([STATE]);
    console.log(
      `crash test: killed after updates ${reached.join(", ")} were saved; ${leftovers} temp files left by kills; ${reads} clean reads of the state file`,
    );
  });
});
