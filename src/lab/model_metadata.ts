// What a model file's `__metadata__` holds (docs/model-format.md): the provenance and selection records, and each
// field read back by its schema (config, declared descriptions, tokenizer, provenance), refused naming the file
// and the field. Not the file's bytes (model_file.ts encodes and decodes them).
import { MODEL_CONFIG_FIELDS, resolveModelConfig, type ModelConfig } from "../model/config.ts";
import { tokenizerFromJSON } from "../data/load_tokenizer.ts";
import type { Tokenizer } from "../data/tokenizer.ts";
import type { TextDataProvenance } from "../data/text_split.ts";
import { arr, int, obj, oneOf, str, type Schema } from "../util/formats/schema.ts";
import { metaField, metaJSON, ModelFileError } from "./file_checks.ts";

/**
 * Where the weights came from. Deliberately no date, host or command line: two runs that produce the
 * same weights produce byte-identical files, so `model_sha256` identifies the weights and their origin.
 */
export interface ModelProvenance {
  seed: number;
  update: number;
  backend: string;
  /** Who computed the matrix products and its version, where not tfjs's own kernels (absent: tfjs, so those files keep their bytes). */
  kernels?: string;
  onnxruntime?: string;
  tfjs: string;
  tinylab: string;
  /** Present when these weights were chosen among a run's updates rather than being its last. */
  selection?: ModelSelection;
  /** The text it was trained on (train --text); absent for the overfit fixture, a documents file and files written before it. */
  data?: TextDataProvenance;
}

/** How a run chose the update its saved weights come from. */
export interface ModelSelection {
  on: "validation";
  update: number;
  validation_nll: number;
  note: string;
}

/** The metadata map of a model file, every value a JSON string except `format` and `integrity`. */
export interface ModelMetadata {
  format: string;
  config: string;
  architecture: string;
  tokenizer_scheme: string;
  tokenizer: string;
  provenance: string;
  integrity: string;
}

/** The metadata `config` object: every field of the model config, each of its type and range (model/config.ts). */
const CONFIG_SCHEMA = obj(MODEL_CONFIG_FIELDS);

/** The shape of a tokenizer's JSON, before tokenizerFromJSON checks what it means (merges against the vocabulary). */
const TOKENIZER_SCHEMA: Schema<unknown> = (v, path, cx) => {
  const kind = obj({ kind: oneOf(["byte", "bpe"]) }, { open: true })(v, path, cx).kind;
  const id = int({ min: 0 });
  return kind === "byte"
    ? obj({ kind: oneOf(["byte"]), vocabSize: int() })(v, path, cx)
    : obj({ kind: oneOf(["bpe"]), vocabSize: int(), merges: arr(arr(id, { min: 2, max: 2 })) })(v, path, cx);
};

/**
 * Provenance is printed beside every score, so its strings are one line each (a newline would forge an output
 * line). Open: fields added by later writers (e.g. the data trained on) are checked by their readers.
 */
const PROVENANCE_SCHEMA = obj(
  { seed: int(), update: int({ min: 0 }), backend: str({ oneLine: true }), tfjs: str({ oneLine: true }), tinylab: str({ oneLine: true }) },
  { open: true },
);

export function parseConfig(metadata: Record<string, string>, where: string): ModelConfig {
  const raw = metaField(metadata, "config", CONFIG_SCHEMA, where);
  try {
    return resolveModelConfig(raw as Record<string, unknown>);
  } catch (err) {
    throw new ModelFileError(`${where}: metadata "config": ${(err as Error).message}`);
  }
}

/**
 * A declared description (`architecture`, `tokenizer_scheme`) must be exactly what this code implements: the same
 * keys, each the same JSON value. A file declaring anything else (say activation "gelu_erf") would be scored wrongly,
 * so it is refused, naming the file, the key and the value.
 */
export function checkDeclared(metadata: Record<string, string>, key: string, implemented: object, where: string): void {
  const raw = metaJSON(metadata, key, where);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ModelFileError(`${where}: metadata "${key}" is not a JSON object`);
  const want = implemented as Record<string, unknown>,
    got = raw as Record<string, unknown>;
  const missing = Object.keys(want).filter((k) => !Object.hasOwn(got, k));
  if (missing.length > 0) throw new ModelFileError(`${where}: metadata "${key}" lacks ${missing.join(", ")}`);
  const unknown = Object.keys(got).filter((k) => !Object.hasOwn(want, k));
  if (unknown.length > 0)
    throw new ModelFileError(
      `${where}: metadata "${key}" declares ${unknown.map((k) => `"${k}"`).join(", ")}, which this code does not implement`,
    );
  for (const k of Object.keys(want)) {
    if (JSON.stringify(got[k]) !== JSON.stringify(want[k])) {
      throw new ModelFileError(
        `${where}: metadata "${key}" declares "${k}": ${JSON.stringify(got[k])}, which this code does not implement (it implements ${JSON.stringify(want[k])})`,
      );
    }
  }
}

/** The tokenizer from metadata; its ids must all be rows of the model's embedding. */
export function parseTokenizer(metadata: Record<string, string>, config: ModelConfig, where: string): Tokenizer {
  let tokenizer: Tokenizer;
  try {
    tokenizer = tokenizerFromJSON(metaField(metadata, "tokenizer", TOKENIZER_SCHEMA, where));
  } catch (err) {
    if (err instanceof ModelFileError) throw err;
    throw new ModelFileError(`${where}: metadata "tokenizer": ${(err as Error).message}`);
  }
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new ModelFileError(`${where}: tokenizer vocabulary ${tokenizer.vocabSize} exceeds the model's vocabSize ${config.vocabSize}`);
  }
  return tokenizer;
}

export function parseProvenance(metadata: Record<string, string>, where: string): ModelProvenance {
  metaField(metadata, "provenance", PROVENANCE_SCHEMA, where);
  const p = metaJSON(metadata, "provenance", where) as ModelProvenance; // whole, the open fields included
  const d = p.data as Partial<TextDataProvenance> | undefined;
  if (
    d !== undefined &&
    (typeof d !== "object" ||
      d === null ||
      d.kind !== "text" ||
      !/^[0-9a-f]{64}$/.test(String(d.manifest_sha256)) ||
      !Array.isArray(d.files))
  ) {
    throw new ModelFileError(
      `${where}: metadata "provenance" has a malformed "data" (expected {"kind": "text", "manifest_sha256", "files", …})`,
    );
  }
  return p;
}
