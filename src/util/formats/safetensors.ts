// Spec-exact safetensors encoder and strict decoder (https://github.com/huggingface/safetensors).
// Not a checkpoint format: it stores named tensors and a string map; what they mean lives elsewhere.
import { joinChunks } from "../primitives/bytes.ts";

/** Element type of each dtype. F16/BF16 have no JS array type and are carried as raw bit patterns. */
interface ArrayOf {
  F64: Float64Array;
  F32: Float32Array;
  I64: BigInt64Array;
  I32: Int32Array;
  I16: Int16Array;
  I8: Int8Array;
  U64: BigUint64Array;
  U32: Uint32Array;
  U16: Uint16Array;
  U8: Uint8Array;
  BF16: Uint16Array;
  F16: Uint16Array;
  BOOL: Uint8Array;
}
export type DType = keyof ArrayOf;

/**
 * One tensor: dtype, row-major shape ([] is a scalar), and a typed array of product(shape) elements.
 * Discriminated on `dtype`, so narrowing the dtype narrows `data`.
 */
export type TensorEntry = { [D in DType]: { dtype: D; shape: number[]; data: ArrayOf[D] } }[DType];

/** A decoded file: tensors by name, and the `__metadata__` string map ({} when absent). */
export interface SafetensorsContents {
  tensors: Record<string, TensorEntry>;
  metadata: Record<string, string>;
}

/** Every refusal of the encoder and decoder: the message names the problem and the tensor. */
export class SafetensorsError extends Error {
  override name = "SafetensorsError";
}

type ArrayCtor = { new (buffer: ArrayBuffer): ArrayOf[DType]; BYTES_PER_ELEMENT: number };
// `rank` is the position in the reference's Dtype enum ("increasing alignment order"); the
// reference writer lays tensors out by rank descending, then name, and so do we.
const DTYPES: Record<DType, { ctor: ArrayCtor; rank: number }> = {
  BOOL: { ctor: Uint8Array, rank: 0 },
  U8: { ctor: Uint8Array, rank: 1 },
  I8: { ctor: Int8Array, rank: 2 },
  I16: { ctor: Int16Array, rank: 5 },
  U16: { ctor: Uint16Array, rank: 6 },
  F16: { ctor: Uint16Array, rank: 7 },
  BF16: { ctor: Uint16Array, rank: 8 },
  I32: { ctor: Int32Array, rank: 9 },
  U32: { ctor: Uint32Array, rank: 10 },
  F32: { ctor: Float32Array, rank: 11 },
  F64: { ctor: Float64Array, rank: 12 },
  I64: { ctor: BigInt64Array, rank: 13 },
  U64: { ctor: BigUint64Array, rank: 14 },
};

/** The reference implementation's limit: larger headers are refused before being read. */
export const MAX_HEADER_BYTES = 100_000_000;
const INFO_KEYS = ["dtype", "shape", "data_offsets"];
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LONE_SURROGATE = /\p{Cs}/u; // JSON can escape these but serde_json (the reference) rejects them

const fail = (msg: string): never => {
  throw new SafetensorsError(msg);
};
const isDType = (d: unknown): d is DType => typeof d === "string" && Object.hasOwn(DTYPES, d);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isDims = (v: unknown): v is number[] => Array.isArray(v) && v.every((d) => Number.isSafeInteger(d) && d >= 0);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
/** Rust String order: by UTF-8 bytes, then length (Buffer.compare's order, without Node's Buffer so the core runs in a browser). */
function byteOrder(a: string, b: string): number {
  const x = utf8(a),
    y = utf8(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** Reverses each element's bytes in place: the file is little-endian whatever the host is. */
function toLittleEndian<T extends Uint8Array>(bytes: T, size: number): T {
  if (LITTLE_ENDIAN_HOST || size === 1) return bytes;
  for (let i = 0; i < bytes.length; i += size) bytes.subarray(i, i + size).reverse();
  return bytes;
}

function checkText(s: string, what: string): void {
  if (LONE_SURROGATE.test(s)) fail(`${what} ${JSON.stringify(s)} contains a lone UTF-16 surrogate`);
}

/**
 * Serializes tensors as the reference writer does: `__metadata__` first (keys sorted, omitted when
 * empty), then tensors ordered by dtype alignment descending and then name (UTF-8 byte order), with
 * header entries and data in that same order, compact JSON padded with spaces to a multiple of 8.
 */
export function encodeSafetensors(tensors: Record<string, TensorEntry>, metadata: Record<string, string> = {}): Uint8Array {
  return joinChunks(safetensorsChunks(tensors, metadata));
}

/**
 * encodeSafetensors's bytes as chunks: the length prefix and header, then each tensor's data in file order, as
 * views of the tensors' own arrays on a little-endian host (a byte-swapped copy of one tensor at a time elsewhere),
 * so a writer never holds the whole file. Everything is checked before the first chunk; the arrays must not change
 * until the last chunk is consumed.
 */
export function safetensorsChunks(tensors: Record<string, TensorEntry>, metadata: Record<string, string> = {}): Iterable<Uint8Array> {
  const parts: string[] = [];
  const metaKeys = Object.keys(metadata).sort(byteOrder);
  if (metaKeys.length > 0) {
    const fields = metaKeys.map((k) => {
      const v = metadata[k];
      if (typeof v !== "string") fail(`metadata value for ${JSON.stringify(k)} is not a string`);
      checkText(k, "metadata key");
      checkText(v, "metadata value");
      return `${JSON.stringify(k)}:${JSON.stringify(v)}`;
    });
    parts.push(`"__metadata__":{${fields.join(",")}}`);
  }
  for (const [name, t] of Object.entries(tensors)) {
    const where = `tensor ${JSON.stringify(name)}`;
    if (name === "__metadata__") fail(`${where}: the name is reserved for the metadata map`);
    checkText(name, "tensor name");
    if (!isDType(t.dtype)) fail(`${where}: unknown dtype ${JSON.stringify(t.dtype)}`);
    const { ctor } = DTYPES[t.dtype];
    if (!(t.data instanceof ctor)) fail(`${where}: dtype ${t.dtype} needs a ${ctor.name}`);
    if (!isDims(t.shape)) fail(`${where}: shape must be an array of non-negative integers`);
    const count = t.shape.reduce((a, d) => a * d, 1);
    if (count !== t.data.length) fail(`${where}: shape [${t.shape}] has ${count} elements, data has ${t.data.length}`);
  }
  const names = Object.keys(tensors).sort((a, b) => DTYPES[tensors[b].dtype].rank - DTYPES[tensors[a].dtype].rank || byteOrder(a, b));
  let offset = 0;
  for (const name of names) {
    const t = tensors[name];
    const end = offset + t.data.byteLength;
    parts.push(`${JSON.stringify(name)}:{"dtype":"${t.dtype}","shape":[${t.shape}],"data_offsets":[${offset},${end}]}`);
    offset = end;
  }
  const json = utf8(`{${parts.join(",")}}`);
  const headerLen = Math.ceil(json.length / 8) * 8; // so the data section starts 8-byte aligned
  const head = new Uint8Array(8 + headerLen);
  new DataView(head.buffer).setBigUint64(0, BigInt(headerLen), true);
  head.set(json, 8);
  head.fill(0x20, 8 + json.length, 8 + headerLen);
  return (function* () {
    yield head;
    for (const name of names) {
      const { data } = tensors[name];
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      yield LITTLE_ENDIAN_HOST || data.BYTES_PER_ELEMENT === 1 ? bytes : toLittleEndian(bytes.slice(), data.BYTES_PER_ELEMENT);
    }
  })();
}

/** Validates the 8-byte prefix against the file size; returns the header length N. */
export function headerLength(prefix: Uint8Array, fileSize: number): number {
  if (fileSize < 8) fail(`file is ${fileSize} bytes, shorter than the 8-byte header length prefix`);
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES)) fail(`header length ${n} exceeds the ${MAX_HEADER_BYTES}-byte limit`);
  if (8n + n > BigInt(fileSize)) fail(`header length ${n} runs past the end of the ${fileSize}-byte file`);
  return Number(n);
}

const NUMBER = /-?[0-9.eE+-]+/y;

/**
 * What JSON.parse lets through but the format forbids: duplicate keys (last-wins in JSON.parse)
 * and numbers written other than as plain non-negative integers (serde_json refuses `1.0` for a
 * usize). Assumes `text` already parsed as JSON. Iterative, so deep nesting cannot overflow.
 */
function lexicalProblem(text: string): string | undefined {
  const objects: Array<Set<string> | null> = []; // one per open bracket; null for arrays
  let expectKey = false;
  let entry = ""; // the top-level key being read, to name it in messages
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const keys = objects[objects.length - 1];
      if (keys && expectKey) {
        const raw = text.slice(i, j + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const inside = objects.length === 1 ? "" : ` in entry ${JSON.stringify(entry)}`;
        if (keys.has(key)) return `duplicate key ${JSON.stringify(key)}${inside}`;
        keys.add(key);
        if (objects.length === 1) entry = key;
        expectKey = false;
      }
      i = j;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0] ?? c;
      if (!/^(0|[1-9][0-9]*)$/.test(token)) {
        return `number ${token} in entry ${JSON.stringify(entry)} is not a non-negative integer`;
      }
      i += token.length - 1;
    } else if (c === "{") {
      objects.push(new Set());
      expectKey = true;
    } else if (c === "[") objects.push(null);
    else if (c === "}" || c === "]") {
      objects.pop();
      expectKey = false;
    } else if (c === ",") expectKey = objects[objects.length - 1] != null;
  }
  return undefined;
}

type Info = { name: string; dtype: DType; shape: number[]; begin: number; end: number };

/** Checks one header entry against the data section length; returns it typed. */
function tensorInfo(name: string, value: unknown, dataLen: number): Info {
  const where = `tensor ${JSON.stringify(name)}`;
  if (!isRecord(value)) return fail(`${where}: entry is not an object`);
  checkText(name, "tensor name");
  const missing = INFO_KEYS.find((k) => !Object.hasOwn(value, k));
  if (missing !== undefined) fail(`${where}: missing field ${JSON.stringify(missing)}`);
  const extra = Object.keys(value).find((k) => !INFO_KEYS.includes(k));
  if (extra !== undefined) fail(`${where}: unexpected field ${JSON.stringify(extra)}`);
  const { dtype, shape, data_offsets: offsets } = value;
  if (!isDType(dtype)) return fail(`${where}: unknown dtype ${JSON.stringify(dtype)}`);
  if (!isDims(shape)) return fail(`${where}: shape ${JSON.stringify(shape)} is not an array of non-negative integers`);
  if (!isDims(offsets) || offsets.length !== 2) {
    return fail(`${where}: data_offsets ${JSON.stringify(offsets)} is not two non-negative integers`);
  }
  const [begin, end] = offsets;
  if (end < begin) fail(`${where}: data_offsets [${begin}, ${end}] end before they begin`);
  if (end > dataLen) fail(`${where}: data_offsets [${begin}, ${end}] out of range of the ${dataLen}-byte data section`);
  // Stop multiplying past 2^53: products below it are exact, and beyond it nothing can match.
  let need = shape.includes(0) ? 0 : DTYPES[dtype].ctor.BYTES_PER_ELEMENT;
  for (const d of shape) if (need <= Number.MAX_SAFE_INTEGER) need *= d;
  if (need !== end - begin) {
    const needs = Number.isSafeInteger(need) ? `${need}` : "more than 2^53";
    fail(`${where}: dtype ${dtype} with shape [${shape}] needs ${needs} bytes, data_offsets span ${end - begin}`);
  }
  return { name, dtype, shape, begin, end };
}

/** A header's validated tensor layout and metadata, as decodeSafetensors and checkHeader see it. */
interface Header {
  n: number;
  infos: Info[];
  metadata: Record<string, unknown>;
}

/**
 * Validates the header (the first 8 + N bytes of a file of `fileSize` bytes) without the data section: a reader
 * calls it before reading the rest, so a file whose header does not describe exactly its size (trailing bytes,
 * data past the end) is refused before its body is read.
 */
export function checkHeader(head: Uint8Array, fileSize: number): HeaderLayout {
  const { infos, metadata } = parseHeader(head, fileSize);
  // own properties (fromEntries), so a tensor or key named "__proto__" stays one
  return {
    tensors: Object.fromEntries(infos.map((t) => [t.name, { dtype: t.dtype, shape: t.shape }])),
    metadata: Object.fromEntries(Object.entries(metadata)) as Record<string, string>,
  };
}

/** What a header declares, without the data: each tensor's dtype and shape, and the metadata. */
export interface HeaderLayout {
  tensors: Record<string, { dtype: DType; shape: number[] }>;
  metadata: Record<string, string>;
}

function parseHeader(bytes: Uint8Array, fileSize: number): Header {
  const n = headerLength(bytes, fileSize);
  if (bytes.length < 8 + n) fail(`header of ${n} bytes, given ${bytes.length - 8}`);
  const headerBytes = bytes.subarray(8, 8 + n);
  if (headerBytes[0] !== 0x7b) fail("header does not start with '{'");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(headerBytes);
  } catch {
    return fail("header is not valid UTF-8");
  }
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (err) {
    return fail(`header is not valid JSON: ${(err as Error).message}`);
  }
  if (!isRecord(header)) return fail("header is not a JSON object");
  const lexical = lexicalProblem(text);
  if (lexical !== undefined) fail(`header: ${lexical}`);

  const dataLen = fileSize - 8 - n;
  const metadata = header.__metadata__ ?? {}; // null allowed: the reference reads it as an absent Option
  if (!isRecord(metadata)) return fail("__metadata__ is not an object");
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== "string") return fail(`__metadata__ value for ${JSON.stringify(k)} is not a string`);
    checkText(k, "__metadata__ key");
    checkText(v, "__metadata__ value");
  }
  const infos = Object.entries(header)
    .filter(([name]) => name !== "__metadata__")
    .map(([name, value]) => tensorInfo(name, value, dataLen))
    .sort((a, b) => a.begin - b.begin || a.end - b.end);
  // Tensors must tile [0, dataLen) exactly: the reference's guarantee that memory never exceeds the file.
  let covered = 0;
  let previous = "";
  for (const t of infos) {
    const where = `tensor ${JSON.stringify(t.name)}`;
    const span = `data_offsets [${t.begin}, ${t.end}]`;
    if (t.begin < covered) fail(`${where}: ${span} overlap tensor ${JSON.stringify(previous)}`);
    if (t.begin > covered) fail(`${where}: hole of ${t.begin - covered} unclaimed bytes before it at offset ${covered}`);
    covered = t.end;
    previous = t.name;
  }
  if (covered < dataLen) fail(`${dataLen - covered} trailing bytes after the last tensor's data`);
  return { n, infos, metadata };
}

/**
 * Parses a whole safetensors file. Everything is validated before any tensor is allocated, and
 * every tensor is copied into its own aligned typed array (file offsets need not be aligned).
 * Throws SafetensorsError on any violation of the format.
 */
export function decodeSafetensors(bytes: Uint8Array): SafetensorsContents {
  const { n, infos, metadata } = parseHeader(bytes, bytes.length);
  const data = bytes.subarray(8 + n);
  const entries = infos.map((t): [string, TensorEntry] => {
    const { ctor } = DTYPES[t.dtype];
    const copy = toLittleEndian(Uint8Array.prototype.slice.call(data, t.begin, t.end), ctor.BYTES_PER_ELEMENT); // fresh buffer: aligned
    return [t.name, { dtype: t.dtype, shape: t.shape, data: new ctor(copy.buffer) } as TensorEntry];
  });
  // fromEntries defines own properties, so a tensor named "__proto__" stays a tensor.
  const meta = Object.fromEntries(Object.entries(metadata)) as Record<string, string>;
  return { tensors: Object.fromEntries(entries), metadata: meta };
}
