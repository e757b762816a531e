// The portable model file: the decoder's weights as F32 safetensors named as in the model, with the config,
// architecture, tokenizer and its id scheme, provenance and an integrity digest in `__metadata__`, enough alone
// to re-score (docs/model-format.md is the spec). Bytes in, bytes out: no file system here (src/node/disk.ts reads
// and writes). Not training state (state_file.ts), the metadata's records and schemas (model_metadata.ts), nor the
// checks every tinylab file shares (file_checks.ts).
import { GPT } from "../model/gpt.ts";
import { refuseNonFiniteForward } from "./finite_forward.ts";
import { DEFAULT_MODEL_CONFIG, parameterShapes, type ModelConfig } from "../model/config.ts";
import type { ParamArrays } from "../model/init.ts";
import { architectureOf, type Architecture } from "../model/architecture.ts";
import { TOKENIZER_SCHEME, type TokenizerScheme } from "../data/load_tokenizer.ts";
import type { Tokenizer, TokenizerJSON } from "../data/tokenizer.ts";
import type { TextDataProvenance } from "../data/text_split.ts";
import type { Engine, EngineRecord } from "../util/engine.ts";
import { provenance } from "../util/runtime/provenance.ts";
import { encodeSafetensors, type HeaderLayout, type SafetensorsContents, type TensorEntry } from "../util/formats/safetensors.ts";
import {
  checkFormat,
  checkIntegrity,
  checkLayout,
  decodeCheckpoint,
  INTEGRITY,
  ModelFileError,
  refuseBadValues,
  refuseExtraTensors,
  signed,
  takeTensors,
} from "./file_checks.ts";
import { checkDeclared, parseConfig, parseProvenance, parseTokenizer, type ModelMetadata, type ModelProvenance } from "./model_metadata.ts";

/** What the writer writes: the /2 layout plus `architecture` and `tokenizer_scheme`, which a reader checks. */
export const MODEL_FORMAT = "tinylab-model/3";
/** The /1 layout plus the `integrity` digest; its architecture and scheme are implied (this code's, as in /1). */
export const MODEL_FORMAT_V2 = "tinylab-model/2";
/** Files written before the digest: still read, with `integrity` saying they are unverified. */
export const MODEL_FORMAT_V1 = "tinylab-model/1";

/** Whether a loaded model's tensors and metadata were checked against the digest written with them. */
export type Integrity = "verified" | "unverified (format tinylab-model/1 has no digest)";

/** A model restored from its file alone. `sha256` is the file's identity (`model_sha256`). */
export interface LoadedModel {
  model: GPT;
  tokenizer: Tokenizer;
  config: ModelConfig;
  /** Declared by a /3 file (and checked to be this code's); implied for /1 and /2 files. */
  architecture: Architecture;
  tokenizerScheme: TokenizerScheme;
  provenance: ModelProvenance;
  metadata: Record<string, string>;
  sha256: string;
  integrity: Integrity;
}

export function modelProvenance(engine: EngineRecord, seed: number, update: number, data?: TextDataProvenance): ModelProvenance {
  const { backend, kernels, onnxruntime, tfjs, tinylab } = provenance(engine);
  return { seed, update, backend, ...(kernels !== "tfjs" ? { kernels, onnxruntime } : {}), tfjs, tinylab, ...(data ? { data } : {}) };
}

/** The config as JSON with keys in the declared order, so equal configs give equal bytes. */
export function configJSON(c: ModelConfig): string {
  return JSON.stringify(Object.fromEntries(Object.keys(DEFAULT_MODEL_CONFIG).map((k) => [k, c[k as keyof ModelConfig]])));
}

/** F32 tensors for named arrays, shaped by the config; `prefix` names optimizer moments (`m.`, `v.`). */
export function weightTensors(arrays: ParamArrays, config: ModelConfig, prefix = ""): Record<string, TensorEntry> {
  const out: Record<string, TensorEntry> = {};
  for (const [name, shape] of parameterShapes(config)) {
    const data = arrays.get(name);
    if (!data) throw new Error(`no values for parameter "${name}"`);
    out[prefix + name] = { dtype: "F32", shape, data };
  }
  return out;
}

/** The model file's bytes; a non-finite weight is refused (a file that would only fail when scored is never written). */
export function encodeModel(weights: ParamArrays, config: ModelConfig, tokenizer: TokenizerJSON, prov: ModelProvenance): Uint8Array {
  refuseBadValues(weights, "", "cannot write a model file");
  const tensors = weightTensors(weights, config);
  const metadata: ModelMetadata = signed(tensors, {
    format: MODEL_FORMAT,
    config: configJSON(config),
    architecture: JSON.stringify(architectureOf(config)),
    tokenizer: JSON.stringify(tokenizer),
    tokenizer_scheme: JSON.stringify(TOKENIZER_SCHEME),
    provenance: JSON.stringify(prov),
  });
  // the reader's own rule, so a provenance it would refuse (no engine named, say) is never written
  parseProvenance({ ...metadata }, "cannot write a model file");
  return encodeSafetensors(tensors, { ...metadata });
}

/**
 * Judge a model file by its header alone, before its tensors are read (src/node/disk.ts readModelFileBytes): its
 * format, its config, and exactly the tensors that config calls for, each F32 of its shape. A file that passes can
 * hold no more bytes than its config's weights (the header tiles the data exactly), so reading it is bounded by
 * MAX_PARAMETERS; one with an extra or oversized tensor is refused having read only the header.
 */
export function judgeModelHeader(layout: HeaderLayout, path: string): void {
  const where = `model file ${path}`;
  const { metadata, tensors } = layout;
  refuseStateFile(metadata, where);
  checkFormat(metadata, [MODEL_FORMAT, MODEL_FORMAT_V2, MODEL_FORMAT_V1], where);
  const shapes = parameterShapes(parseConfig(metadata, where));
  checkLayout(tensors, shapes, "", where);
  refuseExtraTensors(tensors, new Set(shapes.map(([n]) => n)), where);
}

function refuseStateFile(metadata: Record<string, string>, where: string): void {
  if (metadata.format?.startsWith("tinylab-train-state/")) {
    throw new ModelFileError(
      `${where}: is a training-state file (format "${metadata.format}"), not a model file; write one with train --save-model`,
    );
  }
}

/** Everything a model file holds, validated (format, integrity, config, tokenizer, weights), without building the model. */
export type ModelFileParts = Omit<LoadedModel, "model"> & { weights: ParamArrays };

/**
 * Restore model and tokenizer from a model file's bytes alone (`path` names it in errors), the model on `engine`
 * (absent: tfjs's own kernels). The caller owns (and disposes) the model.
 */
export function decodeModelFile(
  bytes: Uint8Array,
  path: string,
  engine?: Engine,
  beforeBuild?: (config: ModelConfig) => void,
): LoadedModel {
  const { weights, ...parts } = decodeModelParts(bytes, path);
  beforeBuild?.(parts.config); // e.g. a memory estimate of the work asked of it, before the engine holds anything
  const model = new GPT(parts.config, weights, engine);
  try {
    refuseNonFiniteForward(model, `model file ${path}`, ModelFileError);
  } catch (err) {
    model.dispose();
    throw err;
  }
  return { model, ...parts };
}

/** The validated contents of a model file (no engine needed: e.g. count baselines over its tokenizer). */
export function decodeModelParts(bytes: Uint8Array, path: string): ModelFileParts {
  const { contents, sha256 } = decodeCheckpoint(bytes, path);
  const where = `model file ${path}`;
  const { metadata, tensors } = contents;
  refuseStateFile(metadata, where);
  checkFormat(metadata, [MODEL_FORMAT, MODEL_FORMAT_V2, MODEL_FORMAT_V1], where);
  const integrity = modelIntegrity(contents, where);
  const config = parseConfig(metadata, where);
  const architecture = architectureOf(config);
  const tokenizerScheme = { ...TOKENIZER_SCHEME };
  if (metadata.format === MODEL_FORMAT) {
    checkDeclared(metadata, "architecture", architecture, where);
    checkDeclared(metadata, "tokenizer_scheme", tokenizerScheme, where);
  } else {
    // /1 and /2 have no declarations: the code that wrote them computed exactly this code's architecture and scheme
    for (const key of ["architecture", "tokenizer_scheme"]) {
      if (Object.hasOwn(metadata, key))
        throw new ModelFileError(`${where}: format "${metadata.format}" has no "${key}", yet the file carries one`);
    }
  }
  const tokenizer = parseTokenizer(metadata, config, where);
  const prov = parseProvenance(metadata, where);
  const shapes = parameterShapes(config);
  const weights = takeTensors(tensors, shapes, "", where);
  refuseExtraTensors(tensors, new Set(shapes.map(([n]) => n)), where);
  refuseBadValues(weights, "", where);
  return { weights, tokenizer, config, architecture, tokenizerScheme, provenance: prov, metadata, sha256, integrity };
}

/** A /2 or /3 file must match its digest; a /1 file has none, and one claiming a digest is a later file with its format edited. */
function modelIntegrity(contents: SafetensorsContents, where: string): Integrity {
  if (contents.metadata.format === MODEL_FORMAT || contents.metadata.format === MODEL_FORMAT_V2) {
    checkIntegrity(contents, where);
    return "verified";
  }
  if (Object.hasOwn(contents.metadata, INTEGRITY))
    throw new ModelFileError(`${where}: format "${MODEL_FORMAT_V1}" has no integrity digest, yet the file carries one`);
  return `unverified (format ${MODEL_FORMAT_V1} has no digest)`;
}
