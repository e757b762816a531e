// Fuzzing the decoders: seeded corruptions of a valid model file and state file, byte-level and structural, every
// one refused in one line naming the file; every field of the JSON the lab reads (the state's metadata, a
// manifest, a history, each sweep result) deleted, nulled, retyped, given twice and put out of range, each refused in
// one line naming the file and the field; model files with a GiB the header declares, refused from the header in
// bounded time and memory; hostile values of every option, refused where they are parsed; and hostile commands
// (writes over inputs, other runs and through links, runs mixed across engines, unsealed exports, runaways), each
// refused in one line with nothing written. Not a test of valid files' contents.
import { spawn } from "node:child_process";
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS } from "../../src/model/config.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run } from "../../src/lab/run.ts";
import { decodeModelFile, MODEL_FORMAT, MODEL_FORMAT_V1, MODEL_FORMAT_V2 } from "../../src/lab/model_file.ts";
import { ModelFileError, INTEGRITY, signed } from "../../src/lab/file_checks.ts";
import { decodeTrainState, TRAIN_STATE_FORMAT } from "../../src/lab/state_file.ts";
import { decodeSafetensors, encodeSafetensors, SafetensorsError, type TensorEntry } from "../../src/util/formats/safetensors.ts";
import { editHeader, reencode, splitFile, swapOffsets, type HeaderEntry } from "./file_edits.ts";
import { keyPath } from "../../src/util/formats/json_strict.ts";
import { emptyHistory, resumeHistory, type HistoryEntry } from "../../src/lab/history.ts";
import { splitTexts, textSplit } from "../../src/data/text_split.ts";
import type { TextSource } from "../../src/data/text_documents.ts";
import { collectSweep } from "../../experiments/sweep.ts";
import yargs from "yargs";
import { readModelFileBytes } from "../../src/node/disk.ts";
import { modelOverrides, OPTION_GROUPS, withOptions } from "../../src/cli/options.ts";
import { resolveModelConfig } from "../../src/model/config.ts";
import { DIRECTORY_LOCK } from "../../src/node/lock.ts";
import { sha256Hex } from "../../src/util/primitives/sha256.ts";
import { exportModel } from "../../experiments/export.ts";
import { tinylabHere } from "../cli/in_process.ts";

/** One valid file under test and what the corruptions need to know about it. */
interface Subject {
  kind: "model" | "state";
  bytes: Uint8Array;
  /** Decode as the lab does; returns nothing, disposing whatever an accepted file built. */
  decode: (bytes: Uint8Array, path: string) => void;
  /** Forged (re-signed) edits only this kind of file must refuse. */
  forgeries: ((t: Record<string, TensorEntry>, m: Record<string, string>, rng: Rng) => void)[];
}

type Info = { dtype: string; shape: number[]; data_offsets: [number, number] };
type Corruption = (rng: Rng, s: Subject) => Uint8Array | undefined;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(xs.length)];
const tensorEntries = (bytes: Uint8Array) => splitFile(bytes).entries.filter(([k]) => k !== "__metadata__") as [string, Info][];
const headerLength = (bytes: Uint8Array) => Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
const f32 = (t: TensorEntry) => t.data as Float32Array;
const withPrefix = (bytes: Uint8Array, n: bigint) => {
  const out = bytes.slice();
  new DataView(out.buffer).setBigUint64(0, n, true);
  return out;
};
const flipAt = (bytes: Uint8Array, at: number, rng: Rng) => {
  const out = bytes.slice();
  out[at] ^= 1 + rng.int(255);
  return out;
};
const nonFinite = (rng: Rng) => pick(rng, [NaN, Infinity, -Infinity]);

/** Every kind of damage, each drawing its details from `rng`; undefined when it does not apply to this file. */
const CORRUPTIONS: Record<string, Corruption> = {
  truncated: (rng, s) => s.bytes.slice(0, rng.int(s.bytes.length)),
  "flipped header byte": (rng, s) => flipAt(s.bytes, rng.int(8 + headerLength(s.bytes)), rng),
  "flipped data byte": (rng, s) => {
    const start = 8 + headerLength(s.bytes);
    return flipAt(s.bytes, start + rng.int(s.bytes.length - start), rng);
  },
  "header length lie": (rng, s) => {
    const n = BigInt(headerLength(s.bytes));
    return withPrefix(
      s.bytes,
      pick(rng, [0n, n - 8n, n - 1n, n + 1n, n + 8n, BigInt(s.bytes.length), 99_999_999n, 2n ** 63n, 2n ** 64n - 1n]),
    );
  },
  "padding changed to other whitespace": (rng, s) => {
    const end = 8 + headerLength(s.bytes);
    let start = end;
    while (s.bytes[start - 1] === 0x20) start--;
    if (start === end) return undefined;
    const out = s.bytes.slice();
    out[start + rng.int(end - start)] = pick(rng, [0x09, 0x0a, 0x0d]); // JSON whitespace: the header parses the same
    return out;
  },
  "swapped offsets, same size": (rng, s) => {
    const entries = tensorEntries(s.bytes);
    const pairs = entries.flatMap(([a, x], i) =>
      entries
        .slice(i + 1)
        .filter(([, y]) => y.data_offsets[1] - y.data_offsets[0] === x.data_offsets[1] - x.data_offsets[0])
        .map(([b]) => [a, b]),
    );
    const [a, b] = pick(rng, pairs);
    return swapOffsets(s.bytes, a, b);
  },
  "swapped offsets, any two": (rng, s) => {
    const names = tensorEntries(s.bytes).map(([k]) => k);
    const a = pick(rng, names),
      b = pick(
        rng,
        names.filter((k) => k !== a),
      );
    return swapOffsets(s.bytes, a, b);
  },
  "edited metadata value": (rng, s) =>
    reencode(
      s.bytes,
      (_, m) => {
        const key = pick(rng, Object.keys(m).sort());
        const edits = [`${m[key]} `, m[key].replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)), "", "null", "{}", m[key].slice(1)];
        m[key] = pick(
          rng,
          edits.filter((e) => e !== m[key]),
        );
      },
      false,
    ),
  "dropped metadata key": (rng, s) => {
    const key = pick(rng, Object.keys(splitFile(s.bytes).entries[0][1] as object).sort());
    return reencode(
      s.bytes,
      (_, m) => {
        delete m[key];
      },
      key !== INTEGRITY && rng.next() < 0.5,
    ); // re-signing would put the digest back
  },
  "non-finite value in the data": (rng, s) =>
    reencode(
      s.bytes,
      (t) => {
        const data = f32(t[pick(rng, Object.keys(t).sort())]);
        data[rng.int(data.length)] = nonFinite(rng);
      },
      rng.next() < 0.5,
    ),
  "dtype edited in the header": (rng, s) =>
    editHeader(s.bytes, (entries) => {
      const info = pick(
        rng,
        entries.filter(([k]) => k !== "__metadata__"),
      )[1] as Info;
      info.dtype = pick(rng, ["F16", "BF16", "F64", "I32", "U32", "U8", "BOOL", "F8", "f32", ""]);
      return entries;
    }),
  "dtype changed, re-signed": (rng, s) =>
    reencode(
      s.bytes,
      (t) => {
        const name = pick(rng, Object.keys(t).sort());
        t[name] =
          rng.next() < 0.5
            ? { dtype: "F64", shape: t[name].shape, data: Float64Array.from(f32(t[name])) }
            : { dtype: "I32", shape: t[name].shape, data: new Int32Array(f32(t[name]).length) };
      },
      true,
    ),
  "shape edited in the header": (rng, s) =>
    editHeader(s.bytes, (entries) => {
      const info = pick(
        rng,
        entries.filter(([k]) => k !== "__metadata__"),
      )[1] as Info;
      info.shape = pick(rng, [[...info.shape].reverse().concat(1), info.shape.map((d) => d + 1), [], [0], info.shape.slice(1)]);
      return entries;
    }),
  "shape changed, re-signed": (rng, s) =>
    reencode(
      s.bytes,
      (t) => {
        const name = pick(rng, Object.keys(t).sort());
        const shape = t[name].shape.length === 1 ? [1, t[name].shape[0]] : [f32(t[name]).length]; // same element count, other shape
        t[name] = { ...t[name], shape } as TensorEntry;
      },
      true,
    ),
  "duplicate header key": (rng, s) =>
    editHeader(s.bytes, (entries) => {
      const at = rng.int(entries.length);
      return [...entries.slice(0, at + 1), entries[at], ...entries.slice(at + 1)] as HeaderEntry[];
    }),
  "extra tensor": (rng, s) =>
    reencode(
      s.bytes,
      (t) => {
        t[pick(rng, ["h1.ln1.g", "head", "m.extra", "wte2", "v."])] = { dtype: "F32", shape: [8], data: new Float32Array(8) };
      },
      rng.next() < 0.5,
    ),
  "missing tensor": (rng, s) =>
    reencode(
      s.bytes,
      (t) => {
        delete t[pick(rng, Object.keys(t).sort())];
      },
      rng.next() < 0.5,
    ),
  "format relabelled, re-signed": (rng, s) =>
    reencode(
      s.bytes,
      (_, m) => {
        m.format = pick(
          rng,
          [
            MODEL_FORMAT,
            MODEL_FORMAT_V2,
            MODEL_FORMAT_V1,
            TRAIN_STATE_FORMAT,
            "tinylab-train-state/1",
            "tinylab-model/4",
            "safetensors",
          ].filter((f) => f !== m.format),
        );
      },
      true,
    ),
  "forged, re-signed": (rng, s) => reencode(s.bytes, (t, m) => pick(rng, s.forgeries)(t, m, rng), true),
  garbage: (rng) => Uint8Array.from({ length: rng.int(300) }, () => rng.int(256)),
};

/** At least `count` corruptions of `s`, every kind in turn, details drawn from `rng`. */
function corruptions(s: Subject, rng: Rng, count: number): { what: string; bytes: Uint8Array }[] {
  const kinds = Object.entries(CORRUPTIONS);
  const out: { what: string; bytes: Uint8Array }[] = [];
  for (let i = 0; out.length < count; i++) {
    const [what, make] = kinds[i % kinds.length];
    const bytes = make(rng, s);
    if (bytes) out.push({ what, bytes });
  }
  return out;
}

/** The corruptions `decode` accepted, and refusals that are not one named line (both must be empty). */
function fuzz(s: Subject, seed: string, count: number): string[] {
  const problems: string[] = [];
  corruptions(s, Rng.fromSeed(seed), count).forEach(({ what, bytes }, i) => {
    const path = `/fuzz/${s.kind}-${i}.safetensors`;
    try {
      s.decode(bytes, path);
      problems.push(`${s.kind} #${i} ${what}: accepted`);
    } catch (err) {
      const e = err as Error;
      const named = (e instanceof ModelFileError || e instanceof SafetensorsError) && e.message.includes(path) && !e.message.includes("\n");
      if (!named) problems.push(`${s.kind} #${i} ${what}: ${e.name}: ${e.message}`);
    }
  });
  return problems;
}

const PER_KIND = 120;
let model: Subject, state: Subject;
beforeAll(async () => {
  await initBackend("wasm");
  const config = PRESETS.overfit;
  const tokenizer = overfitTokenizer();
  const train = overfitDocuments(tokenizer).filter((d) => d.split === "train");
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  const run = Run.create({
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed: 7, lr: 0.02, shuffle: true, data: "overfit-fixture" }),
    data: (b) => new EpochSource(mbs, 1, b),
  });
  run.train({ updates: 3 });
  model = {
    kind: "model",
    bytes: run.modelBytes(),
    decode: (bytes, path) => decodeModelFile(bytes, path).model.dispose(),
    forgeries: [
      (_, m) => {
        m.config = m.config.replace('"nHeads":2', '"nHeads":3');
      },
      (_, m) => {
        m.config = m.config.replace('"nLayers":1', '"nLayers":2');
      },
      (_, m) => {
        m.tokenizer = '{"kind":"byte","vocabSize":300}';
      },
      (_, m) => {
        m.provenance = '{"seed":"7","update":3}';
      },
      (_, m) => {
        m.architecture = m.architecture.replace('"gelu_tanh"', '"gelu_erf"');
      },
      (_, m) => {
        m.architecture = m.architecture.replace('"head":"tied"', '"head":"untied"');
      },
      (_, m) => {
        m.tokenizer_scheme = m.tokenizer_scheme.replace('"byte_offset":2', '"byte_offset":3');
      },
      (_, m) => {
        delete m.architecture;
      },
    ],
  };
  state = {
    kind: "state",
    bytes: run.stateBytes(),
    decode: (bytes, path) => {
      decodeTrainState(bytes, path);
    },
    forgeries: [
      (t, _, rng) => {
        const v = f32(
          t[
            pick(
              rng,
              Object.keys(t)
                .filter((k) => k.startsWith("v."))
                .sort(),
            )
          ],
        );
        v[rng.int(v.length)] = -1e-3;
      },
      (_, m, rng) => {
        m.step = pick(rng, ["2", "4", "-1", "3.5", '"3"', "[3]"]);
      },
      (_, m) => {
        m.rngs = '{"dropout":{"seed":"7/dropout","alea":{"c":1}}}';
      },
      (_, m) => {
        m.options = "[]";
      },
      (t, m) => {
        m.step = "0";
        m.provenance = m.provenance.replace('"update":3', '"update":0');
        delete t["m.wte"];
      },
    ],
  };
  run.dispose();
});

describe("fuzzing the file decoders", () => {
  it("accepts the valid files (the control: a decoder that refuses everything would pass the rest)", () => {
    expect(() => model.decode(model.bytes, "model")).not.toThrow();
    expect(() => state.decode(state.bytes, "state")).not.toThrow();
  });

  it(`refuses ${PER_KIND} seeded corruptions of a model file and ${PER_KIND} of a state file, each in one line naming the file`, () => {
    const before = tf.memory().numTensors;
    const started = performance.now();
    expect([...fuzz(model, "fuzz-model", PER_KIND), ...fuzz(state, "fuzz-state", PER_KIND)]).toEqual([]);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(tf.memory().numTensors).toBe(before);
  }, 30_000);
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Segment = string | number;
const pathOf = (segs: readonly Segment[]) => segs.reduce<string>((p, x) => (typeof x === "number" ? `${p}[${x}]` : keyPath(p, x)), "");

/** Every node under the root, as its path's segments. */
function nodes(v: Json, at: Segment[] = []): Segment[][] {
  const kids: [Segment, Json][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : v !== null && typeof v === "object" ? Object.entries(v) : [];
  return kids.flatMap(([k, x]) => [[...at, k], ...nodes(x, [...at, k])]);
}

/** JSON text of `v`, with the value at `at` written as `raw`, or the key at `at` written twice. */
function serialize(v: Json, edit: { at: string; raw?: string; twice?: boolean }, path = ""): string {
  if (path === edit.at && edit.raw !== undefined) return edit.raw;
  if (Array.isArray(v)) return `[${v.map((x, i) => serialize(x, edit, `${path}[${i}]`)).join(",")}]`;
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  return `{${Object.entries(v)
    .flatMap(([k, x]) => {
      const one = `${JSON.stringify(k)}:${serialize(x, edit, keyPath(path, k))}`;
      return edit.twice && keyPath(path, k) === edit.at ? [one, one] : [one];
    })
    .join(",")}}`;
}

const retyped = (x: Json): Json =>
  typeof x === "number"
    ? String(x)
    : typeof x === "string"
      ? 7
      : typeof x === "boolean"
        ? String(x)
        : x === null
          ? "x"
          : Array.isArray(x)
            ? {}
            : [];

/** The five mutations of the field at `segs`, as JSON texts of the whole value (undefined where one does not apply). */
function mutations(root: Json, segs: Segment[]): [string, string | undefined][] {
  const at = pathOf(segs);
  const parent = segs.slice(0, -1).reduce<any>((o, k) => o[k], root);
  const last = segs[segs.length - 1];
  const withValue = (edit: (p: any) => void) => {
    const copy = structuredClone(root);
    edit(segs.slice(0, -1).reduce<any>((o, k) => o[k], copy));
    return JSON.stringify(copy);
  };
  const isField = typeof last === "string";
  const value = parent[last] as Json;
  return [
    [
      "deleted",
      isField
        ? withValue((p) => {
            delete p[last];
          })
        : undefined,
    ],
    [
      "nulled",
      value === null
        ? undefined
        : withValue((p) => {
            p[last] = null;
          }),
    ],
    [
      "retyped",
      withValue((p) => {
        p[last] = retyped(value);
      }),
    ],
    ["given twice", isField ? serialize(root, { at, twice: true }) : undefined],
    ["out of range", typeof value === "number" ? serialize(root, { at, raw: value >= 0 ? "1e999" : "-1e308" }) : undefined],
  ];
}

interface JsonSubject {
  name: string;
  value: Json;
  /** Read the edited text as the lab does, with `file` its name; throws on refusal. */
  read: (text: string, file: string) => void;
  /** Paths (of the whole value) where a null or a deletion is valid, so acceptance there is right. */
  optional?: string[];
  /** The top level is not JSON text of its own (a state's metadata map, whose repeated keys the safetensors layer refuses). */
  topIsNotJson?: boolean;
}

/** Every mutation of every field of `s`: refusals that are not one line naming the file and the field, and accepted edits. */
function fuzzJson(s: JsonSubject): { cases: number; problems: string[] } {
  const problems: string[] = [];
  let cases = 0;
  for (const segs of nodes(s.value)) {
    const at = pathOf(segs);
    const parent = pathOf(segs.slice(0, -1));
    for (const [what, text] of mutations(s.value, segs)) {
      if (text === undefined || (what === "given twice" && s.topIsNotJson && segs.length === 1)) continue;
      cases++;
      const file = `/fuzz/${s.name}-${cases}`;
      try {
        s.read(text, file);
        if (!((what === "nulled" || what === "deleted") && s.optional?.includes(at))) problems.push(`${s.name} ${at} ${what}: accepted`);
      } catch (err) {
        const e = err as Error;
        // a cross-field rule names the sibling it checks: the object holding the field is named then
        const named = e.message.includes(at) || (parent !== "" && e.message.includes(`${parent}.`));
        const ok =
          ["SchemaError", "JsonError", "ModelFileError"].includes(e.name) &&
          e.message.includes(`${file}:`) &&
          named &&
          !e.message.includes("\n");
        if (!ok) problems.push(`${s.name} ${at} ${what}: ${e.name}: ${e.message}`);
      }
    }
  }
  return { cases, problems };
}

describe("fuzzing every field of the JSON files the lab reads", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-fuzz-json-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const subjects = (): JsonSubject[] => {
    const { tensors, metadata } = decodeSafetensors(state.bytes);
    const KEYS = ["config", "tokenizer", "provenance", "options", "step", "rngs", "cursor"];
    const meta = Object.fromEntries(KEYS.map((k) => [k, JSON.parse(metadata[k]) as Json]));
    const texts: TextSource[] = Array.from({ length: 12 }, (_, i) => ({
      id: `${i % 2 ? "a" : "b"}/${i}.txt`,
      source: i % 2 ? "a" : "b",
      file: `/t/${i}.txt`,
      text: `text ${i}`,
    }));
    const split = { seed: 3, validation: 0.2, test: 0.2 };
    const entry = (update: number, scored: boolean): HistoryEntry => ({
      update,
      train_loss: 5 - update / 8,
      lr: 0.01,
      grad_norm: 0.5,
      validation_nll: scored ? 4.5 : null,
      validation_targets: scored ? 40 : null,
      tokens_per_second: 120,
      wall_seconds: update / 4,
    });
    let runs = 0;
    const collect = (file: string) => (text: string, name: string) => {
      const sweep = join(dir, `sweep-${runs++}`);
      mkdirSync(join(sweep, "seed=39"), { recursive: true });
      writeFileSync(join(sweep, "seed=39", file), text);
      try {
        collectSweep(sweep);
      } catch (err) {
        (err as Error).message = (err as Error).message.replace(join(sweep, "seed=39", file), name); // the file as the subject names it
        throw err;
      }
    };
    return [
      {
        name: "state",
        value: meta,
        optional: ["cursor.rng"],
        topIsNotJson: true,
        read: (text, file) => {
          const { integrity: _, ...rest } = metadata;
          const m: Record<string, string> = Object.fromEntries(Object.entries(rest).filter(([k]) => !KEYS.includes(k)));
          for (const [k, raw] of topLevelEntries(text)) {
            if (Object.hasOwn(m, k)) throw new Error("a metadata key given twice is the safetensors layer's to refuse (fuzzed above)");
            m[k] = raw;
          }
          decodeTrainState(encodeSafetensors(tensors, signed(tensors, m)), file);
        },
      },
      {
        name: "manifest",
        value: splitTexts(texts, split) as unknown as Json,
        read: (text, file) => {
          textSplit(texts, { read: () => new TextEncoder().encode(text), write: () => {}, where: () => file }, split);
        },
      },
      {
        name: "history",
        value: {
          ...emptyHistory(),
          initial_validation_nll: 5.5,
          entries: [entry(1, false), entry(2, true), entry(3, false), entry(4, true)],
        } as unknown as Json,
        optional: ["initial_validation_nll"],
        read: (text, file) => {
          resumeHistory(new TextEncoder().encode(text), 4, file);
        },
      },
      {
        name: "overfit.json",
        value: { options: { seeds: [39] }, runs: [{ checkpoints: [{ train: { nll: 0.5 }, validation: { nll: 1.5 } }] }] },
        read: collect("overfit.json"),
      },
      {
        name: "cyclic.json",
        value: { options: { seed: 39 }, scores: { train: [{ nll: 1.25 }], validation: [{ nll: 1.5 }] } },
        read: collect("cyclic.json"),
      },
      {
        name: "train.json",
        value: { options: { seed: 39 }, validation: { nll: 1.5 } },
        optional: ["validation"],
        read: collect("train.json"),
      },
    ];
  };

  it("accepts each file unedited (the control: a reader that refuses everything would pass the rest)", () => {
    for (const s of subjects()) expect(() => s.read(JSON.stringify(s.value), `/fuzz/${s.name}`), s.name).not.toThrow();
  });

  it("refuses every field deleted, nulled, retyped, given twice and out of range, in one line naming the file and the field", () => {
    const started = performance.now();
    const results = subjects().map((s) => ({ name: s.name, ...fuzzJson(s) }));
    expect(results.flatMap((r) => r.problems)).toEqual([]);
    for (const r of results) expect(r.cases, r.name).toBeGreaterThan(10);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

/** The top-level entries of an object's JSON text as [key, raw value text], in order (repeats kept): each state entry's own text. */
function topLevelEntries(text: string): [string, string][] {
  const out: [string, string][] = [];
  let depth = 0,
    key = "",
    start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const from = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth === 1 && start === -1) key = JSON.parse(text.slice(from, i + 1)) as string;
    } else if (c === ":" && depth === 1 && start === -1) start = i + 1;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "," && depth === 1) || ((c === "}" || c === "]") && --depth === 0)) {
      if (start !== -1) out.push([key, text.slice(start, i)]);
      start = -1;
    }
  }
  return out;
}

/** `bytes` (a model file) with `extra` more bytes the header declares as one more F32 tensor `name`: written sparse, so nothing big is written. */
function withDeclaredTensor(bytes: Uint8Array, path: string, name: string, extra: number): void {
  const n = headerLength(bytes);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, Info>;
  const end = bytes.length - 8 - n;
  header[name] = { dtype: "F32", shape: [extra / 4], data_offsets: [end, end + extra] };
  let text = JSON.stringify(header);
  text += " ".repeat((8 - (text.length % 8)) % 8);
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + head.length + end);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  out.set(bytes.subarray(8 + n), 8 + head.length);
  writeFileSync(path, out);
  truncateSync(path, out.length + extra);
}

/** 1.2 GB: a tensor the lab once read whole, with a copy of it, before refusing the file. */
const BLOAT = 1_200_000_000;

describe("a model file judged from its header before any tensor is read", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-fuzz-bounded-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each<[string, (path: string) => void, string]>([
    [
      "a 1.2 GB tensor the config does not call for",
      (p) => withDeclaredTensor(model.bytes, p, "extra", BLOAT),
      'unexpected tensor "extra" for this config',
    ],
    [
      "an untied head on a tied config, 1.2 GB",
      (p) => withDeclaredTensor(model.bytes, p, "head", BLOAT),
      'unexpected tensor "head" for this config',
    ],
    [
      "a block the config does not have, 1.2 GB",
      (p) => withDeclaredTensor(model.bytes, p, "h9.mlp.w1", BLOAT),
      'unexpected tensor "h9.mlp.w1" for this config',
    ],
    [
      "a 1.2 GB data region past the declared tensors",
      (p) => {
        writeFileSync(p, model.bytes);
        truncateSync(p, model.bytes.length + BLOAT);
      },
      `not a valid safetensors file: ${BLOAT} trailing bytes after the last tensor's data`,
    ],
  ])("refuses %s in under 1 CPU-second and 300 MB, having read the header only", (_, make, says) => {
    const path = join(dir, "bloated.safetensors");
    make(path);
    // CPU time: other work on a shared machine does not stretch it, and reading a GiB would cost it
    const [rss, cpu] = [process.memoryUsage.rss(), process.cpuUsage()];
    expect(() => readModelFileBytes(path)).toThrow(says.startsWith("not a valid") ? `${path}: ${says}` : `model file ${path}: ${says}`);
    const used = process.cpuUsage(cpu);
    expect(used.user + used.system).toBeLessThan(1e6);
    expect(process.memoryUsage.rss() - rss).toBeLessThan(300 * 2 ** 20);
  });

  it("still reads the valid file it was made from (the control)", () => {
    const path = join(dir, "valid.safetensors");
    writeFileSync(path, model.bytes);
    expect(readModelFileBytes(path)).toEqual(model.bytes);
  });
});

describe("hostile option values, refused where they are parsed, in one line naming the option", () => {
  const specs = Object.values(OPTION_GROUPS).flatMap((g) => Object.entries(g as Record<string, { type: string }>));
  const parse = (name: string, text: string) =>
    withOptions(yargs(), { [name]: undefined })
      .strict()
      .exitProcess(false)
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseSync([`--${name}`, text]) as Record<string, unknown>;
  const accepts = (name: string, text: string) => {
    try {
      parse(name, text);
      return true;
    } catch {
      return false;
    }
  };
  const numbers = specs.filter(([, s]) => s.type === "number").map(([n]) => n);
  // an integer option takes 2 and refuses 2.5 (the fractions, rates and ranges refuse or take both)
  const integers = numbers.filter((n) => accepts(n, "2") && !accepts(n, "2.5"));
  const lists = ["seeds", "checkpoints", "strides", "canary-sweep"];

  /** The values refused, each as [option, value, the refusal or "accepted"], where the refusal is not one line naming the option. */
  function problems(cases: [string, string][]): string[] {
    return cases.flatMap(([name, text]) => {
      try {
        parse(name, text);
        return [`--${name} ${JSON.stringify(text)}: accepted`];
      } catch (err) {
        const m = (err as Error).message;
        return m.startsWith(`--${name}`) && !m.includes("\n") ? [] : [`--${name} ${JSON.stringify(text)}: ${m}`];
      }
    });
  }

  it("finds the options it fuzzes (the control: an empty list would pass the rest)", () => {
    expect(integers).toEqual(
      expect.arrayContaining(["updates", "batch-rows", "context", "vocab", "max-tokens", "samples", "seed", "port"]),
    );
    expect(numbers).toEqual(expect.arrayContaining(["lr", "dropout", "lambda"]));
    for (const [name, text] of [
      ["updates", "16"],
      ["updates", "1e3"],
      ["lr", "3e-3"],
      ["lr", ".5"],
      ["seeds", "39, 40"],
      ["strides", "1,2"],
      ["model-config", '{"nLayers":2}'],
      ["prompt", "héllo ✓"],
    ]) {
      expect(accepts(name, text), `--${name} ${text}`).toBe(true);
    }
  });

  it("refuses hex, octal, binary, Infinity and padded text in every number option", () => {
    expect(
      problems(
        numbers.flatMap((n) =>
          ["0x10", "0o10", "0b1", "Infinity", "1e999", " 2", "2 ", "1_000", "2abc"].map((t): [string, string] => [n, t]),
        ),
      ),
    ).toEqual([]);
  });

  it("refuses a fraction, a negative exponent and a value past 2^53 in every integer option, and a count past its named limit", () => {
    expect(
      problems(integers.flatMap((n) => ["2.0", "20e-1", "2.5", "9007199254740993", "1e16"].map((t): [string, string] => [n, t]))),
    ).toEqual([]);
    const counts = [
      "updates",
      "warmup",
      "cosine-steps",
      "microbatches",
      "batch-rows",
      "save-every",
      "patience",
      "eval-every",
      "log-every",
      "layers",
      "d-model",
      "heads",
      "d-ff",
      "max-tokens",
      "samples",
      "top-k",
      "stride",
      "canary-secret",
      "canary-repetitions",
    ];
    expect(problems(counts.map((n): [string, string] => [n, "1000000000000"]))).toEqual([]);
  });

  it("refuses empty elements and non-decimal integers in every list option", () => {
    expect(problems(lists.flatMap((n) => ["1,,2", ",1", "1,", "1, ,2", "0x10", "1,2.0"].map((t): [string, string] => [n, t])))).toEqual([]);
  });

  it("refuses __proto__, constructor and prototype keys in --model-config, as the model-file reader refuses them", () => {
    expect(
      problems(
        ["__proto__", "constructor", "prototype"]
          .flatMap((k) => [`{"${k}":{"nLayers":3}}`, `{"${k}":1}`, `{"nLayers":2,"${k}":null}`])
          .map((t): [string, string] => ["model-config", t]),
      ),
    ).toEqual([]);
    // a key of Object.prototype's that is no field is refused when the config is resolved, never taken as one
    for (const k of ["toString", "hasOwnProperty", "valueOf"])
      expect(() => resolveModelConfig(modelOverrides({ modelConfig: { [k]: 1 } }))).toThrow(`unknown model config key "${k}"`);
  });

  it("refuses text that is not UTF-8 (U+FFFD in an argument) in --prompt, as --text refuses such a file", () => {
    expect(problems(["\uFFFD", "ab\uFFFDc", "ok \uFFFD\uFFFD"].map((t): [string, string] => ["prompt", t]))).toEqual([]);
  });
});

/** Every entry under `root` (links not followed) with what a write would change: kind, size, bytes' digest or link target. */
function tree(root: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(root, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(root, r));
    if (st.isSymbolicLink()) out[r] = `link → ${readlinkSync(join(root, r))}`;
    else if (st.isDirectory()) Object.assign(out, { [`${r}/`]: "dir" }, tree(root, r));
    else out[r] = `file ${st.size} ${st.size > 2 ** 24 ? `mtime ${st.mtimeMs}` : sha256Hex(readFileSync(join(root, r)))}`;
  }
  return out;
}

describe("hostile commands: data loss, silently mixed results and runaways, each refused in one line with nothing written", () => {
  const root = mkdtempSync(join(tmpdir(), "tinylab-fuzz-commands-"));
  const at = (p: string) => join(root, p);
  const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
  const LINES = Array.from({ length: 30 }, (_, i) => `line ${i} of a story long enough to split`).join("\n") + "\n";
  // a live process that is not this one: the holder of busy/'s lock
  const holder = spawn("sleep", ["300"], { stdio: "ignore" });
  const held = (what: string) =>
    `${what} is in use by process ${holder.pid} (lock file ${at(`busy/${DIRECTORY_LOCK}`)}); wait for it to finish, or remove the lock file if that process is not tinylab`;
  const put = (p: string, data: string | Uint8Array) => {
    mkdirSync(dirname(at(p)), { recursive: true });
    writeFileSync(at(p), data);
  };
  afterAll(() => {
    holder.kill();
    rmSync(root, { recursive: true, force: true });
  });

  beforeAll(async () => {
    put("fx/self.txt", LINES);
    put("story/a.txt", LINES);
    put("notes.txt", "my notes\n");
    copyFileSync(FIXTURE, at("m.safetensors"));
    put(`busy/${DIRECTORY_LOCK}`, JSON.stringify({ pid: holder.pid }));
    put(`running/${DIRECTORY_LOCK}`, JSON.stringify({ pid: holder.pid }));
    put("running/train_state.safetensors", "a running run's state");
    mkdirSync(at("outside"));
    mkdirSync(at("R"));
    symlinkSync(at("outside"), at("R/figures"));
    exportModel({ model: FIXTURE, out: at("E"), format: "hf-gpt2" });
    rmSync(at("E/onnx"), { recursive: true });
    symlinkSync(at("outside"), at("E/onnx"));
    exportModel({ model: FIXTURE, out: at("exported"), format: "onnx" });
    mkdirSync(at("runs/seed=39"), { recursive: true });
    symlinkSync(at("runs"), at("linked-runs"));
    put("site/index.html", "<title>tinylab lab</title>");
    put("site/notes.txt", "mine");
    // a run on tfjs's kernels (the tests' engine), to be resumed on another
    const run = await tinylabHere(["train", "--updates", "2", "--save-every", "1", "--out", at("run")]);
    expect(run.code, run.output).toBe(0);
    // every weight finite, the forward not: wte × 1e25, re-signed
    put(
      "overflow.safetensors",
      reencode(
        new Uint8Array(readFileSync(FIXTURE)),
        (t) => {
          for (const [i, v] of (t.wte.data as Float32Array).entries()) (t.wte.data as Float32Array)[i] = v * 1e25;
        },
        true,
      ),
    );
    // an export whose tokenizer.json was changed after it was sealed: two vocabulary ids swapped
    exportModel({ model: FIXTURE, out: at("sealed"), format: "hf-gpt2" });
    const tok = JSON.parse(readFileSync(at("sealed/tokenizer.json"), "utf8"));
    const [a, b] = Object.keys(tok.model.vocab).slice(10, 12);
    [tok.model.vocab[a], tok.model.vocab[b]] = [tok.model.vocab[b], tok.model.vocab[a]];
    writeFileSync(at("sealed/tokenizer.json"), JSON.stringify(tok));
    withDeclaredTensor(new Uint8Array(readFileSync(FIXTURE)), at("bloated.safetensors"), "extra", BLOAT);
    put("t.txt", "one document here.\n\nanother document there.\n\na third one.\n");
  }, 60_000);

  const climbs = (v: string, where = "after --,") =>
    `${where} --save-model ${v}: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors`;
  const system = (o: string) =>
    `--out ${o}: ${o} is a system directory; a command writes only into a directory of its own: choose one (e.g. results/…)`;
  const CASES: [string, string[], () => string | RegExp][] = [
    // data loss
    [
      "--save-model over the training text",
      ["train", "--text", "fx/self.txt", "--one-per-line", "--tokenizer", "byte", "--updates", "2", "--save-model", "fx/self.txt"],
      () => "--save-model fx/self.txt: is the command's input --text fx/self.txt; refusing to write over its input: choose another path",
    ],
    [
      "--save-model over a text file",
      ["overfit", "--save-model", "notes.txt"],
      () => "--save-model notes.txt: holds a file that is not a tinylab model; refusing to replace it: choose another path",
    ],
    [
      "--save-model over a model without --overwrite",
      ["overfit", "--save-model", "m.safetensors"],
      () => "--save-model m.safetensors: holds a model file; pass --overwrite to replace it, or choose another path",
    ],
    ["report into a running run's directory", ["report", "--model", FIXTURE, "--out", "busy"], () => held("report directory busy")],
    ["overfit into a running run's directory", ["overfit", "--out", "busy"], () => held("output directory busy")],
    [
      "a model saved into a running run's directory",
      ["overfit", "--out", "fresh", "--save-model", "busy/model.safetensors"],
      () => held("model directory busy"),
    ],
    [
      "a model saved over a running run's state",
      ["overfit", "--out", "fresh", "--save-model", "running/train_state.safetensors"],
      () =>
        "--save-model running/train_state.safetensors: running holds another run (train_state.safetensors or manifest.json); its files are that run's: save the model elsewhere",
    ],
    [
      "report into a running run's directory, its state there",
      ["report", "--model", FIXTURE, "--out", "running"],
      () =>
        '--out running: holds "train_state.safetensors", which this command does not write; it writes only into a new or empty directory or one holding a report: choose another directory',
    ],
    [
      "report through a linked figures/",
      ["report", "--model", FIXTURE, "--out", "R"],
      () => "--out R: R/figures is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link",
    ],
    [
      "export through a linked onnx/",
      ["export", "--format", "hf-gpt2", "--model", FIXTURE, "--out", "E", "--overwrite"],
      () => "--out E: E/onnx is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link",
    ],
    [
      "a grid value climbing out of --out",
      ["sweep", "overfit", "--out", "S", "--grid", "save-model=../../../outside/x.safetensors"],
      () => climbs("../../../outside/x.safetensors", "--grid"),
    ],
    [
      "--save-model=VALUE climbing out of a sweep's run folder",
      ["sweep", "overfit", "--out", "S", "--", "--save-model=../../outside/x.safetensors"],
      () => climbs("../../outside/x.safetensors"),
    ],
    [
      "an absolute --save-model in a sweep",
      ["sweep", "overfit", "--out", "S", "--", "--save-model", "/tmp/x.safetensors"],
      () => climbs("/tmp/x.safetensors"),
    ],
    [
      "--collect through a linked directory",
      ["sweep", "--collect", "linked-runs"],
      () => `--collect linked-runs: is a symbolic link (to ${at("runs")}); give the directory itself`,
    ],
    ["train --out /", ["train", "--out", "/"], () => system("/")],
    ["report --out /", ["report", "--model", FIXTURE, "--out", "/"], () => system("/")],
    ["train --out /etc", ["train", "--out", "/etc"], () => system("/etc")],
    [
      "--out the input text's directory",
      ["train", "--text", "story/a.txt", "--one-per-line", "--out", "story"],
      () => "--out story: is the directory of --text story/a.txt; a command never writes among its inputs: choose another directory",
    ],
    [
      "a lab build over a user's files",
      ["lab", "--build-only", "--out", "site"],
      () =>
        `--out site holds "notes.txt" beside a lab page build, which building would delete (it replaces the directory whole): move them away, or choose a new or empty directory (default results/lab)`,
    ],
    [
      "an earlier export replaced without --overwrite",
      ["export", "--format", "onnx", "--model", FIXTURE, "--out", "exported"],
      () => "--out exported: holds an export (model.onnx); pass --overwrite to replace it, or choose another directory",
    ],
    // silently mixed results
    [
      "--resume on other kernels",
      ["train", "--updates", "4", "--out", "run", "--resume", "--kernels", "onnxruntime"],
      () =>
        /^cannot resume from run\/train_state\.safetensors: it was trained on backend wasm, kernels tfjs, this run is on backend wasm, kernels onnxruntime; resume with --kernels tfjs \(/,
    ],
    // another backend (--backend cpu) is refused the same way: tests/lab/state_file.test.ts (starting it here would leave this process on it)
    [
      "an export whose forward overflows",
      ["export", "--format", "hf-gpt2", "--model", "overflow.safetensors", "--out", "over"],
      () => /^model file overflow\.safetensors: the weights are finite but the model's forward is not \(.*; nothing exported$/,
    ],
    [
      "a sealed export changed after it was sealed",
      ["evaluate", "--model", "sealed", "--convention", "tinylab"],
      () =>
        /^sealed\/tokenizer\.json: has changed since tinylab export sealed the directory \(sha256 [0-9a-f]{64}, tinylab_manifest\.json says [0-9a-f]{64}\)$/,
    ],
    // runaways, bounded (their time and memory: tests/cli/bounds.test.ts)
    [
      "a 1.2 GB tensor the config does not call for",
      ["evaluate", "--model", "bloated.safetensors"],
      () => 'model file bloated.safetensors: unexpected tensor "extra" for this config',
    ],
    [
      "train --batch-rows 1000000",
      ["train", "--batch-rows", "1000000"],
      () =>
        "--batch-rows 1000000 at --context 8 needs an estimated 31 GiB to train (0.03 MiB a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 96976 or fewer",
    ],
    [
      "evaluate --batch-rows 1000000",
      ["evaluate", "--model", FIXTURE, "--batch-rows", "1000000"],
      () =>
        "--batch-rows 1000000 at the model's context 8 and vocabulary 266 needs an estimated 20 GiB to score (0.02 MiB a row), more than the 3.00 GiB limit (MAX_SCORING_BYTES); give --batch-rows 152519 or fewer",
    ],
    [
      "--context 4096",
      ["train", "--text", "t.txt", "--out", "context", "--context", "4096"],
      () =>
        "--batch-rows 8 at --context 4096 needs an estimated 13 GiB to train (1.65 GiB a row; attention scores grow with the context squared: 2 layers × 4 heads × 4096² a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 1 or fewer, or lower --context",
    ],
    [
      "--tokenizer byte --vocab 1048576",
      ["train", "--text", "t.txt", "--out", "vocab", "--tokenizer", "byte", "--vocab", "1048576"],
      () =>
        "model config has 134630912 parameters, more than the limit 134217728 (2^27) (--vocab 1048576, --context 128, --layers 2, --d-model 128, --d-ff 512)",
    ],
    [
      "--vocab 1048576 --d-model 64",
      ["train", "--text", "t.txt", "--out", "vocab", "--tokenizer", "byte", "--vocab", "1048576", "--d-model", "64"],
      () =>
        "--batch-rows 8 at --context 128 needs an estimated 13 GiB to train (1.50 GiB a row; the logits grow with the vocabulary: 128 positions × --vocab 1048576 a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 1 or fewer, or lower --vocab",
    ],
    [
      "sample --max-tokens 1000000000",
      ["sample", "--model", FIXTURE, "--prompt", "the", "--max-tokens", "1000000000"],
      () => "--max-tokens must be an integer in [1, 4096] (MAX_NEW_TOKENS: the longest context a model has), got 1000000000",
    ],
    [
      "sample --samples 1000000000",
      ["sample", "--model", FIXTURE, "--prompt", "the", "--temperature", "1", "--samples", "1000000000"],
      () => "--samples must be an integer in [1, 1000] (MAX_SAMPLES), got 1000000000",
    ],
    [
      "train --updates 2^53 + 1",
      ["train", "--updates", "9007199254740993"],
      () => "--updates must be a positive integer of at most 2^53 − 1 in size, got 9007199254740993",
    ],
    [
      "an empty grid value",
      ["sweep", "overfit", "--out", "S", "--grid", "lr=0.01,,0.02"],
      () => '--grid: lr: value 2 of "0.01,,0.02" is empty; give each value once, separated by single commas',
    ],
  ];

  it.each(CASES)("%s: refused in one line naming the option or file, nothing written, moved or left behind", async (_, args, expected) => {
    const before = tree(root);
    const r = await tinylabHere(args, { cwd: root });
    expect(r.code, r.output).toBe(1);
    expect(r.stdout).toBe("");
    const [line, ...rest] = r.stderr.trimEnd().split("\n");
    expect(rest, r.stderr).toEqual([]);
    const want = expected();
    if (typeof want === "string") expect(line).toBe(`tinylab: error: ${want}`);
    else expect(line.replace(/^tinylab: error: /, "")).toMatch(want);
    expect(tree(root)).toEqual(before);
  });
});
