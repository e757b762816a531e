// The training-state file and in-process resume: a bit-identical round trip, resume equal to an
// uninterrupted run (dropout and shuffling on, so every stream matters), `train` equal to the overfit
// experiment's trainer, and a named refusal for each mismatched or corrupted state.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf, tfjsOnly } from "../../src/util/backend.ts";
import { basename, dirname } from "node:path";
import { decodeSafetensors, encodeSafetensors } from "../../src/util/formats/safetensors.ts";
import { dirStore } from "../../src/node/disk.ts";
import { modelProvenance } from "../../src/lab/model_file.ts";
import { signed } from "../../src/lab/file_checks.ts";
import { swapOffsets } from "./file_edits.ts";
import { differences, encodeTrainState, TRAIN_STATE_FORMAT } from "../../src/lab/state_file.ts";
import { STATE_FILE } from "../../src/lab/store.ts";
import { overfitTokenizer } from "../../src/data/fixtures.ts";
import { runTraining, TRAIN_DEFAULTS, type TrainRunOptions as RecipeOptions } from "../../experiments/train.ts";
import { runOverfit } from "../../experiments/overfit.ts";
import { loadTrainState, saveModel } from "../helpers.ts";

const root = mkdtempSync(join(tmpdir(), "tinylab-train-state-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `run${n++}`);
const fileBytes = (p: string) => {
  const b = readFileSync(p);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** The recipe's options with paths, as the command line gives them: `resume` names the output directory. */
type TrainRunOptions = Omit<RecipeOptions, "out" | "saveModel" | "resume"> & { outDir?: string; resume?: string; saveModel?: string };
const stores = ({ outDir, resume, saveModel: model, ...rest }: TrainRunOptions): RecipeOptions => ({
  ...rest,
  out: (outDir ?? resume) ? dirStore((outDir ?? resume)!) : undefined,
  resume: resume !== undefined,
  saveModel: model ? { store: dirStore(dirname(model)), name: basename(model) } : undefined,
});

/** Dropout, shuffling and one microbatch per update: the RNG streams and the cursor all move. */
const NOISY: TrainRunOptions = {
  ...TRAIN_DEFAULTS,
  resume: undefined,
  saveModel: undefined,
  modelConfig: { dropout: 0.1 },
  shuffle: true,
  microbatches: 1,
  logEvery: 1000,
};
const train = async (o: Partial<TrainRunOptions>) => {
  const lines: string[] = [];
  const result = await runTraining(stores({ ...NOISY, ...o }), (l) => lines.push(l));
  return { ...result, lines };
};

beforeAll(() => initBackend("wasm"));

describe("training state", () => {
  it("round-trips bit-identically: re-encoding the loaded state gives the file's bytes", async () => {
    const dir = fresh();
    await train({ updates: 3, outDir: dir });
    const path = join(dir, STATE_FILE);
    const s = loadTrainState(path);
    expect(encodeTrainState(s)).toEqual(fileBytes(path));
    expect(s.optimizer.step).toBe(3);
    expect(Object.keys(s.rngs)).toEqual(["dropout"]);
    expect(s.cursor).toMatchObject({ epoch: 1, position: 1, rng: { seed: "39/batches" } }); // 3 single microbatches over 2; the data stream is the run's "batches" (src/lab/run.ts STREAMS)
    expect(s.options).toMatchObject({ seed: 39, shuffle: true, microbatchesPerUpdate: 1, data: "overfit-fixture" });
    const { metadata, tensors } = decodeSafetensors(fileBytes(path));
    expect(metadata.format).toBe(TRAIN_STATE_FORMAT);
    expect(Object.keys(metadata).sort()).toEqual([
      "config",
      "cursor",
      "format",
      "integrity",
      "options",
      "provenance",
      "rngs",
      "step",
      "tokenizer",
    ]);
    expect(Object.keys(tensors).filter((k) => k.startsWith("m.")).length).toBe(16); // one moment pair per parameter
    // the moments are live: AdamW's first update makes every m nonzero somewhere
    expect(s.optimizer.m.get("wte")!.some((x) => x !== 0)).toBe(true);
  });

  it("resumes bit-identically in process: 23 straight equals 9, then 14 more from the file, leaving no tensors", async () => {
    const tensorsBefore = tf.memory().numTensors;
    const a = await train({ updates: 23, saveModel: join(fresh(), "a.safetensors") });
    const dir = fresh();
    const first = await train({ updates: 9, saveEvery: 4, outDir: dir });
    expect(first.lines.filter((l) => l.startsWith("saved state"))).toEqual(
      [4, 8, 9].map((u) => `saved state at update ${u} → ${join(dir, STATE_FILE)}`),
    );
    const b = await train({ updates: 23, resume: dir, saveModel: join(dir, "b.safetensors") });
    expect(b.from).toBe(9);
    expect(b.lines).toContain(`  resumed from ${join(dir, STATE_FILE)} at update 9; running to update 23`);
    expect(b.modelSha256).toBe(a.modelSha256);
    expect(b.lastLoss).toBe(a.lastLoss);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });

  it("`train` with its defaults is the overfit experiment's trainer: same seed-39 model, same bytes", async () => {
    const dir = fresh();
    const t = await train({ ...TRAIN_DEFAULTS, resume: undefined, saveModel: join(dir, "train.safetensors") });
    let fromOverfit = "";
    runOverfit(
      { seeds: [39] },
      {
        onModel: (seed, model) => {
          fromOverfit = saveModel(join(dir, "overfit.safetensors"), model, overfitTokenizer(), modelProvenance(tfjsOnly(), seed, 80));
          return false;
        },
      },
    );
    expect(t.modelSha256).toBe(fromOverfit);
  });

  it("removes temp files left by a killed writer, and only those", async () => {
    const dir = fresh();
    await train({ updates: 2, outDir: dir });
    const stale = join(dir, `.${STATE_FILE}.999999999.0a1b2c.tmp`); // above any pid_max: never a live process
    const live = join(dir, `.${STATE_FILE}.${process.pid}.0a1b2c.tmp`);
    writeFileSync(stale, "half");
    writeFileSync(live, "in progress");
    await train({ updates: 4, resume: dir, outDir: dir });
    expect([existsSync(stale), existsSync(live)]).toEqual([false, true]);
  });
});

describe("resume refusals", () => {
  let dir: string;
  beforeAll(async () => {
    dir = fresh();
    await train({ updates: 6, outDir: dir });
  });
  const refusal = async (o: Partial<TrainRunOptions>) => {
    try {
      await train({ updates: 8, resume: dir, ...o });
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("a mismatched resume was accepted");
  };

  it.each<[string, Partial<TrainRunOptions>, RegExp]>([
    ["a different dropout", { modelConfig: { dropout: 0.2 } }, /this run differs from it in config\.dropout: saved 0\.1, this run 0\.2/],
    ["a different width", { modelConfig: { dropout: 0.1, dModel: 16 } }, /config\.dModel: saved 8, this run 16/],
    ["a different learning rate", { lr: 0.01 }, /options\.schedule\.lr: saved 0\.02, this run 0\.01/],
    ["no shuffling", { shuffle: false }, /options\.shuffle: saved true, this run false/],
    ["another seed", { seed: 40 }, /options\.seed: saved 39, this run 40/],
    ["a target behind the checkpoint", { updates: 5 }, /is at update 6, past --updates 5/],
  ])("refuses %s, naming the difference", async (_, o, expected) => {
    expect(await refusal(o)).toMatch(expected);
  });

  it("refuses another engine, in one line naming the flags that resume it; the same engine resumes", async () => {
    const { tensors, metadata } = decodeSafetensors(fileBytes(join(dir, STATE_FILE)));
    const saved = JSON.parse(metadata.provenance);
    expect([saved.backend, saved.kernels]).toEqual(["wasm", undefined]); // the engine is in the state: tfjs's own kernels, recorded by their absence
    const onEngine = (engine: Record<string, string>) => {
      const other = fresh();
      mkdirSync(other);
      const provenance = JSON.stringify({ ...saved, ...engine });
      writeFileSync(join(other, STATE_FILE), encodeSafetensors(tensors, signed(tensors, { ...metadata, provenance })));
      return other;
    };
    const kernels = onEngine({ kernels: "onnxruntime", onnxruntime: "1.30.0" });
    await expect(train({ updates: 8, resume: kernels })).rejects.toThrow(
      `cannot resume from ${join(kernels, STATE_FILE)}: it was trained on backend wasm, kernels onnxruntime, this run is on backend wasm, kernels tfjs; resume with --kernels onnxruntime (a run stays on one engine: another rounds differently, and the result would match neither)`,
    );
    const both = onEngine({ backend: "cpu", kernels: "onnxruntime" });
    await expect(train({ updates: 8, resume: both })).rejects.toThrow(
      /it was trained on backend cpu, kernels onnxruntime, this run is on backend wasm, kernels tfjs; resume with --backend cpu --kernels onnxruntime \(/,
    );
    // the control: the state as written resumes on the engine that wrote it
    expect((await train({ updates: 8, resume: onEngine({}) })).lines.join("\n")).toMatch(/resumed from .* at update 6/);
  });

  it("lists every difference at once", async () => {
    expect(differences({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 4 }, e: 5 }, "x")).toEqual([
      "x.b.c: saved 2, this run 4",
      "x.b.d: saved 3, this run (absent)",
      "x.e: saved (absent), this run 5",
    ]);
  });

  it("refuses corrupted state files, naming the problem", async () => {
    const path = join(dir, STATE_FILE);
    const { tensors, metadata } = decodeSafetensors(fileBytes(path));
    const bad = join(dir, "bad.safetensors");
    // with a recomputed digest, so that the checks behind it are what refuses each file
    const attempt = (t: typeof tensors, m: typeof metadata) => {
      writeFileSync(bad, encodeSafetensors(t, signed(t, m)));
      return () => loadTrainState(bad);
    };
    const { ["m.wte"]: _dropped, ...withoutMoment } = tensors;
    expect(attempt(withoutMoment, metadata)).toThrow(/tensor "m\.wte" is missing/);
    expect(attempt({ ...tensors, "g.wte": tensors.wte }, metadata)).toThrow(/unexpected tensor "g\.wte"/);
    const withValue = (name: string, at: number, x: number) => {
      const data = Float32Array.from(tensors[name].data as Float32Array);
      data[at] = x;
      return { ...tensors, [name]: { dtype: "F32", shape: tensors[name].shape, data } } as typeof tensors;
    };
    expect(attempt(withValue("wte", 7, NaN), metadata)).toThrow(
      /training-state file .*bad\.safetensors: tensor "wte" has a non-finite value \(NaN\) at flat index 7/,
    );
    expect(attempt(withValue("m.h0.attn.wo", 2, Infinity), metadata)).toThrow(
      /bad\.safetensors: tensor "m\.h0\.attn\.wo" has a non-finite value \(Infinity\) at flat index 2/,
    );
    expect(attempt(withValue("v.lnf.g", 5, NaN), metadata)).toThrow(
      /bad\.safetensors: tensor "v\.lnf\.g" has a negative or non-finite second moment \(NaN\) at flat index 5/,
    );
    expect(attempt(withValue("v.h0.ln1.b", 4, -1e-3), metadata)).toThrow(
      /bad\.safetensors: tensor "v\.h0\.ln1\.b" has a negative or non-finite second moment \(-0\.00100\d*\) at flat index 4/,
    );
    expect(attempt(withValue("v.wpe", 0, Infinity), metadata)).toThrow(
      /tensor "v\.wpe" has a negative or non-finite second moment \(Infinity\) at flat index 0/,
    );
    expect(attempt(tensors, { ...metadata, step: '"6"' })).toThrow(/bad\.safetensors: step: must be an integer, not a string \(got "6"\)$/);
    expect(attempt(tensors, { ...metadata, step: "5" })).toThrow(/bad\.safetensors: metadata "step" is 5 but "provenance" says update 6/);
    const s = loadTrainState(path);
    s.optimizer.v.get("wte")![1] = Infinity;
    expect(() => encodeTrainState(s)).toThrow(
      'cannot write a training-state file: tensor "v.wte" has a negative or non-finite second moment (Infinity) at flat index 1',
    );
    s.optimizer.v.get("wte")![1] = 0;
    expect(() => encodeTrainState({ ...s, optimizer: { ...s.optimizer, step: 7 } })).toThrow(
      "cannot write a training-state file: step 7 but provenance says update 6",
    );
    expect(attempt(tensors, { ...metadata, step: "-1" })).toThrow(/bad\.safetensors: step: must be ≥ 0 \(got -1\)$/);
    expect(attempt(tensors, { ...metadata, rngs: '{"dropout":{"seed":"x"}}' })).toThrow(
      /bad\.safetensors: rngs\.dropout\.alea: is missing \(got nothing\)$/,
    );
    const { config: _c, ...noConfig } = metadata;
    expect(attempt(tensors, noConfig)).toThrow(/training-state file .*bad\.safetensors: metadata has no "config"/);
    expect(attempt(tensors, { ...metadata, format: "tinylab-model/2" })).toThrow(
      /format is "tinylab-model\/2", expected "tinylab-train-state\/2"/,
    );
    expect(attempt(tensors, { ...metadata, format: "tinylab-train-state/1" })).toThrow(
      /bad\.safetensors: format "tinylab-train-state\/1" was written by an older tinylab and has no integrity digest/,
    );
    // edits without a recomputed digest: swapped moments, an edited step, a dropped digest
    const changed = /training-state file .*bad\.safetensors: integrity digest does not match the file's tensors and metadata/;
    writeFileSync(bad, swapOffsets(fileBytes(path), "m.h0.ln1.g", "v.h0.ln1.g"));
    expect(() => loadTrainState(bad)).toThrow(changed);
    writeFileSync(
      bad,
      encodeSafetensors(tensors, { ...metadata, step: "5", provenance: metadata.provenance.replace('"update":6', '"update":5') }),
    );
    expect(() => loadTrainState(bad)).toThrow(changed);
    const { integrity: _i, ...unsigned } = metadata;
    writeFileSync(bad, encodeSafetensors(tensors, unsigned));
    expect(() => loadTrainState(bad)).toThrow(
      /bad\.safetensors: format "tinylab-train-state\/2" needs metadata "integrity", which is missing/,
    );
    expect(() => loadTrainState(join(dir, "absent.safetensors"))).toThrow(/training-state file not found/);
    // a cursor from another data source is refused when the run restores it
    const cursor = JSON.stringify({ epoch: 0, position: 0, order: [0, 0], rng: null });
    writeFileSync(path, encodeSafetensors(tensors, signed(tensors, { ...metadata, cursor })));
    await expect(train({ updates: 8, resume: dir })).rejects.toThrow(
      /train_state\.safetensors: cursor\.order\[1\]: is given twice \(also at cursor\.order\[0\]\) \(got 0\)$/,
    );
  });
});

describe("the data cursor of a state file", () => {
  let good: { tensors: ReturnType<typeof decodeSafetensors>["tensors"]; metadata: Record<string, string> };
  beforeAll(async () => {
    const dir = fresh();
    await train({ updates: 6, outDir: dir });
    good = decodeSafetensors(fileBytes(join(dir, STATE_FILE)));
  });
  /** A run directory whose state has this cursor, re-signed (so only the cursor's own checks can refuse it); resumed to 8. */
  const resumeWith = async (cursor: unknown) => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(
      join(dir, STATE_FILE),
      encodeSafetensors(
        good.tensors,
        signed(good.tensors, { ...good.metadata, cursor: typeof cursor === "string" ? cursor : JSON.stringify(cursor) }),
      ),
    );
    try {
      await train({ updates: 8, resume: dir });
    } catch (err) {
      return (err as Error).message;
    }
    return "resumed";
  };
  const saved = () =>
    JSON.parse(good.metadata.cursor) as {
      epoch: number;
      position: number;
      order: number[];
      rng: { seed: string; alea: Record<string, number> };
    };

  it("resumes from the cursor as written (the control)", async () => {
    expect(await resumeWith(good.metadata.cursor)).toBe("resumed");
  });

  it("refuses a well-formed cursor that is not where the updates leave the data (forged: it would resume another run)", async () => {
    const c = saved();
    expect(await resumeWith({ ...c, order: [...c.order].reverse() })).toMatch(
      /train_state\.safetensors: cursor: is not where 6 updates of this run's data leave it \(cursor\.order: saved \[1,0\], replayed \[0,1\]\)$/,
    );
    expect(await resumeWith({ ...c, epoch: c.epoch + 1 })).toMatch(
      new RegExp(`cursor: is not where 6 updates .*cursor\\.epoch: saved ${c.epoch + 1}, replayed ${c.epoch}\\)$`),
    );
    const alea = { ...c.rng.alea, s0: 0.5 }; // in range, a multiple of 2^-32: only the replay can tell
    expect(await resumeWith({ ...c, rng: { ...c.rng, alea } })).toMatch(
      /cursor: is not where 6 updates .*cursor\.rng\.alea\.s0: saved 0\.5, replayed/,
    );
  });

  it.each<[string, unknown, RegExp]>([
    [
      "null",
      null,
      /train_state\.safetensors: cursor: must be a data cursor: an rng state \{seed, alea\} or an epoch cursor \{epoch, position, order, rng\} \(got null\)$/,
    ],
    ["a stream without a seed", "no seed", /train_state\.safetensors: cursor\.rng\.seed: is missing \(got nothing\)$/],
    ["a state word out of range", "s0 = 2", /cursor\.rng\.alea\.s0: must be < 1 \(got 2\)$/],
    [
      "a carry that is not an integer",
      "c = 1.5",
      /cursor\.rng\.alea\.c: must be an integer, not .*|cursor\.rng\.alea\.c: must be an integer of at most .* \(got 1\.5\)$/,
    ],
    [
      "an order of another length",
      "order [0]",
      /train_state\.safetensors: cursor: data cursor order is not a permutation of this source's 2 microbatches$/,
    ],
    ["a string position", 'position "1"', /cursor\.position: must be an integer, not a string \(got "1"\)$/],
  ])("refuses a cursor with %s, naming the file and the field", async (_, what, expected) => {
    const c = saved();
    const { seed: _s, ...noSeed } = c.rng;
    const cursor =
      what === "no seed"
        ? { ...c, rng: noSeed }
        : what === "s0 = 2"
          ? { ...c, rng: { ...c.rng, alea: { ...c.rng.alea, s0: 2 } } }
          : what === "c = 1.5"
            ? { ...c, rng: { ...c.rng, alea: { ...c.rng.alea, c: 1.5 } } }
            : what === "order [0]"
              ? { ...c, order: [0] }
              : what === 'position "1"'
                ? { ...c, position: "1" }
                : what;
    expect(await resumeWith(cursor)).toMatch(expected);
  });
});
