// The TensorBoard event file of a training run, read back with a reader written here from the formats' specs (not
// src/util/formats/tensorboard.ts): TFRecord framing with both masked CRC32Cs, Event and Summary fields, and history.json's
// values at every logged update, also after a run interrupted and resumed with its event file ahead of its state.
import { beforeAll, describe, expect, it } from "vitest";
import { runTraining, TRAIN_DEFAULTS } from "../../experiments/train.ts";
import { runOverfit } from "../../experiments/overfit.ts";
import { runCyclic } from "../../experiments/cyclic.ts";
import { memoryStore, STATE_FILE } from "../../src/lab/store.ts";
import { HISTORY_FILE, type History } from "../../src/lab/history.ts";
import { EVENTS_FILE, HISTORY_CSV_FILE, SCALAR_TAGS, writeHistoryCsv } from "../../src/lab/history_events.ts";
import { initBackend, tf } from "../../src/util/backend.ts";

// CRC-32C bit by bit (polynomial 0x82F63B78 reflected), then TFRecord's mask: ((crc >>> 15) | (crc << 17)) + 0xa282ead8
function crc32c(bytes: Uint8Array): number {
  let c = ~0 >>> 0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0x82f63b78 & -(c & 1));
  }
  return ~c >>> 0;
}
const masked = (b: Uint8Array) => {
  const c = crc32c(b);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
};

// a protobuf message as [field, wire type, value]: varints as bigint, 64/32-bit as their bytes, length-delimited as bytes
type Field = [number, number, bigint | Uint8Array];
function fields(b: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = () => {
    let v = 0n,
      shift = 0n;
    for (;;) {
      const x = b[at++];
      v |= BigInt(x & 0x7f) << shift;
      if (x < 0x80) return v;
      shift += 7n;
    }
  };
  while (at < b.length) {
    const key = Number(varint());
    const [field, type] = [key >> 3, key & 7];
    if (type === 0) out.push([field, type, varint()]);
    else if (type === 1) out.push([field, type, b.slice(at, (at += 8))]);
    else if (type === 5) out.push([field, type, b.slice(at, (at += 4))]);
    else if (type === 2) {
      const n = Number(varint());
      out.push([field, type, b.slice(at, (at += n))]);
    } else throw new Error(`wire type ${type}`);
  }
  return out;
}
const f64 = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset).getFloat64(0, true);
const f32 = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset).getFloat32(0, true);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

interface Event {
  wallTime: number;
  step: number;
  fileVersion?: string;
  scalars: Map<string, number>;
}

/** Every record: length, its masked CRC, data, the data's masked CRC; each event's fields (Event 1, 2, 3, 5; Summary.Value 1, 2). */
function readEvents(file: Uint8Array): Event[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const events: Event[] = [];
  for (let at = 0; at < file.length;) {
    const length = Number(view.getBigUint64(at, true));
    expect(view.getUint32(at + 8, true)).toBe(masked(file.slice(at, at + 8)));
    const data = file.slice(at + 12, at + 12 + length);
    expect(view.getUint32(at + 12 + length, true)).toBe(masked(data));
    at += 16 + length;
    const e: Event = { wallTime: NaN, step: 0, scalars: new Map() };
    for (const [field, type, v] of fields(data)) {
      if (field === 1 && type === 1) e.wallTime = f64(v as Uint8Array);
      else if (field === 2 && type === 0) e.step = Number(v);
      else if (field === 3 && type === 2) e.fileVersion = text(v as Uint8Array);
      else if (field === 5 && type === 2) {
        for (const [vf, , value] of fields(v as Uint8Array)) {
          expect(vf).toBe(1); // Summary.value
          const parts = new Map(fields(value as Uint8Array).map(([f, , x]) => [f, x as Uint8Array]));
          e.scalars.set(text(parts.get(1)!), f32(parts.get(2)!)); // Value.tag, Value.simple_value
        }
      } else throw new Error(`unexpected Event field ${field}`);
    }
    events.push(e);
  }
  return events;
}

/** Every point of history.json must be in the events at its update, to float32, and nothing else. */
function expectHistoryIn(events: Event[], h: History): void {
  expect(events[0].fileVersion).toBe("brain.Event:2");
  const steps = events.slice(1).map((e) => e.step);
  expect(new Set(steps).size).toBe(steps.length); // no update twice
  const at = new Map(events.slice(1).map((e) => [e.step, e.scalars]));
  expect(at.get(0)).toEqual(new Map([[SCALAR_TAGS.validation_nll, Math.fround(h.initial_validation_nll!)]]));
  expect(steps).toEqual([0, ...h.entries.map((e) => e.update)]);
  for (const e of h.entries) {
    const want = new Map<string, number>([
      [SCALAR_TAGS.train_loss, e.train_loss],
      [SCALAR_TAGS.lr, e.lr],
      [SCALAR_TAGS.grad_norm, e.grad_norm],
      [SCALAR_TAGS.tokens_per_second, e.tokens_per_second],
    ]);
    if (e.validation_nll !== null) want.set(SCALAR_TAGS.validation_nll, e.validation_nll);
    expect(at.get(e.update)).toEqual(new Map([...want].map(([k, v]) => [k, Math.fround(v)])));
  }
  for (const e of events) expect(e.wallTime).toBeGreaterThan(1e9);
}

const history = (store: ReturnType<typeof memoryStore>) => JSON.parse(text(store.files.get(HISTORY_FILE)!)) as History;
const quiet = () => {};

beforeAll(() => initBackend("wasm"));

describe("--tensorboard event file", () => {
  it("holds history.json's values at every update, and after a resume from a state behind the event file, each once", async () => {
    const before = tf.memory().numTensors;
    const base = { ...TRAIN_DEFAULTS, updates: 8, evalEvery: 2, saveEvery: 2, tensorboard: true };
    const whole = memoryStore();
    await runTraining({ ...base, out: whole }, quiet, quiet);
    expectHistoryIn(readEvents(whole.files.get(EVENTS_FILE)!), history(whole));

    // interrupted after update 6, then the state put back to update 4's (a kill after the history and event file
    // were written, before the state), and a torn record appended (a kill inside a write): the resume keeps 0–4
    const cut = memoryStore();
    let stateAt4: Uint8Array | undefined;
    let asked = 0;
    const watched = {
      ...cut,
      write: (n: string, d: Uint8Array | string) => {
        cut.write(n, d);
        if (n === STATE_FILE && cut.files.get(HISTORY_FILE) && history(cut).entries.length === 4) stateAt4 = cut.files.get(STATE_FILE);
      },
    };
    await runTraining({ ...base, out: watched as never }, quiet, quiet, () => ++asked > 6);
    expect(readEvents(cut.files.get(EVENTS_FILE)!).at(-1)!.step).toBe(6);
    cut.files.set(STATE_FILE, stateAt4!);
    const ahead = cut.files.get(EVENTS_FILE)!;
    const torn = new Uint8Array(ahead.length + 7);
    torn.set(ahead);
    torn.set([9, 0, 0, 0, 0, 0, 0], ahead.length);
    cut.files.set(EVENTS_FILE, torn);
    await runTraining({ ...base, out: cut, resume: true }, quiet, quiet);
    const resumed = readEvents(cut.files.get(EVENTS_FILE)!);
    expectHistoryIn(resumed, history(cut));
    // the resumed run trains the same updates: the same values as the uninterrupted one, times aside
    const values = (events: Event[]) =>
      events.slice(1).map((e) => [e.step, [...e.scalars].filter(([k]) => k !== SCALAR_TAGS.tokens_per_second)]);
    expect(values(resumed)).toEqual(values(readEvents(whole.files.get(EVENTS_FILE)!)));
    // history.csv, the same history as a table: update 0's validation, then one row per update
    expect(writeHistoryCsv(cut)).toBe(`memory:${HISTORY_CSV_FILE}`);
    const rows = text(cut.files.get(HISTORY_CSV_FILE)!).trimEnd().split("\r\n");
    expect(rows[0]).toBe("update,train_loss,lr,grad_norm,validation_nll,validation_targets,tokens_per_second,wall_seconds");
    expect(rows[1]).toBe(`0,,,,${history(cut).initial_validation_nll},,,`);
    expect(rows.slice(2).map((r) => r.split(",").slice(0, 6).join(","))).toEqual(
      history(cut).entries.map((e) =>
        [e.update, e.train_loss, e.lr, e.grad_norm, e.validation_nll ?? "", e.validation_targets ?? ""].join(","),
      ),
    );
    expect(tf.memory().numTensors).toBe(before);
  });

  it("overfit per seed and cyclic: each update's loss and gradient norm, and validation at its evaluations, as the results hold them", () => {
    const before = tf.memory().numTensors;
    const files = new Map<number, Uint8Array>();
    const overfit = runOverfit(
      { seeds: [39, 40], updates: 6, checkpoints: [0, 3, 6] },
      { onEvents: (seed, bytes) => files.set(seed, bytes) },
    );
    expect([...files.keys()]).toEqual([39, 40]);
    for (const run of overfit.runs) {
      const events = readEvents(files.get(run.seed)!);
      expect(events[0].fileVersion).toBe("brain.Event:2");
      expect(events.slice(1).map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(events.slice(2).map((e) => e.scalars.get(SCALAR_TAGS.train_loss))).toEqual(run.training_loss_by_update.map(Math.fround));
      const validation = events
        .slice(1)
        .filter((e) => e.scalars.has(SCALAR_TAGS.validation_nll))
        .map((e) => [e.step, e.scalars.get(SCALAR_TAGS.validation_nll)]);
      expect(validation).toEqual(run.checkpoints.map((c) => [c.update, Math.fround(c.validation.nll)]));
      for (const e of events.slice(2)) expect(e.scalars.get(SCALAR_TAGS.lr)).toBe(Math.fround(overfit.options.lr));
    }
    let cyclicFile: Uint8Array | undefined;
    const cyclic = runCyclic({ updates: 4, evalEvery: 2 }, { onEvents: (bytes) => (cyclicFile = bytes) });
    const events = readEvents(cyclicFile!).slice(1);
    expect(events.map((e) => e.step)).toEqual([0, 1, 2, 3, 4]);
    expect(events.slice(1).map((e) => [e.scalars.get(SCALAR_TAGS.train_loss), e.scalars.get(SCALAR_TAGS.grad_norm)])).toEqual(
      cyclic.training.steps.map((s) => [Math.fround(s.loss), Math.fround(s.grad_norm)]),
    );
    expect(
      events.filter((e) => e.scalars.has(SCALAR_TAGS.validation_nll)).map((e) => [e.step, e.scalars.get(SCALAR_TAGS.validation_nll)]),
    ).toEqual(cyclic.training.checkpoints.map((c) => [c.update, Math.fround(c.validation)]));
    expect(tf.memory().numTensors).toBe(before);
  });

  it("is refused without --eval-every, naming the flags", async () => {
    await expect(runTraining({ ...TRAIN_DEFAULTS, updates: 2, tensorboard: true, out: memoryStore() }, quiet, quiet)).rejects.toThrow(
      "--tensorboard writes the history's event file into --out: it needs --out and --eval-every",
    );
  });
});
