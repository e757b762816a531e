// The training-state file: weights, AdamW moments, the step, every RNG state, the data cursor and the run's
// options, so a killed run resumes exactly. Bytes in, bytes out. Not the model file (model_file.ts), not the
// run that fills it (run.ts).
import { parameterShapes, type ModelConfig } from "../model/config.ts";
import type { ParamArrays } from "../model/init.ts";
import type { TokenizerJSON } from "../data/tokenizer.ts";
import type { AdamWState } from "../train/adamw.ts";
import { TRAIN_OPTIONS, type TrainOptions } from "./config.ts";
import { RNG_STATE, type RngState } from "../util/rng.ts";
import { arr, int, nullable, obj, refuse, type Schema } from "../util/schema.ts";
import { encodeSafetensors } from "../util/safetensors.ts";
import {
  CheckpointError, checkFormat, checkIntegrity, configJSON, decodeCheckpoint, metaField, parseConfig, parseProvenance, parseTokenizer,
  refuseBadValues, refuseExtraTensors, signed, takeTensors, weightTensors, type ModelProvenance, type ValueRule,
} from "./model_file.ts";

/** /2 adds the integrity digest (model_file.ts `integrityDigest`); /1 files are refused. */
export const TRAIN_STATE_FORMAT = "tinylab-train-state/2";

/** A whole training state in memory; `optimizer.step` is the number of updates done. */
export interface TrainSnapshot {
  config: ModelConfig;
  /** null for a run over raw ids (no text), which cannot be written to a file. */
  tokenizer: TokenizerJSON | null;
  options: TrainOptions;
  weights: ParamArrays;
  optimizer: AdamWState;
  /** Every random stream of the run by role (dropout, data order), so none restarts on resume. */
  rngs: Record<string, RngState>;
  /** The data source's position (src/train/loop.ts `DataSource.state()`), stored as JSON. */
  cursor: unknown;
  provenance: ModelProvenance;
}

/** AdamW's second moments are running means of squared gradients: finite and never negative. */
const SECOND_MOMENT: ValueRule = { ok: (x) => x >= 0 && x < Infinity, says: "a negative or non-finite second moment" };

/** The state file's bytes; a non-finite weight or moment is refused, so no such file is ever written. */
export function encodeTrainState(s: TrainSnapshot): Uint8Array {
  if (s.tokenizer === null) throw new Error("this run has no tokenizer (raw token ids): its state cannot be written to a file");
  const where = "cannot write a training-state file";
  refuseBadValues(s.weights, "", where);
  refuseBadValues(s.optimizer.m, "m.", where);
  refuseBadValues(s.optimizer.v, "v.", where, SECOND_MOMENT);
  if (s.optimizer.step !== s.provenance.update) throw new CheckpointError(`${where}: step ${s.optimizer.step} but provenance says update ${s.provenance.update}`);
  const tensors = {
    ...weightTensors(s.weights, s.config),
    ...weightTensors(s.optimizer.m, s.config, "m."),
    ...weightTensors(s.optimizer.v, s.config, "v."),
  };
  const metadata = {
    format: TRAIN_STATE_FORMAT,
    config: configJSON(s.config),
    tokenizer: JSON.stringify(s.tokenizer),
    provenance: JSON.stringify(s.provenance),
    options: JSON.stringify(s.options),
    step: String(s.optimizer.step),
    rngs: JSON.stringify(s.rngs),
    cursor: JSON.stringify(s.cursor),
  };
  return encodeSafetensors(tensors, signed(tensors, metadata));
}

/** The run's streams other than the data's (whose state is the cursor): src/lab/run.ts STREAMS.dropout. */
const RNGS = obj({ dropout: RNG_STATE });

/** An EpochSource's position (src/train/loop.ts): its order a list of distinct indices (the source checks it covers its items). */
const EPOCH_CURSOR = obj({ epoch: int({ min: 0 }), position: int({ min: 0 }), order: arr(int({ min: 0 }), { unique: "" }), rng: nullable(RNG_STATE) });

/** The data cursor is one of the two shapes the sources save: a stream's state (random windows, draws) or an epoch cursor. */
const DATA_CURSOR: Schema<unknown> = (v, path, cx) => {
  const has = (k: string) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.hasOwn(v, k);
  if (has("alea") || has("seed")) return RNG_STATE(v, path, cx);
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return EPOCH_CURSOR(v, path, cx);
  return refuse(cx, path, "must be a data cursor: an rng state {seed, alea} or an epoch cursor {epoch, position, order, rng}", v);
};

/** Decode and validate a training-state file's bytes; every refusal names the file (`path`) and the problem. */
export function decodeTrainState(bytes: Uint8Array, path: string): TrainSnapshot {
  const { contents } = decodeCheckpoint(bytes, path);
  const where = `training-state file ${path}`;
  const { metadata, tensors } = contents;
  if (metadata.format === "tinylab-train-state/1") {
    throw new CheckpointError(`${where}: format "tinylab-train-state/1" was written by an older tinylab and has no integrity digest; start the run afresh, or finish it with the tinylab that wrote it`);
  }
  checkFormat(metadata, [TRAIN_STATE_FORMAT], where);
  checkIntegrity(contents, where);
  const config = parseConfig(metadata, where);
  const tokenizer = parseTokenizer(metadata, config, where).toJSON();
  const provenance = parseProvenance(metadata, where);
  const options = metaField(metadata, "options", TRAIN_OPTIONS, where);
  const step = metaField(metadata, "step", int({ min: 0 }), where);
  if (step !== provenance.update) throw new CheckpointError(`${where}: metadata "step" is ${step} but "provenance" says update ${provenance.update}`);
  const rngs = metaField(metadata, "rngs", RNGS, where);
  const cursor = metaField(metadata, "cursor", DATA_CURSOR, where);
  const shapes = parameterShapes(config);
  const weights = takeTensors(tensors, shapes, "", where);
  const m = takeTensors(tensors, shapes, "m.", where);
  const v = takeTensors(tensors, shapes, "v.", where);
  refuseExtraTensors(tensors, new Set(["", "m.", "v."].flatMap((p) => shapes.map(([n]) => p + n))), where);
  refuseBadValues(weights, "", where);
  refuseBadValues(m, "m.", where);
  refuseBadValues(v, "v.", where, SECOND_MOMENT);
  return { config, tokenizer, options, weights, optimizer: { step, m, v }, rngs, cursor, provenance };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Leaf-by-leaf differences between two JSON values, as "path: checkpoint X, this run Y". */
export function differences(saved: unknown, wanted: unknown, path: string): string[] {
  if (isObject(saved) && isObject(wanted)) {
    const keys = [...new Set([...Object.keys(saved), ...Object.keys(wanted)])];
    return keys.flatMap((k) => differences(saved[k], wanted[k], `${path}.${k}`));
  }
  const [a, b] = [JSON.stringify(saved), JSON.stringify(wanted)];
  return a === b ? [] : [`${path}: checkpoint ${a ?? "(absent)"}, this run ${b ?? "(absent)"}`];
}

/** Refuse to resume a run whose config, tokenizer or options differ from the checkpoint's, naming each difference. */
export function checkResume(saved: TrainSnapshot, run: { config: ModelConfig; tokenizer: TokenizerJSON | null; options: TrainOptions }, where: string): void {
  const diffs = [
    ...differences(JSON.parse(configJSON(saved.config)), JSON.parse(configJSON(run.config)), "config"),
    ...differences(saved.tokenizer, run.tokenizer, "tokenizer"),
    ...differences(saved.options, run.options, "options"),
  ];
  if (diffs.length > 0) throw new CheckpointError(`cannot resume from ${where}: this run differs from it in ${diffs.join("; ")}`);
}
