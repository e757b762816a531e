// The loop on a toy least-squares problem (no GPT): step range, save schedule, a stop saving its state once,
// exact resume from saved optimizer and data state, refusals and no leaks. With a GPT and scores: tests/lab/run.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { constantSchedule } from "../../src/train/schedule.ts";
import { EpochSource, type EpochCursor } from "../../src/data/epoch_source.ts";
import { trainLoop, type LoopHooks, type LoopPlan } from "../../src/train/loop.ts";

/** A microbatch is a target vector x; the loss is Σ (w − x)², with 3 "targets" each. */
const ITEMS = [
  [1, 0, 0],
  [0, 2, 0],
  [0, 0, 3],
  [1, 1, 1],
  [-1, 0, 2],
].map((x) => Float32Array.from(x));
const lossFn = (w: tf.Variable) => (x: Float32Array) => ({ sum: tf.sum(tf.square(tf.sub(w, tf.tensor1d(x)))) as tf.Scalar, count: 3 });

function setup(shuffleSeed?: string) {
  const w = tf.variable(tf.zeros([3]), true);
  const params = new Map([["w", w]]);
  const optimizer = new AdamW(params, DEFAULT_ADAMW);
  const data = new EpochSource(ITEMS, 2, shuffleSeed ? Rng.fromSeed(shuffleSeed) : undefined);
  return { w, params, optimizer, data, dispose: () => w.dispose() };
}

const args = (s: ReturnType<typeof setup>) => ({
  params: s.params,
  lossFn: lossFn(s.w),
  data: s.data,
  optimizer: s.optimizer,
  schedule: constantSchedule(0.1),
  clipNorm: 1,
});
const run = (s: ReturnType<typeof setup>, updates: number, plan: Partial<LoopPlan> = {}, hooks: LoopHooks<unknown> = {}) =>
  trainLoop(args(s), { updates, ...plan }, hooks);

describe("trainLoop", () => {
  beforeAll(() => initBackend("cpu"));

  it("runs updates step+1..updates, saving every N and after the last", () => {
    const s = setup();
    const steps: number[] = [],
      saves: number[] = [];
    expect(run(s, 10, { saveEvery: 4 }, { onUpdate: (step) => steps.push(step), onSave: (step) => saves.push(step) })).toEqual({
      from: 0,
      to: 10,
      stopped: false,
    });
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(saves).toEqual([4, 8, 10]);
    expect(s.optimizer.step).toBe(10);
    // already there: nothing runs, nothing is saved
    expect(run(s, 10, {}, { onSave: (step) => saves.push(step) })).toEqual({ from: 10, to: 10, stopped: false });
    expect(saves).toEqual([4, 8, 10]);
    s.dispose();
  });

  it("resumes bit-identically from the optimizer and data state saved in the hook", () => {
    const straight = setup("order");
    run(straight, 9);
    const first = setup("order");
    let saved: { adam: ReturnType<AdamW["state"]>; cursor: EpochCursor; w: Float32Array } | undefined;
    run(
      first,
      5,
      {},
      {
        onSave: () => {
          saved = { adam: first.optimizer.state(), cursor: first.data.state(), w: first.w.dataSync().slice() as Float32Array };
        },
      },
    );
    // a fresh process would rebuild everything from the seed, then load the saved state over it
    const second = setup("order");
    second.w.assign(tf.tensor1d(saved!.w));
    second.optimizer.restore(saved!.adam);
    second.data.restore(saved!.cursor);
    expect(run(second, 9)).toEqual({ from: 5, to: 9, stopped: false });
    expect([...second.w.dataSync()]).toEqual([...straight.w.dataSync()]);
    expect(second.data.state()).toEqual(straight.data.state());
    for (const s of [straight, first, second]) s.dispose();
  });

  it("stops between two whole updates when shouldStop says so, and not before the first when it does not", () => {
    const s = setup();
    const saves: string[] = [];
    expect(
      run(
        s,
        10,
        { saveEvery: 3 },
        { onSave: (step, stopping) => saves.push(`${step}${stopping ? " (stop)" : ""}`), shouldStop: (done) => done === 4 },
      ),
    ).toEqual({ from: 0, to: 4, stopped: true });
    expect(s.optimizer.step).toBe(4);
    expect(saves).toEqual(["3", "4 (stop)"]); // a stop between two saves saves the state it stopped at, once
    expect(run(s, 10, {}, { shouldStop: () => true })).toEqual({ from: 4, to: 4, stopped: true });
    s.dispose();
  });

  it("leaves no tensors behind", () => {
    const s = setup();
    const before = tf.memory().numTensors;
    run(s, 6);
    expect(tf.memory().numTensors).toBe(before);
    s.dispose();
  });

  it("refuses a target behind the optimizer and a bad save interval", () => {
    const s = setup();
    run(s, 3);
    expect(() => run(s, 2)).toThrow(/already at update 3, past the requested 2 updates/);
    expect(() => run(s, 5, { saveEvery: 0 })).toThrow(/save interval must be a positive integer, got 0/);
    expect(() => run(s, 0)).toThrow(/updates must be a positive integer/);
    s.dispose();
  });
});
