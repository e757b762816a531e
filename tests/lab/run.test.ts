// The lab's run: named streams from the seed, snapshot/restore in memory replaying an update bit for bit (and a
// control that must differ), resume through a store equal to an uninterrupted run, refusals, no tensor leaks; trained by
// plan: evaluation and saving at their own updates, the best-model rule and patience, stops saving once, sync = async.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import { initParameters } from "../../src/model/init.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run, STREAMS, type RunSpec } from "../../src/lab/run.ts";
import { checkPlan } from "../../src/lab/train_plan.ts";
import { snapshotDifferences } from "../../src/lab/resume_check.ts";
import { atUpdates, everyAndLast } from "../../src/train/loop.ts";
import { memoryStore, openRun, saveModel, saveState, STATE_FILE } from "../../src/lab/store.ts";
import { decodeModelFile } from "../../src/lab/model_file.ts";

beforeAll(() => initBackend("wasm"));

/** Dropout on, shuffling on and one microbatch per update: every stream and the cursor move. */
function spec(over: { lr?: number; shuffle?: boolean; tokenizer?: null } = {}): RunSpec {
  const config = resolveModelConfig({ dropout: 0.1 }, PRESETS.overfit);
  const tokenizer = overfitTokenizer();
  const train = overfitDocuments(tokenizer).filter((d) => d.split === "train");
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  const shuffle = over.shuffle ?? true;
  return {
    config,
    tokenizer: over.tokenizer === null ? null : tokenizer.toJSON(),
    options: trainOptions({ seed: 11, lr: over.lr ?? 0.02, shuffle, data: "overfit-fixture" }),
    data: (batches) => new EpochSource(mbs, 1, shuffle ? batches : undefined),
  };
}

describe("a run", () => {
  it("draws every stream as a named child of its seed", () => {
    const run = Run.create(spec());
    try {
      expect(STREAMS).toEqual({ init: "init", batches: "batches", dropout: "dropout" });
      expect(run.batches.state().seed).toBe("11/batches");
      expect(run.dropout.state().seed).toBe("11/dropout");
      const init = initParameters(run.spec.config, Rng.fromSeed(11).child("init"));
      for (const [name, values] of run.model.read()) expect(values).toEqual(init.get(name));
    } finally {
      run.dispose();
    }
  });

  it("replays an update bit for bit after restoring a snapshot; keeping the cursor changes it (so the check can fail)", () => {
    const run = Run.create(spec());
    try {
      run.train({ updates: 5 });
      const before = run.snapshot();
      const first = run.update();
      const after = run.snapshot();
      run.restore(before);
      expect(snapshotDifferences(before, run.snapshot())).toEqual([]);
      const second = run.update();
      expect(Object.is(first.loss, second.loss)).toBe(true);
      expect(snapshotDifferences(after, run.snapshot())).toEqual([]);
      run.restore(before, { keepCursor: true });
      run.update();
      expect(snapshotDifferences(after, run.snapshot()).length).toBeGreaterThan(0);
    } finally {
      run.dispose();
    }
  });

  it("resumes from a state file in a store to the same model bytes as an uninterrupted run", () => {
    const straight = Run.create(spec());
    straight.train({ updates: 12 });
    const want = straight.modelBytes();
    straight.dispose();
    const store = memoryStore();
    const first = openRun(spec(), store, false);
    first.train({ updates: 7, saveEvery: 3 }, { onSave: () => saveState(first, store) });
    first.dispose();
    const resumed = openRun(spec(), store, true);
    try {
      expect(resumed.step).toBe(7);
      resumed.train({ updates: 12 });
      const sha = saveModel(resumed, store, "m.safetensors");
      expect(store.files.get("m.safetensors")).toEqual(want);
      const loaded = decodeModelFile(store.files.get("m.safetensors")!, "m.safetensors");
      expect(loaded.sha256).toBe(sha);
      loaded.model.dispose();
    } finally {
      resumed.dispose();
    }
  });

  it("refuses a resume with nothing to resume from, or with a differing option, naming it", () => {
    const store = memoryStore();
    expect(() => openRun(spec(), store, true)).toThrow(`training-state file not found: memory:${STATE_FILE} (nothing to resume)`);
    expect(() => openRun(spec(), undefined, true)).toThrow(/--resume needs an output directory \(--out\)/);
    const run = Run.create(spec());
    run.train({ updates: 2 });
    saveState(run, store);
    run.dispose();
    expect(() => openRun(spec({ lr: 0.01 }), store, true)).toThrow(/options\.schedule\.lr: saved 0\.02, this run 0\.01/);
  });

  it("stops at an update that would make a weight non-finite (lr 1e39), before any weight, moment or file changes", () => {
    const run = Run.create(spec({ lr: 1e39 }));
    const store = memoryStore();
    try {
      const before = run.snapshot();
      expect(() => run.train({ updates: 3, saveEvery: 1 }, { onSave: () => saveState(run, store) })).toThrow(
        /^non-finite new weight in parameter "[^"]+" \(first at flat index \d+\) at update 1; no parameter was updated$/,
      );
      // the data cursor has moved (the update's batch was drawn); weights, moments and step have not
      expect(snapshotDifferences(before, run.snapshot()).filter((d) => !d.startsWith("rng"))).toEqual([]);
      expect(store.files.size).toBe(0);
    } finally {
      run.dispose();
    }
  });

  it("without a tokenizer, snapshots in memory but refuses to write a file", () => {
    const run = Run.create(spec({ tokenizer: null }));
    try {
      run.train({ updates: 1 });
      expect(run.snapshot().tokenizer).toBeNull();
      expect(() => run.stateBytes()).toThrow(/no tokenizer/);
      expect(() => run.modelBytes()).toThrow(/no tokenizer/);
    } finally {
      run.dispose();
    }
  });

  it("writes its state from views of its own arrays to the bytes of a snapshot's copies, the selected weights included", () => {
    const run = Run.create(spec());
    try {
      run.train({ updates: 2 });
      run.considerForBest(2.5);
      run.train({ updates: 3 });
      const chunks = [...run.stateChunks()];
      expect(chunks.length).toBeGreaterThan(2); // the header, then one chunk per tensor
      const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      chunks.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
      expect(joined).toEqual(run.stateBytes());
      const store = memoryStore();
      saveState(run, store);
      expect(store.files.get(STATE_FILE)).toEqual(run.stateBytes());
      const raw = Run.create(spec({ tokenizer: null }));
      try {
        expect(() => raw.stateChunks()).toThrow(/no tokenizer/);
      } finally {
        raw.dispose();
      }
    } finally {
      run.dispose();
    }
  });

  it("leaves no tensors behind", () => {
    const before = tf.memory().numTensors;
    const run = Run.create(spec());
    run.train({ updates: 20 });
    run.restore(run.snapshot());
    run.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe("the weights validation chose", () => {
  it("are kept only when strictly better, counted since, carried through a state file exactly, and written as a labelled model file", () => {
    const tensors = tf.memory().numTensors;
    const run = Run.create(spec());
    const store = memoryStore();
    try {
      run.considerForBest(3);
      run.train({ updates: 2 });
      const chosen = run.model.read();
      run.considerForBest(2.5);
      run.train({ updates: 4 });
      run.considerForBest(2.5); // a tie is no improvement
      run.considerForBest(2.7);
      expect([run.best!.update, run.best!.validationNll, run.best!.scoringsSince]).toEqual([2, 2.5, 2]);
      for (const [k, v] of chosen) expect(run.best!.weights.get(k)).toEqual(v);
      saveState(run, store);
      const resumed = openRun(spec(), store, true);
      try {
        expect(snapshotDifferences(run.snapshot(), resumed.snapshot())).toEqual([]);
        expect([resumed.best!.update, resumed.best!.scoringsSince]).toEqual([2, 2]);
      } finally {
        resumed.dispose();
      }
      const file = decodeModelFile(run.bestModelBytes()!, "best");
      try {
        expect(file.provenance.update).toBe(2);
        expect(file.provenance.selection).toMatchObject({ on: "validation", update: 2, validation_nll: 2.5 });
        for (const [k, v] of chosen) expect(file.model.read().get(k)).toEqual(v);
      } finally {
        file.model.dispose();
      }
    } finally {
      run.dispose();
    }
    expect(tf.memory().numTensors).toBe(tensors);
  });
});

/** Every hook call in order, as "evaluate 0", "update 3 (scored)", "save 4". */
function recorder(scores: number[] = []) {
  const calls: string[] = [];
  let i = 0;
  return {
    calls,
    hooks: {
      onEvaluate: (step: number) => {
        calls.push(`evaluate ${step}`);
        return scores[i++] ?? 1;
      },
      onUpdate: (step: number, _r: unknown, e: number | undefined) => {
        calls.push(`update ${step}${e === undefined ? "" : " (scored)"}`);
      },
      onSave: (step: number, stopping: boolean) => {
        calls.push(`save ${step}${stopping ? " (stop)" : ""}`);
      },
    },
  };
}

describe("training a run by plan", () => {
  it("evaluates at the declared updates (0 before training) and saves at its own, separately", () => {
    const run = Run.create(spec());
    try {
      const r = recorder();
      const done = run.train({ updates: 5, evaluateAt: atUpdates([0, 2, 5]), saveEvery: 3 }, r.hooks);
      expect(done).toEqual({ from: 0, to: 5, stopped: false });
      expect(r.calls).toEqual([
        "evaluate 0",
        "update 1",
        "evaluate 2",
        "update 2 (scored)",
        "update 3",
        "save 3",
        "update 4",
        "evaluate 5",
        "update 5 (scored)",
        "save 5",
      ]);
      expect(run.best).toBeUndefined(); // no select: no weights are kept
      // resumed at 5 and extended: update 0 is not evaluated again; every 2 and the last
      const more = recorder();
      run.train({ updates: 8, evaluateAt: everyAndLast(2, 8) }, more.hooks);
      expect(more.calls).toEqual(["evaluate 6", "update 6 (scored)", "update 7", "evaluate 8", "update 8 (scored)", "save 8"]);
    } finally {
      run.dispose();
    }
  });

  it("keeps the weights with the lowest score and stops after `patience` scorings without a new lowest, saving that state once", () => {
    const run = Run.create(spec());
    try {
      const r = recorder([5, 4, 4.5, 3.9, 4.1, 4.2, 0.1]);
      const done = run.train({ updates: 20, evaluateAt: everyAndLast(2, 20), saveEvery: 4, patience: 2, select: (s) => s }, r.hooks);
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
      expect(await a.trainAsync({ updates: 12, saveEvery: 4 }, { ...r.hooks, shouldStop: (done) => done === 6 })).toEqual({
        from: 0,
        to: 6,
        stopped: true,
      });
      expect(r.calls.filter((c) => c.startsWith("save"))).toEqual(["save 4", "save 6 (stop)"]);
      const s = recorder();
      expect(b.train({ updates: 12, saveEvery: 4, stopAt: 8 }, s.hooks)).toEqual({ from: 0, to: 8, stopped: true });
      expect(s.calls.filter((c) => c.startsWith("save"))).toEqual(["save 4", "save 8"]); // the loop's save at its target, not twice
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it("refuses a plan behind the run, and patience without scores to count", () => {
    expect(() => checkPlan(10, { updates: 5 })).toThrow("the training state is at update 10, past --updates 5");
    expect(() => checkPlan(0, { updates: 5, patience: 2 })).toThrow("--patience counts validation scorings: it needs --eval-every");
    expect(() => checkPlan(0, { updates: 5, patience: 2, evaluateAt: everyAndLast(1, 5) })).toThrow(
      /--patience counts validation scorings/,
    );
    expect(() => checkPlan(0, { updates: 5, patience: 2, evaluateAt: everyAndLast(1, 5), select: (s: number) => s })).not.toThrow();
  });

  it("trains bit-identically to one run.update() at a time, synchronously or not, and leaves no tensors", async () => {
    const before = tf.memory().numTensors;
    const stepwise = Run.create(spec()),
      sync = Run.create(spec()),
      async = Run.create(spec());
    try {
      const losses: number[] = [];
      for (let i = 0; i < 9; i++) losses.push(stepwise.update().loss);
      const driven: number[] = [];
      sync.train({ updates: 9, evaluateAt: atUpdates([0, 4, 9]) }, { onEvaluate: () => 0, onUpdate: (_s, r) => driven.push(r.loss) });
      await async.trainAsync({ updates: 9, saveEvery: 2 }, { onSave: () => {} });
      expect(driven).toEqual(losses);
      expect(snapshotDifferences(stepwise.snapshot(), sync.snapshot())).toEqual([]);
      expect(snapshotDifferences(stepwise.snapshot(), async.snapshot())).toEqual([]);
    } finally {
      for (const r of [stepwise, sync, async]) r.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});
