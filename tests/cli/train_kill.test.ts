// kill -9 across a `train --text` run: 18 kills, each followed by `--resume`, end on the uninterrupted run's model,
// best model, state, curve and history bit for bit. The kills are real SIGKILLs the process sends itself through
// the TINYLAB_TEST_KILL_AT hook (src/node/atomic.ts): just before its N-th atomic write, or with that write's temp
// file complete but not renamed. Between those points the directory does not change, so they are the moments a
// kill anywhere can tell apart; three chains of six kills run side by side to keep the wall time modest.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withoutTimes } from "../../src/lab/history.ts";
import { loadTrainState } from "../helpers.ts";
import { ok, start, tinylab } from "./spawn.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-train-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = "a lamp by the mill lit the yard where the miller kept count of every sack of grain".split(" ");
const story = join(dir, "story.txt");
writeFileSync(
  story,
  Array.from({ length: 10 }, (_, i) => Array.from({ length: 20 + i * 3 }, (_, j) => WORDS[(i * 5 + j * 3) % WORDS.length]).join(" ")).join(
    "\n\n",
  ) + "\n",
);

// the smallest run that writes every kind of file: 12 updates, a state every 2, validation every 3 (so history and
// curve are written both with the state and between states), dropout so the random streams matter
const RUN = [
  "train",
  "--text",
  story,
  "--tokenizer",
  "byte",
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
  "--dropout",
  "0.1",
  "--updates",
  "12",
  "--save-every",
  "2",
  "--eval-every",
  "3",
  "--log-every",
  "1000",
];

/** One process killed at `at` (a write number, or "N.tmp"); resolves when it is gone. */
const killedAt = (ck: string, at: string, resume: boolean) =>
  start([...RUN, "--out", ck, ...(resume ? ["--resume"] : [])], undefined, { TINYLAB_TEST_KILL_AT: at }).done;

/** What a kill left: the state's update (or none), temp files and the files present. */
function leftBy(ck: string): { state: number | null; temps: string[]; files: string[] } {
  const files = readdirSync(ck).sort();
  const state = files.includes("train_state.safetensors") ? loadTrainState(join(ck, "train_state.safetensors")).optimizer.step : null;
  return { state, temps: files.filter((f) => f.endsWith(".tmp")), files };
}

// per chain, the write at which each successive process dies (the first starts afresh, the rest --resume); chosen
// so the kills fall before the first file, inside the first checkpoints, between a history and its state, at the
// last state, between the two model files and before train.json. A fresh run writes manifest, then per checkpoint
// history, curve (and state at a save), then model, best model, train.json and history.csv; a resumed one the same
// from its state on, without the manifest. What each kill leaves (state's update, then the write it stops):
//   chain 0: none, before the manifest | none, manifest temp | none, before the first curve | none, first state's
//            temp | 2, just after it | 2, a resumed run's curve temp before its state (4)
//   chain 1: 4, a fresh run stopped between the update-6 validation and its save | 6, just after a state, resumed
//            from 4 | 6, the next state's temp | 10, between the last validation and its save | 10, the last state's
//            temp | 12, at the last state before the final history
//   chain 2: 10, a fresh run stopped inside the last save | 12, before the model | 12, the model's temp | 12,
//            between the two model files | 12, the best model's temp | 12, before train.json
const CHAINS = [
  ["1", "1.tmp", "3", "3.tmp", "4", "4.tmp"],
  ["12", "6", "3.tmp", "11", "5.tmp", "6"],
  ["26", "8", "3.tmp", "4", "4.tmp", "5"],
];

describe("train --text killed with SIGKILL at any moment", () => {
  it("resumes after each of 18 kills to the uninterrupted run's files, bit for bit", async () => {
    const t0 = performance.now();
    const reference = join(dir, "reference");
    const chain = async (kills: string[], c: number) => {
      const ck = join(dir, `chain-${c}`);
      mkdirSync(ck);
      const left = [];
      for (const [i, at] of kills.entries()) {
        const r = await killedAt(ck, at, i > 0);
        expect(r.signal, `chain ${c} kill ${i} at write ${at} was not reached:\n${r.stdout}\n${r.stderr}`).toBe("SIGKILL");
        left.push({ at, ...leftBy(ck) });
      }
      const last = ok(await tinylab([...RUN, "--out", ck, "--resume"]));
      return { ck, left, last };
    };
    const [straight, ...chains] = await Promise.all([tinylab([...RUN, "--out", reference]), ...CHAINS.map(chain)]);
    ok(straight);
    const bytes = (ck: string, f: string) => readFileSync(join(ck, f));
    const history = (ck: string) => withoutTimes(JSON.parse(readFileSync(join(ck, "history.json"), "utf8")));
    for (const { ck, left } of chains) {
      for (const f of ["model.safetensors", "model_best.safetensors", "train_state.safetensors", "loss_curve.svg", "manifest.json"]) {
        expect(bytes(ck, f).equals(bytes(reference, f)), `${ck}/${f} after kills ${JSON.stringify(left)}`).toBe(true);
      }
      expect(history(ck)).toEqual(history(reference));
      expect(readdirSync(ck).sort()).toEqual(readdirSync(reference).sort()); // no temp file, no lock, nothing else
    }
    // the kills were spread: before any state, at states of several updates, with a temp file left, and after the last state
    const states = new Set(chains.flatMap((c) => c.left.map((l) => l.state)));
    expect(states.has(null)).toBe(true);
    expect([...states].filter((s) => s !== null).length).toBeGreaterThanOrEqual(4);
    expect(states.has(12)).toBe(true);
    expect(chains.some((c) => c.left.some((l) => l.temps.length > 0))).toBe(true);
    expect(chains.some((c) => c.left.some((l) => l.files.includes("model.safetensors") && !l.files.includes("train.json")))).toBe(true);
    console.log(
      `kill test: ${CHAINS.flat().length} kills, ${((performance.now() - t0) / 1000).toFixed(1)} s; left: ${JSON.stringify(chains.map((c) => c.left.map((l) => [l.at, l.state, l.temps.length])))}`,
    );
  }, 240_000);
});
