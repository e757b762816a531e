// The resumable loop on a toy least-squares problem (no GPT): step range, checkpoint hook schedule, exact
// resume from saved optimizer and data state, the epoch source's order and cursor checks, and no leaks.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/rng.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { constantSchedule } from "../../src/train/schedule.ts";
import { EpochSource, trainLoop, type EpochCursor, type LoopArgs } from "../../src/train/loop.ts";

/** A microbatch is a target vector x; the loss is Σ (w − x)², with 3 "targets" each. */
const ITEMS = [[1, 0, 0], [0, 2, 0], [0, 0, 3], [1, 1, 1], [-1, 0, 2]].map((x) => Float32Array.from(x));
const lossFn = (w: tf.Variable) => (x: Float32Array) => ({ sum: tf.sum(tf.square(tf.sub(w, tf.tensor1d(x)))) as tf.Scalar, count: 3 });

function setup(shuffleSeed?: string) {
  const w = tf.variable(tf.zeros([3]), true);
  const params = new Map([["w", w]]);
  const optimizer = new AdamW(params, DEFAULT_ADAMW);
  const data = new EpochSource(ITEMS, 2, shuffleSeed ? Rng.fromSeed(shuffleSeed) : undefined);
  return { w, params, optimizer, data, dispose: () => w.dispose() };
}

const run = (s: ReturnType<typeof setup>, updates: number, extra: Partial<LoopArgs<Float32Array>> = {}) =>
  trainLoop({ params: s.params, lossFn: lossFn(s.w), data: s.data, optimizer: s.optimizer, schedule: constantSchedule(0.1), clipNorm: 1, updates, ...extra });

describe("trainLoop", () => {
  beforeAll(() => initBackend("cpu"));

  it("runs updates step+1..updates, saving every N and after the last", () => {
    const s = setup();
    const steps: number[] = [], saves: number[] = [];
    expect(run(s, 10, { saveEvery: 4, onUpdate: (step) => steps.push(step), onSave: (step) => saves.push(step) })).toEqual({ from: 0, to: 10, stopped: false });
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(saves).toEqual([4, 8, 10]);
    expect(s.optimizer.step).toBe(10);
    // already there: nothing runs, nothing is saved
    expect(run(s, 10, { onSave: (step) => saves.push(step) })).toEqual({ from: 10, to: 10, stopped: false });
    expect(saves).toEqual([4, 8, 10]);
    s.dispose();
  });

  it("resumes bit-identically from the optimizer and data state saved in the hook", () => {
    const straight = setup("order");
    run(straight, 9);
    const first = setup("order");
    let saved: { adam: ReturnType<AdamW["state"]>; cursor: EpochCursor; w: Float32Array } | undefined;
    run(first, 5, { onSave: () => { saved = { adam: first.optimizer.state(), cursor: first.data.state(), w: first.w.dataSync().slice() as Float32Array }; } });
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
    const saves: number[] = [];
    expect(trainLoop({ params: s.params, lossFn: lossFn(s.w), data: s.data, optimizer: s.optimizer, schedule: constantSchedule(0.1), clipNorm: 1, updates: 10, onSave: (step) => saves.push(step) }, { shouldStop: (done) => done === 4 }))
      .toEqual({ from: 0, to: 4, stopped: true });
    expect(s.optimizer.step).toBe(4);
    expect(saves).toEqual([]); // a stop is not the last update: the caller saves the state it stopped at
    expect(trainLoop({ params: s.params, lossFn: lossFn(s.w), data: s.data, optimizer: s.optimizer, schedule: constantSchedule(0.1), clipNorm: 1, updates: 10 }, { shouldStop: () => true }))
      .toEqual({ from: 4, to: 4, stopped: true });
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

describe("EpochSource", () => {
  it("walks the list in order, perUpdate at a time, straddling epochs", () => {
    const src = new EpochSource(["a", "b", "c"], 2);
    expect([src.next(), src.next(), src.next()]).toEqual([["a", "b"], ["c", "a"], ["b", "c"]]);
    expect(src.state()).toEqual({ epoch: 1, position: 3, order: [0, 1, 2], rng: null });
  });

  it("shuffles each epoch afresh, every item once per epoch, and replays from a saved cursor", () => {
    const items = [0, 1, 2, 3, 4, 5, 6];
    const src = new EpochSource(items, 7, Rng.fromSeed(3));
    const epochs = [src.next(), src.next(), src.next()];
    for (const e of epochs) expect([...e].sort()).toEqual(items);
    expect(new Set(epochs.map((e) => e.join())).size).toBe(3); // 7! orders: three equal ones would be a bug
    const mid = new EpochSource(items, 3, Rng.fromSeed(3));
    mid.next();
    const cursor = JSON.parse(JSON.stringify(mid.state())) as EpochCursor; // through JSON, as in a file
    const expected = [mid.next(), mid.next(), mid.next()];
    const other = new EpochSource(items, 3, Rng.fromSeed(3));
    other.restore(cursor);
    expect([other.next(), other.next(), other.next()]).toEqual(expected);
  });

  it("refuses cursors that do not fit the source", () => {
    const plain = new EpochSource([1, 2, 3], 1);
    const shuffled = new EpochSource([1, 2, 3], 1, Rng.fromSeed(1));
    expect(() => plain.restore({ epoch: 0, position: 0, order: [0, 1, 1], rng: null })).toThrow(/not a permutation of this source's 3 microbatches/);
    expect(() => plain.restore({ epoch: 0, position: 4, order: [0, 1, 2], rng: null })).toThrow(/position 4 is outside \[0, 3\]/);
    expect(() => plain.restore(shuffled.state())).toThrow(/has a shuffling stream but this source does not shuffle/);
    expect(() => shuffled.restore(plain.state())).toThrow(/lacks a shuffling stream but this source shuffles/);
    expect(() => shuffled.restore(new EpochSource([1, 2, 3], 1, Rng.fromSeed(2)).state())).toThrow(/rng state is for seed "2"/);
    expect(() => new EpochSource([], 1)).toThrow(/at least one microbatch/);
    expect(() => new EpochSource([1], 0)).toThrow(/microbatches per update must be a positive integer/);
  });
});
