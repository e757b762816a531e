// Contracts of the safetensors codec: bit-exact round trips, byte-exact agreement with hand-built and
// published reference files, a SafetensorsError for every malformed input, and a numpy reader's view.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeSafetensors, encodeSafetensors, SafetensorsError, type TensorEntry } from "../../../src/util/formats/safetensors.ts";
import { readSafetensorsFile, writeSafetensorsFile } from "../../../src/node/disk.ts";
import { missingPython, PYTHON, REQUIRE_PYTHON } from "../../tools/models.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-safetensors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytesOf = (a: ArrayBufferView): number[] => [...new Uint8Array(a.buffer, a.byteOffset, a.byteLength)];

/** A file assembled by hand, not by the encoder: u64 LE length, header padded with spaces, data. */
function assemble(header: string, data: ArrayLike<number> = [], pad = true): Uint8Array {
  let text = Buffer.from(header, "utf8");
  if (pad) text = Buffer.concat([text, Buffer.alloc((8 - (text.length % 8)) % 8, " ")]);
  const out = new Uint8Array(8 + text.length + data.length);
  for (let i = 0, n = text.length; i < 8; i++, n = Math.floor(n / 256)) out[i] = n % 256;
  out.set(text, 8);
  out.set(Array.from(data), 8 + text.length);
  return out;
}

/** Little-endian bytes written field by field through DataView, independent of the host's order. */
function le(kind: "i64" | "f32" | "i32", values: Array<number | bigint>): number[] {
  const size = kind === "i64" ? 8 : 4;
  const view = new DataView(new ArrayBuffer(size * values.length));
  values.forEach((v, i) => {
    if (kind === "i64") view.setBigInt64(i * size, v as bigint, true);
    else if (kind === "f32") view.setFloat32(i * size, v as number, true);
    else view.setInt32(i * size, v as number, true);
  });
  return bytesOf(view);
}

/** Decodes and returns the refusal, failing the test if it was accepted or not a SafetensorsError. */
function refusal(bytes: Uint8Array): string {
  try {
    decodeSafetensors(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(SafetensorsError);
    return (err as Error).message;
  }
  throw new Error("malformed file was accepted");
}

// Header in the reference writer's order (alignment descending: I64, F32, I32, U8), metadata first.
const HAND_HEADER =
  '{"__metadata__":{"format":"pt","step":"7"},' +
  '"pos":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},' +
  '"w":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]},' +
  '"b":{"dtype":"I32","shape":[],"data_offsets":[32,36]},' +
  '"mask":{"dtype":"U8","shape":[3],"data_offsets":[36,39]}}';
const HAND_DATA = [...le("i64", [-5n, 2n ** 40n]), ...le("f32", [1.5, -2, 0.25, 3]), ...le("i32", [-7]), 1, 0, 255];
const HAND_TENSORS: Record<string, TensorEntry> = {
  w: { dtype: "F32", shape: [2, 2], data: new Float32Array([1.5, -2, 0.25, 3]) },
  mask: { dtype: "U8", shape: [3], data: new Uint8Array([1, 0, 255]) },
  b: { dtype: "I32", shape: [], data: new Int32Array([-7]) },
  pos: { dtype: "I64", shape: [2], data: new BigInt64Array([-5n, 2n ** 40n]) },
};

describe("agreement with hand-built and published files", () => {
  it("decodes a hand-built file, and the encoder reproduces its bytes exactly", () => {
    const file = assemble(HAND_HEADER, HAND_DATA);
    const { tensors, metadata } = decodeSafetensors(file);
    expect(tensors).toEqual(HAND_TENSORS);
    expect(metadata).toEqual({ format: "pt", step: "7" });
    expect([...encodeSafetensors(HAND_TENSORS, { step: "7", format: "pt" })]).toEqual([...file]);
  });

  it("accepts any header order, an unpadded header and a misaligned input view", () => {
    const byName =
      '{"b":{"dtype":"I32","shape":[],"data_offsets":[32,36]},' +
      '"mask":{"dtype":"U8","shape":[3],"data_offsets":[36,39]},' +
      '"pos":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},' +
      '"w":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]}}';
    const file = assemble(byName, HAND_DATA, false);
    expect((file.length - HAND_DATA.length) % 8).not.toBe(0); // data really starts unaligned
    const shifted = new Uint8Array(file.length + 3);
    shifted.set(file, 3);
    const { tensors } = decodeSafetensors(shifted.subarray(3));
    expect(tensors).toEqual(HAND_TENSORS);
    for (const t of Object.values(tensors)) expect(t.data.byteOffset % t.data.BYTES_PER_ELEMENT).toBe(0);
  });

  // Byte vectors published in the reference implementation's tests (safetensors/src/tensor.rs:
  // test_serialization, test_serialization_forced_alignement, test_empty).
  const f32Zero2Five = [0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64];
  const zero2five = (shape: number[]): TensorEntry => ({ dtype: "F32", shape, data: new Float32Array([0, 1, 2, 3, 4, 5]) });
  // the published byte vectors kept in rows (one number a line would hide them):
  // prettier-ignore
  const published: Array<[string, Record<string, TensorEntry>, Record<string, string>, number[]]> = [
    ["attn.0 [1,2,3]", { "attn.0": zero2five([1, 2, 3]) }, {}, [
      64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100, 116, 121, 112, 101, 34, 58,
      34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97,
      95, 111, 102, 102, 115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, ...f32Zero2Five]],
    ["attn0 [1,1,2,3], padded", { attn0: zero2five([1, 1, 2, 3]) }, {}, [
      72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58, 123, 34, 100, 116, 121, 112, 101, 34, 58, 34,
      70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58, 91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116,
      97, 95, 111, 102, 102, 115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32, 32, 32,
      ...f32Zero2Five]],
    ["empty", {}, {}, [8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32]],
    ["empty with metadata", {}, { framework: "pt" }, [
      40, 0, 0, 0, 0, 0, 0, 0, 123, 34, 95, 95, 109, 101, 116, 97, 100, 97, 116, 97, 95, 95, 34, 58, 123, 34, 102, 114,
      97, 109, 101, 119, 111, 114, 107, 34, 58, 34, 112, 116, 34, 125, 125, 32, 32, 32, 32, 32]],
  ];
  it.each(published)("matches the reference's published bytes: %s", (_, tensors, metadata, bytes) => {
    expect([...encodeSafetensors(tensors, metadata)]).toEqual(bytes);
    expect(decodeSafetensors(new Uint8Array(bytes))).toEqual({ tensors, metadata });
  });
});

describe("round trip", () => {
  const f32 = new Uint32Array([
    0x7fc00001,
    0xffc12345,
    0x7f800001, // NaNs with payloads, one signalling: bits must survive
    0x80000000,
    0x00000001,
    0x007fffff, // -0, smallest and largest subnormal
    0x7f800000,
    0xff800000,
    0x3f800000,
  ]);
  const f64 = new BigUint64Array([0x7ff8000000000001n, 0xfff0000000000001n, 1n << 63n, 1n, 0xfffffffffffffn, 0x7ff0000000000000n]);
  const all: Record<string, TensorEntry> = {
    f32: { dtype: "F32", shape: [3, 3], data: new Float32Array(f32.buffer) },
    f64: { dtype: "F64", shape: [2, 3], data: new Float64Array(f64.buffer) },
    f16: { dtype: "F16", shape: [3], data: new Uint16Array([0x7e01, 0x8000, 0x0001]) },
    bf16: { dtype: "BF16", shape: [3], data: new Uint16Array([0x7fc1, 0x8000, 0x0001]) },
    i64: { dtype: "I64", shape: [4], data: new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n]) },
    u64: { dtype: "U64", shape: [2], data: new BigUint64Array([0n, 2n ** 64n - 1n]) },
    i32: { dtype: "I32", shape: [2, 2], data: new Int32Array([-(2 ** 31), 2 ** 31 - 1, -1, 0]) },
    u32: { dtype: "U32", shape: [2], data: new Uint32Array([0, 2 ** 32 - 1]) },
    i16: { dtype: "I16", shape: [2], data: new Int16Array([-32768, 32767]) },
    u16: { dtype: "U16", shape: [2], data: new Uint16Array([0, 65535]) },
    i8: { dtype: "I8", shape: [2], data: new Int8Array([-128, 127]) },
    u8: { dtype: "U8", shape: [1, 2], data: new Uint8Array([0, 255]) },
    bool: { dtype: "BOOL", shape: [3], data: new Uint8Array([0, 1, 1]) },
    scalar: { dtype: "F32", shape: [], data: new Float32Array([-0]) },
    empty: { dtype: "F64", shape: [0, 3], data: new Float64Array(0) },
  };
  // A literal `__proto__:` would set the prototype; define it as a real key, as a file can hold.
  const proto: TensorEntry = { dtype: "I32", shape: [2, 0], data: new Int32Array(0) };
  Object.defineProperty(all, "__proto__", { value: proto, enumerable: true });
  const metadata = { format: "tinylab", "clé ✓": 'välue\n"quoted"\u0001', "": "" };

  it("keeps every dtype bit-identical (NaN payloads, -0, subnormals) and the metadata equal", () => {
    const back = decodeSafetensors(encodeSafetensors(all, metadata));
    expect(Object.keys(back.tensors).sort()).toEqual(Object.keys(all).sort());
    for (const [name, t] of Object.entries(all)) {
      const got = back.tensors[name];
      expect({ name, dtype: got.dtype, shape: got.shape }).toEqual({ name, dtype: t.dtype, shape: t.shape });
      expect(got.data.constructor).toBe(t.data.constructor);
      expect(bytesOf(got.data)).toEqual(bytesOf(t.data));
    }
    expect(back.metadata).toEqual(metadata);
  });

  it("lays tensors out in the reference order: dtype alignment descending, then name", () => {
    const file = encodeSafetensors(all);
    const n = Number(new DataView(file.buffer).getBigUint64(0, true));
    expect(n % 8).toBe(0);
    const header = JSON.parse(Buffer.from(file.subarray(8, 8 + n)).toString("utf8"));
    expect(Object.keys(header)).toEqual([
      "u64",
      "i64",
      "empty",
      "f64",
      "f32",
      "scalar",
      "u32",
      "__proto__",
      "i32",
      "bf16",
      "f16",
      "u16",
      "i16",
      "i8",
      "u8",
      "bool",
    ]);
    const offsets = Object.values(header).map((e) => (e as { data_offsets: number[] }).data_offsets);
    offsets.forEach(([begin], i) => expect(begin).toBe(i === 0 ? 0 : offsets[i - 1][1]));
    expect(offsets[offsets.length - 1][1]).toBe(file.length - 8 - n);
  });

  it("writes atomically and reads back from disk", () => {
    const path = join(dir, "roundtrip.safetensors");
    writeSafetensorsFile(path, HAND_TENSORS, { step: "7", format: "pt" });
    expect(readSafetensorsFile(path)).toEqual({ tensors: HAND_TENSORS, metadata: { format: "pt", step: "7" } });
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("refusals", () => {
  const valid = assemble(HAND_HEADER, HAND_DATA);
  const headerEnd = valid.length - HAND_DATA.length;
  const withLength = (n: bigint, rest = valid.subarray(8)): Uint8Array => {
    const out = new Uint8Array(8 + rest.length);
    new DataView(out.buffer).setBigUint64(0, n, true);
    out.set(rest, 8);
    return out;
  };
  const entry = (name: string, dtype: string, shape: string, offsets: string) =>
    `"${name}":{"dtype":"${dtype}","shape":${shape},"data_offsets":${offsets}}`;
  const oneTensor = (dtype: string, shape: string, offsets: string, data: number) =>
    assemble(`{${entry("t", dtype, shape, offsets)}}`, new Array(data).fill(0));

  it.each([
    ["inside the length prefix", [0, 3, 7], /shorter than the 8-byte header length prefix/],
    ["inside the header", [8, 20, headerEnd - 1], /header length \d+ runs past the end of the \d+-byte file/],
    ["inside the data", [headerEnd, headerEnd + 5, valid.length - 1], /out of range of the \d+-byte data section/],
  ])("refuses a file truncated %s", (_, cuts, message) => {
    for (const cut of cuts as number[]) expect(refusal(valid.subarray(0, cut))).toMatch(message as RegExp);
  });

  it.each([
    ["2^62, past the file", 2n ** 62n, /header length 4611686018427387904 exceeds the 100000000-byte limit/],
    ["2^64 - 1", 2n ** 64n - 1n, /exceeds the 100000000-byte limit/],
    ["just over 100 MB", 100_000_001n, /header length 100000001 exceeds the 100000000-byte limit/],
    ["exactly 100 MB, past the file", 100_000_000n, /runs past the end/],
    ["past a small file", 1000n, /header length 1000 runs past the end of the 1007-byte file/],
  ])("refuses a header length of %s before reading it", (_, n, message) => {
    expect(refusal(withLength(n, new Uint8Array(999)))).toMatch(message);
  });

  const B = (s: string) => Array.from(Buffer.from(s, "latin1"));
  it.each<[string, Uint8Array, RegExp]>([
    ["header not JSON", assemble('{"t":{"dtype":'), /header is not valid JSON/],
    ["JSON not starting with '{'", assemble('[{"t":1}]'), /header does not start with '\{'/],
    ["leading whitespace", assemble(" {}"), /does not start with '\{'/],
    ["UTF-8 byte order mark", assemble("\ufeff{}"), /does not start with '\{'/],
    ["zero-length header", withLength(0n, new Uint8Array(0)), /does not start with '\{'/],
    ["invalid UTF-8", withLength(8n, new Uint8Array([...B('{"\xff":1}'), 32])), /header is not valid UTF-8/],
    [
      "overlapping offsets",
      assemble(`{${entry("a", "F32", "[2]", "[0,8]")},${entry("b", "F32", "[2]", "[4,12]")}}`, new Array(12).fill(0)),
      /tensor "b": data_offsets \[4, 12\] overlap tensor "a"/,
    ],
    ["offsets out of range", oneTensor("F32", "[2]", "[0,8]", 4), /tensor "t": data_offsets \[0, 8\] out of range/],
    [
      "a hole between tensors",
      assemble(`{${entry("a", "F32", "[1]", "[0,4]")},${entry("b", "F32", "[1]", "[8,12]")}}`, new Array(12).fill(0)),
      /tensor "b": hole of 4 unclaimed bytes before it at offset 4/,
    ],
    ["a first tensor not at 0", oneTensor("F32", "[1]", "[4,8]", 8), /tensor "t": hole of 4 .* at offset 0/],
    ["trailing bytes", oneTensor("F32", "[1]", "[0,4]", 6), /2 trailing bytes after the last tensor/],
    ["data but no tensors", assemble("{}", [1, 2, 3]), /3 trailing bytes/],
    [
      "dtype x shape mismatch",
      oneTensor("F32", "[3]", "[0,8]", 8),
      /tensor "t": dtype F32 with shape \[3\] needs 12 bytes, data_offsets span 8/,
    ],
    [
      "overflowing shape",
      oneTensor("F64", "[4503599627370496,4503599627370496]", "[0,8]", 8),
      /tensor "t": dtype F64 .* needs more than 2\^53 bytes/,
    ],
    ["end before begin", oneTensor("U8", "[0]", "[4,0]", 4), /tensor "t": data_offsets \[4, 0\] end before they begin/],
    ["unknown dtype", oneTensor("F128", "[1]", "[0,16]", 16), /tensor "t": unknown dtype "F128"/],
    ["inherited name as dtype", oneTensor("toString", "[1]", "[0,1]", 1), /unknown dtype "toString"/],
    ["shape not an array", oneTensor("F32", '"2"', "[0,8]", 8), /tensor "t": shape "2" is not an array/],
    ["negative dim", oneTensor("F32", "[-1]", "[0,0]", 0), /number -1 in entry "t" is not a non-negative integer/],
    ["fractional dim", oneTensor("F32", "[1.5]", "[0,4]", 4), /number 1.5 in entry "t"/],
    ["integer written as float", oneTensor("F32", "[2.0]", "[0,8]", 8), /number 2.0 in entry "t"/],
    ["one offset", oneTensor("F32", "[1]", "[0]", 4), /tensor "t": data_offsets \[0\] is not two non-negative integers/],
    ["offsets not numbers", oneTensor("F32", "[1]", '["0","4"]', 4), /data_offsets \["0","4"\] is not two/],
    [
      "duplicate tensor name",
      assemble(`{${entry("t", "U8", "[1]", "[0,1]")},${entry("t", "U8", "[1]", "[1,2]")}}`, [1, 2]),
      /duplicate key "t"/,
    ],
    [
      "duplicate field",
      assemble('{"t":{"dtype":"U8","dtype":"I8","shape":[1],"data_offsets":[0,1]}}', [1]),
      /duplicate key "dtype" in entry "t"/,
    ],
    ["missing field", assemble('{"t":{"dtype":"U8","shape":[1]}}', [1]), /tensor "t": missing field "data_offsets"/],
    [
      "unexpected field",
      assemble(`{"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"offsets":[0,1]}}`, [1]),
      /tensor "t": unexpected field "offsets"/,
    ],
    ["entry not an object", assemble('{"t":[1,2]}'), /tensor "t": entry is not an object/],
    ["metadata value not a string", assemble('{"__metadata__":{"epoch":3}}'), /__metadata__ value for "epoch" is not a string/],
    ["metadata not an object", assemble('{"__metadata__":["a"]}'), /__metadata__ is not an object/],
    ["lone surrogate name", assemble('{"\\ud800":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', [1]), /lone UTF-16 surrogate/],
  ])("refuses %s", (_, bytes, message) => {
    expect(refusal(bytes)).toMatch(message);
  });

  it("answers every truncation and every corrupted header byte with a SafetensorsError or a valid decode", () => {
    for (let cut = 0; cut < valid.length; cut++) refusal(valid.subarray(0, cut));
    for (let i = 0; i < headerEnd; i++) {
      for (const b of [0x00, 0x01, 0x20, 0x22, 0x2c, 0x30, 0x39, 0x5b, 0x7b, 0x7d, 0x80, 0xff, valid[i] ^ 1]) {
        const bad = valid.slice();
        bad[i] = b;
        try {
          decodeSafetensors(bad);
        } catch (err) {
          expect(err, `byte ${i} set to ${b}`).toBeInstanceOf(SafetensorsError);
        }
      }
    }
  });

  it("refuses to encode inconsistent tensors", () => {
    const enc = (t: unknown) => () => encodeSafetensors({ x: t as TensorEntry });
    expect(enc({ dtype: "F32", shape: [3], data: new Float32Array(2) })).toThrow(/"x": shape \[3\] has 3 elements, data has 2/);
    expect(enc({ dtype: "F32", shape: [2], data: new Float64Array(2) })).toThrow(/"x": dtype F32 needs a Float32Array/);
    expect(enc({ dtype: "F8", shape: [1], data: new Uint8Array(1) })).toThrow(/unknown dtype "F8"/);
    expect(enc({ dtype: "U8", shape: [-1], data: new Uint8Array(1) })).toThrow(/shape must be an array of non-negative/);
    const meta = { dtype: "U8", shape: [1], data: new Uint8Array(1) } as TensorEntry;
    expect(() => encodeSafetensors({ __metadata__: meta })).toThrow(/reserved/);
    expect(() => encodeSafetensors({ "\ud800": meta })).toThrow(/lone UTF-16 surrogate/);
    expect(() => encodeSafetensors({}, { k: 3 as unknown as string })).toThrow(/metadata value for "k" is not a string/);
  });

  it("names the file when reading refuses it", () => {
    const path = join(dir, "huge-header.safetensors");
    writeFileSync(path, withLength(2n ** 62n));
    expect(() => readSafetensorsFile(path)).toThrow(new RegExp(`${path}: header length .* exceeds`));
    writeFileSync(path, new Uint8Array(3));
    expect(() => readSafetensorsFile(path)).toThrow(/file is 3 bytes, shorter than the 8-byte/);
  });
});

describe("interop with an independent numpy reader (tools/read_safetensors.py)", () => {
  // the Python the interop tests use (Debian's in CI), not whichever python3 is first on PATH
  const noNumpy = missingPython(["numpy"]);

  it("prints the names, dtypes, shapes, values and metadata keys we wrote", (ctx) => {
    if (noNumpy && !REQUIRE_PYTHON) ctx.skip(noNumpy);
    expect(noNumpy).toBeUndefined(); // CI (TINYLAB_REQUIRE_PYTHON=1) fails here instead of skipping
    const path = join(dir, "interop.safetensors");
    const tensors: Record<string, TensorEntry> = {
      "blocks.0.attn.w": { dtype: "F32", shape: [2, 3], data: new Float32Array([0.1, -2.5, 3e-39, -0, 1e30, 7]) },
      "ln.eps": { dtype: "F64", shape: [], data: new Float64Array([1e-5]) },
      tokens: { dtype: "I64", shape: [3], data: new BigInt64Array([-3n, 2n ** 40n, 0n]) },
      step: { dtype: "I32", shape: [1], data: new Int32Array([-123456]) },
      mask: { dtype: "BOOL", shape: [2], data: new Uint8Array([1, 0]) },
      none: { dtype: "U8", shape: [0, 4], data: new Uint8Array(0) },
    };
    writeSafetensorsFile(path, tensors, { format: "tinylab", config: '{"nLayer":2}' });
    const script = resolve(import.meta.dirname, "../../../tools/read_safetensors.py");
    const run = spawnSync(PYTHON, [script, path], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const printed = Object.fromEntries(lines.slice(0, -1).map((l) => [l.name, l]));
    const asNumbers = (t: TensorEntry) =>
      Array.from(t.data as ArrayLike<number | bigint>, (v) => (t.dtype === "BOOL" ? v === 1 : Number(v)));
    for (const [name, t] of Object.entries(tensors)) {
      expect(printed[name]).toEqual({ name, dtype: t.dtype, shape: t.shape, head: asNumbers(t) });
    }
    expect(lines.length).toBe(Object.keys(tensors).length + 1);
    expect(lines[lines.length - 1]).toEqual({ metadata_keys: ["config", "format"] });
  });
});

describe("decoding a Node Buffer", () => {
  it("copies tensor data out of a Buffer (Buffer#slice would share memory and misalign)", () => {
    const bytes = encodeSafetensors({
      a: { dtype: "F32", shape: [3], data: Float32Array.of(1, 2, 3) },
      b: { dtype: "U8", shape: [1], data: Uint8Array.of(7) },
    });
    const buf = Buffer.concat([Buffer.from([0]), Buffer.from(bytes)]).subarray(1); // an odd offset inside a pooled buffer
    const out = decodeSafetensors(buf);
    expect([...(out.tensors.a.data as Float32Array)]).toEqual([1, 2, 3]);
    expect([...(out.tensors.b.data as Uint8Array)]).toEqual([7]);
  });
});
