// The training driver: evaluation and saving as separate hooks at their own updates, the best-model rule and
// patience on scripted scores, a stop saving its state once, refusals, and training bit-identical to the
// update-by-update loop the recipes used before (sync and async alike), with no tensor left behind.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import { EpochSource } from "../../src/train/loop.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run, snapshotDifferences, type RunSpec } from "../../src/lab/run.ts";
import { atUpdates, checkPlan, drive, driveAsync, everyAndLast } from "../../src/lab/driver.ts";

beforeAll(() => initBackend("wasm"));

/** Dropout and shuffling on: every stream moves, so a driver that stepped differently would show. */
function spec(): RunSpec {
  const config = resolveModelConfig({ dropout: 0.1 }, PRESETS.overfit);
  const tokenizer = overfitTokenizer();
  const train = overfitDocuments(tokenizer).filter((d) => d.split === "train");
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  return { config, tokenizer: tokenizer.toJSON(), options: trainOptions({ seed: 5, lr: 0.02, shuffle: true, data: "overfit-fixture" }), data: (b) => new EpochSource(mbs, 1, b) };
}

/** Every hook call in order, as "evaluate 0", "update 3 (scored)", "save 4". */
function recorder(scores: number[] = []) {
  const calls: string[] = [];
  let i = 0;
  return {
    calls,
    hooks: {
      onEvaluate: (step: number) => { calls.push(`evaluate ${step}`); return scores[i++] ?? 1; },
      onUpdate: (step: number, _r: unknown, e: number | undefined) => { calls.push(`update ${step}${e === undefined ? "" : " (scored)"}`); },
      onSave: (step: number, stopping: boolean) => { calls.push(`save ${step}${stopping ? " (stop)" : ""}`); },
    },
  };
}

describe("the training driver", () => {
  it("evaluates at the declared updates (0 before training) and saves at its own, separately", () => {
    const run = Run.create(spec());
    try {
      const r = recorder();
      const done = drive(run, { updates: 5, evaluateAt: atUpdates([0, 2, 5]), saveEvery: 3 }, r.hooks);
      expect(done).toEqual({ from: 0, to: 5, stopped: false });
      expect(r.calls).toEqual(["evaluate 0", "update 1", "evaluate 2", "update 2 (scored)", "update 3", "save 3", "update 4", "evaluate 5", "update 5 (scored)", "save 5"]);
      expect(run.best).toBeUndefined(); // no select: no weights are kept
      // resumed at 5 and extended: update 0 is not evaluated again; every 2 and the last
      const more = recorder();
      drive(run, { updates: 8, evaluateAt: everyAndLast(2, 8) }, more.hooks);
      expect(more.calls).toEqual(["evaluate 6", "update 6 (scored)", "update 7", "evaluate 8", "update 8 (scored)", "save 8"]);
    } finally {
      run.dispose();
    }
  });

  it("keeps the weights with the lowest score and stops after `patience` scorings without a new lowest, saving that state once", () => {
    const run = Run.create(spec());
    try {
      const r = recorder([5, 4, 4.5, 3.9, 4.1, 4.2, 0.1]);
      const done = drive(run, { updates: 20, evaluateAt: everyAndLast(2, 20), saveEvery: 4, patience: 2, select: (s) => s }, r.hooks);
      // scores at 0, 2, 4, 6, 8, 10: the lowest is 3.9 at 6; 8 and 10 do not beat it, so the run ends after 10
      expect(done).toEqual({ from: 0, to: 10, stopped: false, earlyStop: { at: 10, patience: 2 } });
      expect(run.best).toMatchObject({ update: 6, validationNll: 3.9, scoringsSince: 2 });
      expect(r.calls.filter((c) => c.startsWith("save"))).toEqual(["save 4", "save 8", "save 10 (stop)"]);
      expect(r.calls).not.toContain("evaluate 12");
    } finally {
      run.dispose();
    }
  });

  it("stops when shouldStop says so, or at stopAt, as an interruption: the state saved once, at the last whole update", async () => {
    const a = Run.create(spec());
    const b = Run.create(spec());
    try {
      const r = recorder();
      expect(await driveAsync(a, { updates: 12, saveEvery: 4 }, { ...r.hooks, shouldStop: (done) => done === 6 })).toEqual({ from: 0, to: 6, stopped: true });
      expect(r.calls.filter((c) => c.startsWith("save"))).toEqual(["save 4", "save 6 (stop)"]);
      const s = recorder();
      expect(drive(b, { updates: 12, saveEvery: 4, stopAt: 8 }, s.hooks)).toEqual({ from: 0, to: 8, stopped: true });
      expect(s.calls.filter((c) => c.startsWith("save"))).toEqual(["save 4", "save 8"]); // the loop's save at its target, not twice
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it("refuses a plan behind the run, and patience without scores to count", () => {
    expect(() => checkPlan(10, { updates: 5 })).toThrow("the training state is at update 10, past --updates 5");
    expect(() => checkPlan(0, { updates: 5, patience: 2 })).toThrow("--patience counts validation scorings: it needs --eval-every");
    expect(() => checkPlan(0, { updates: 5, patience: 2, evaluateAt: everyAndLast(1, 5) })).toThrow(/--patience counts validation scorings/);
    expect(() => checkPlan(0, { updates: 5, patience: 2, evaluateAt: everyAndLast(1, 5), select: (s: number) => s })).not.toThrow();
  });

  it("trains bit-identically to one run.update() at a time, synchronously or not, and leaves no tensors", async () => {
    const before = tf.memory().numTensors;
    const stepwise = Run.create(spec()), sync = Run.create(spec()), async = Run.create(spec());
    try {
      const losses: number[] = [];
      for (let i = 0; i < 9; i++) losses.push(stepwise.update().loss);
      const driven: number[] = [];
      drive(sync, { updates: 9, evaluateAt: atUpdates([0, 4, 9]) }, { onEvaluate: () => 0, onUpdate: (_s, r) => driven.push(r.loss) });
      await driveAsync(async, { updates: 9, saveEvery: 2 }, { onSave: () => {} });
      expect(driven).toEqual(losses);
      expect(snapshotDifferences(stepwise.snapshot(), sync.snapshot())).toEqual([]);
      expect(snapshotDifferences(stepwise.snapshot(), async.snapshot())).toEqual([]);
    } finally {
      for (const r of [stepwise, sync, async]) r.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});
