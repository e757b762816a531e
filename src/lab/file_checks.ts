// How a tinylab safetensors file (a model file or a training state) is checked as it is read: its error, the
// integrity digest over tensors and metadata, the writer's header padding, its format and metadata fields parsed by
// schema, and the tensors each holds taken by name, shape and value rule. Not what the fields mean (model_metadata.ts,
// state_file.ts).
import { Sha256, sha256Hex } from "../util/primitives/sha256.ts";
import { decodeSafetensors, SafetensorsError, type SafetensorsContents, type TensorEntry } from "../util/formats/safetensors.ts";
import { parseStrictJson } from "../util/formats/json_strict.ts";
import { isFileError, parseJsonFile, type Schema } from "../util/formats/schema.ts";
import type { ParamArrays } from "../model/init.ts";

/** Every refusal of a model or training-state file whose safetensors layer is valid; names the file. */
export class ModelFileError extends Error {
  override name = "ModelFileError";
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A tensor's data bytes as the file stores them (little-endian). */
function fileOrderBytes(t: TensorEntry): Uint8Array {
  const { data } = t;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (LITTLE_ENDIAN_HOST || data.BYTES_PER_ELEMENT === 1) return bytes;
  const copy = bytes.slice();
  for (let i = 0; i < copy.length; i += data.BYTES_PER_ELEMENT) copy.subarray(i, i + data.BYTES_PER_ELEMENT).reverse();
  return copy;
}

/** The metadata key holding the digest. */
export const INTEGRITY = "integrity";

/**
 * The integrity digest of a tinylab file: sha256 (hex) over, for each tensor in name order (JavaScript's default
 * sort, UTF-16 code units; byte order for ASCII names), the line
 * `JSON.stringify(["tensor", name, dtype, shape])` + "\n" then its data bytes (little-endian, as stored),
 * then for each metadata entry except `integrity`, in key order, `JSON.stringify(["metadata", key, value])` + "\n".
 * It binds every name to its data, dtype and shape (swapped offsets change it) and covers the config,
 * tokenizer, provenance and format (an edited value changes it). Not a signature: anyone can recompute it.
 */
export function integrityDigest(tensors: Record<string, TensorEntry>, metadata: Record<string, string>): string {
  const h = new Sha256();
  for (const name of Object.keys(tensors).sort()) {
    const t = tensors[name];
    h.update(`${JSON.stringify(["tensor", name, t.dtype, t.shape])}\n`).update(fileOrderBytes(t));
  }
  for (const key of Object.keys(metadata).sort()) if (key !== INTEGRITY) h.update(`${JSON.stringify(["metadata", key, metadata[key]])}\n`);
  return h.digest();
}

/** `metadata` with its integrity digest over `tensors` added. */
export function signed<M extends Record<string, string>>(tensors: Record<string, TensorEntry>, metadata: M): M & { integrity: string } {
  return { ...metadata, [INTEGRITY]: integrityDigest(tensors, metadata) };
}

/** Refuse a file whose digest is absent or does not match its decoded tensors and metadata. */
export function checkIntegrity(contents: SafetensorsContents, where: string): void {
  const { metadata, tensors } = contents;
  if (!Object.hasOwn(metadata, INTEGRITY))
    throw new ModelFileError(`${where}: format "${metadata.format}" needs metadata "${INTEGRITY}", which is missing`);
  if (metadata[INTEGRITY] !== integrityDigest(tensors, metadata)) {
    throw new ModelFileError(
      `${where}: integrity digest does not match the file's tensors and metadata: it was changed after it was written`,
    );
  }
}

/** Decode checkpoint bytes, hashing the very bytes decoded; a safetensors-level failure names `path`. */
export function decodeCheckpoint(bytes: Uint8Array, path: string): { contents: SafetensorsContents; sha256: string } {
  let contents: SafetensorsContents;
  try {
    contents = decodeSafetensors(bytes);
  } catch (err) {
    if (err instanceof SafetensorsError) throw new SafetensorsError(`${path}: not a valid safetensors file: ${err.message}`);
    throw err;
  }
  checkPadding(bytes, path);
  return { contents, sha256: sha256Hex(bytes) };
}

/**
 * The writer pads the header with spaces only. JSON allows tabs and newlines there too, and the decoded
 * contents would hide such an edit (the digest with them), so refuse it: the file is not as written.
 */
function checkPadding(bytes: Uint8Array, path: string): void {
  let i = 8 + Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  while (bytes[i - 1] === 0x20) i--;
  if (bytes[i - 1] !== 0x7d) {
    throw new ModelFileError(
      `${path}: header byte ${i - 1} is 0x${bytes[i - 1].toString(16).padStart(2, "0")} after the JSON, where the writer pads with spaces only: the file was changed after it was written`,
    );
  }
}

/** A required metadata entry parsed as strict JSON (a key given twice is refused), naming the key when absent or malformed. */
export function metaJSON(metadata: Record<string, string>, key: string, where: string): unknown {
  if (!Object.hasOwn(metadata, key)) throw new ModelFileError(`${where}: metadata has no "${key}"`);
  try {
    return parseStrictJson(metadata[key], `${where}: metadata "${key}"`).value;
  } catch (err) {
    throw new ModelFileError((err as Error).message);
  }
}

/** A required metadata entry checked against its schema; a refusal names the file and the field, e.g. `cursor.alea.s0`. */
export function metaField<T>(metadata: Record<string, string>, key: string, schema: Schema<T>, where: string): T {
  if (!Object.hasOwn(metadata, key)) throw new ModelFileError(`${where}: metadata has no "${key}"`);
  try {
    return parseJsonFile(metadata[key], schema, where, key);
  } catch (err) {
    if (isFileError(err)) throw new ModelFileError(err.message);
    throw err;
  }
}

/** Refuse a file of another kind or version (`expected`: the formats read) before reading anything else from it. */
export function checkFormat(metadata: Record<string, string>, expected: readonly string[], where: string): void {
  const wanted = expected.map((f) => `"${f}"`).join(" or ");
  if (!Object.hasOwn(metadata, "format"))
    throw new ModelFileError(`${where}: metadata has no "format" (expected ${wanted}): not a tinylab file`);
  if (!expected.includes(metadata.format)) throw new ModelFileError(`${where}: format is "${metadata.format}", expected ${wanted}`);
}

/** The config from metadata: every declared key present, no unknown key, types and values valid. */

/**
 * Take exactly the tensors `expected` names (with `prefix`), each F32 of the expected shape; refuse a
 * missing, extra, mistyped or misshapen tensor by name. Returns arrays keyed by the unprefixed name.
 */
export function takeTensors(
  tensors: Record<string, TensorEntry>,
  expected: [string, number[]][],
  prefix: string,
  where: string,
): ParamArrays {
  checkLayout(tensors, expected, prefix, where);
  return new Map(expected.map(([name]) => [name, tensors[prefix + name].data as Float32Array]));
}

/** Refuse a missing, mistyped or misshapen tensor of `expected` by name, from its declared dtype and shape alone. */
export function checkLayout(
  tensors: Record<string, { dtype: string; shape: number[] }>,
  expected: [string, number[]][],
  prefix: string,
  where: string,
): void {
  for (const [name, shape] of expected) {
    const key = prefix + name;
    if (!Object.hasOwn(tensors, key)) throw new ModelFileError(`${where}: tensor "${key}" is missing`);
    const t = tensors[key];
    if (t.dtype !== "F32") throw new ModelFileError(`${where}: tensor "${key}" is ${t.dtype}, expected F32`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new ModelFileError(`${where}: tensor "${key}" has shape [${t.shape}], the config needs [${shape}]`);
    }
  }
}

/** What a tensor's values must satisfy, and how a refusal says it. */
export interface ValueRule {
  ok: (x: number) => boolean;
  says: string;
}
export const FINITE: ValueRule = { ok: Number.isFinite, says: "a non-finite value" };

/** The first flat index whose value breaks `rule`, or -1. */
export function firstBad(data: Float32Array, rule: ValueRule = FINITE): number {
  for (let i = 0; i < data.length; i++) if (!rule.ok(data[i])) return i;
  return -1;
}

/** Refuse the first value that breaks `rule`, naming the tensor (with `prefix`) and its flat index. */
export function refuseBadValues(arrays: ParamArrays, prefix: string, where: string, rule: ValueRule = FINITE): void {
  for (const [name, data] of arrays) {
    const i = firstBad(data, rule);
    if (i >= 0) throw new ModelFileError(`${where}: tensor "${prefix}${name}" has ${rule.says} (${data[i]}) at flat index ${i}`);
  }
}

/** Refuse any tensor not in `known`, naming it. */
export function refuseExtraTensors(tensors: Record<string, unknown>, known: Set<string>, where: string): void {
  const extra = Object.keys(tensors).filter((k) => !known.has(k));
  if (extra.length > 0)
    throw new ModelFileError(
      `${where}: unexpected tensor${extra.length > 1 ? "s" : ""} ${extra.map((k) => `"${k}"`).join(", ")} for this config`,
    );
}
