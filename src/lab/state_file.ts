// The training-state file: weights, AdamW moments, the step, every RNG state, the data cursor and the run's
// options, so a killed run resumes exactly. Bytes in, bytes out. Not the model file (model_file.ts), not the
// run that fills it (run.ts).
import { parameterShapes, type ModelConfig } from "../model/config.ts";
import type { ParamArrays } from "../model/init.ts";
import type { TokenizerJSON } from "../data/tokenizer.ts";
import type { AdamWState } from "../train/adamw.ts";
import type { TrainOptions } from "./config.ts";
import type { RngState } from "../util/rng.ts";
import { encodeSafetensors } from "../util/safetensors.ts";
import {
  CheckpointError, checkFormat, checkIntegrity, configJSON, decodeCheckpoint, metaJSON, parseConfig, parseProvenance, parseTokenizer,
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
  /** The weights validation chose so far, when the run scores validation (absent: none scored yet). */
  best?: SelectedWeights;
}

/**
 * The lowest whole-split validation NLL a run has seen, at which update, how many scorings since have not beaten
 * it (what --patience counts) and the weights of that update: in the state, so a resumed run keeps them exactly.
 */
export interface SelectedWeights {
  update: number;
  validationNll: number;
  scoringsSince: number;
  weights: ParamArrays;
}

/** Tensor-name prefix of the selected weights in a state file. */
const BEST = "best.";

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
    ...(s.best ? weightTensors(s.best.weights, s.config, BEST) : {}),
  };
  if (s.best) refuseBadValues(s.best.weights, BEST, where);
  const metadata = {
    format: TRAIN_STATE_FORMAT,
    config: configJSON(s.config),
    tokenizer: JSON.stringify(s.tokenizer),
    provenance: JSON.stringify(s.provenance),
    options: JSON.stringify(s.options),
    step: String(s.optimizer.step),
    rngs: JSON.stringify(s.rngs),
    cursor: JSON.stringify(s.cursor),
    ...(s.best ? { best: JSON.stringify({ update: s.best.update, validation_nll: s.best.validationNll, scorings_since: s.best.scoringsSince }) } : {}),
  };
  return encodeSafetensors(tensors, signed(tensors, metadata));
}

const isRngState = (x: unknown): x is RngState => {
  const r = x as RngState;
  return typeof r === "object" && r !== null && typeof r.seed === "string" && typeof r.alea === "object" && r.alea !== null &&
    (["c", "s0", "s1", "s2"] as const).every((k) => typeof r.alea[k] === "number");
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
  const options = metaJSON(metadata, "options", where);
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new CheckpointError(`${where}: metadata "options" is not a JSON object`);
  const step = metaJSON(metadata, "step", where);
  if (typeof step !== "number" || !Number.isInteger(step) || step < 0) throw new CheckpointError(`${where}: metadata "step" must be a non-negative integer, got ${metadata.step}`);
  if (step !== provenance.update) throw new CheckpointError(`${where}: metadata "step" is ${step} but "provenance" says update ${provenance.update}`);
  const rngs = metaJSON(metadata, "rngs", where) as Record<string, unknown>;
  if (typeof rngs !== "object" || rngs === null) throw new CheckpointError(`${where}: metadata "rngs" is not a JSON object`);
  for (const [role, state] of Object.entries(rngs)) if (!isRngState(state)) throw new CheckpointError(`${where}: rng state "${role}" is malformed`);
  const cursor = metaJSON(metadata, "cursor", where);
  const shapes = parameterShapes(config);
  const weights = takeTensors(tensors, shapes, "", where);
  const m = takeTensors(tensors, shapes, "m.", where);
  const v = takeTensors(tensors, shapes, "v.", where);
  const best = metadata.best === undefined ? undefined : parseBest(metaJSON(metadata, "best", where), step, where);
  const prefixes = best ? ["", "m.", "v.", BEST] : ["", "m.", "v."];
  refuseExtraTensors(tensors, new Set(prefixes.flatMap((p) => shapes.map(([n]) => p + n))), where);
  refuseBadValues(weights, "", where);
  refuseBadValues(m, "m.", where);
  refuseBadValues(v, "v.", where, SECOND_MOMENT);
  const selected = best && { ...best, weights: takeTensors(tensors, shapes, BEST, where) };
  if (selected) refuseBadValues(selected.weights, BEST, where);
  return { config, tokenizer, options: options as TrainOptions, weights, optimizer: { step, m, v }, rngs: rngs as Record<string, RngState>, cursor, provenance, ...(selected ? { best: selected } : {}) };
}

/** The "best" metadata: an update no later than the state's, a finite NLL, a non-negative count. */
function parseBest(b: unknown, step: number, where: string): Omit<SelectedWeights, "weights"> {
  const r = b as Record<string, unknown>;
  const int = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0;
  if (typeof r !== "object" || r === null || !int(r.update) || (r.update as number) > step || typeof r.validation_nll !== "number" || !Number.isFinite(r.validation_nll) || !int(r.scorings_since)) {
    throw new CheckpointError(`${where}: metadata "best" must be {update ≤ step ${step}, finite validation_nll, scorings_since ≥ 0}, got ${JSON.stringify(b)}`);
  }
  return { update: r.update as number, validationNll: r.validation_nll as number, scoringsSince: r.scorings_since as number };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** One leaf where a checkpoint and this run disagree: its path and both values as JSON (undefined: absent). */
export interface Difference {
  path: string;
  checkpoint: string | undefined;
  run: string | undefined;
}

/** Leaf-by-leaf differences between two JSON values. */
export function differencesOf(saved: unknown, wanted: unknown, path: string): Difference[] {
  if (isObject(saved) && isObject(wanted)) {
    const keys = [...new Set([...Object.keys(saved), ...Object.keys(wanted)])];
    return keys.flatMap((k) => differencesOf(saved[k], wanted[k], `${path}.${k}`));
  }
  const [a, b] = [JSON.stringify(saved), JSON.stringify(wanted)];
  return a === b ? [] : [{ path, checkpoint: a, run: b }];
}

const said = (d: Difference) => `${d.path}: checkpoint ${d.checkpoint ?? "(absent)"}, this run ${d.run ?? "(absent)"}`;

/** Leaf-by-leaf differences between two JSON values, as "path: checkpoint X, this run Y". */
export function differences(saved: unknown, wanted: unknown, path: string): string[] {
  return differencesOf(saved, wanted, path).map(said);
}

/** A resume refused because the run differs from its checkpoint; `differences` says where, for a caller to explain. */
export class ResumeMismatchError extends CheckpointError {
  override name = "ResumeMismatchError";
  constructor(readonly where: string, readonly differences: Difference[]) {
    super(`cannot resume from ${where}: this run differs from it in ${differences.map(said).join("; ")}`);
  }
}

/** Refuse to resume a run whose config, tokenizer or options differ from the checkpoint's, naming each difference. */
export function checkResume(saved: TrainSnapshot, run: { config: ModelConfig; tokenizer: TokenizerJSON | null; options: TrainOptions }, where: string): void {
  const diffs = [
    ...differencesOf(JSON.parse(configJSON(saved.config)), JSON.parse(configJSON(run.config)), "config"),
    ...differencesOf(saved.tokenizer, run.tokenizer, "tokenizer"),
    ...differencesOf(saved.options, run.options, "options"),
  ];
  if (diffs.length > 0) throw new ResumeMismatchError(where, diffs);
}
