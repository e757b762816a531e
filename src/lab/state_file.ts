// The training-state file: weights, AdamW moments, the step, every RNG state, the data cursor and the run's
// options, so a killed run resumes exactly. Bytes in, bytes out. Not the model file (model_file.ts), not the
// run that fills it (run.ts).
import { parameterShapes, type ModelConfig } from "../model/config.ts";
import type { ParamArrays } from "../model/init.ts";
import type { TokenizerJSON } from "../data/tokenizer.ts";
import type { AdamWState } from "../train/adamw.ts";
import { TRAIN_OPTIONS, type TrainOptions } from "./config.ts";
import { RNG_STATE, type RngState } from "../util/primitives/rng.ts";
import { arr, int, nullable, num, obj, refuse, type Schema } from "../util/formats/schema.ts";
import { safetensorsChunks } from "../util/formats/safetensors.ts";
import { joinChunks } from "../util/primitives/bytes.ts";
import { tfjsOnly } from "../util/backend.ts";
import type { EngineRecord } from "../util/engine.ts";
import { configJSON, modelProvenance, weightTensors } from "./model_file.ts";
import { parseConfig, parseProvenance, parseTokenizer, type ModelProvenance } from "./model_metadata.ts";
import {
  ModelFileError,
  checkFormat,
  checkIntegrity,
  decodeCheckpoint,
  metaField,
  refuseBadValues,
  refuseExtraTensors,
  signed,
  takeTensors,
  type ValueRule,
} from "./file_checks.ts";

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
  /** The data source's position (src/data/source.ts `DataSource.state()`), stored as JSON. */
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
  return joinChunks(trainStateChunks(s));
}

/**
 * encodeTrainState's bytes as chunks (safetensorsChunks: views of the snapshot's arrays, which must not change
 * until the last chunk is written), every check done before the first: a state of a few hundred MB is written
 * without a copy of it in memory.
 */
export function trainStateChunks(s: TrainSnapshot): Iterable<Uint8Array> {
  if (s.tokenizer === null) throw new Error("this run has no tokenizer (raw token ids): its state cannot be written to a file");
  const where = "cannot write a training-state file";
  refuseBadValues(s.weights, "", where);
  refuseBadValues(s.optimizer.m, "m.", where);
  refuseBadValues(s.optimizer.v, "v.", where, SECOND_MOMENT);
  if (s.optimizer.step !== s.provenance.update)
    throw new ModelFileError(`${where}: step ${s.optimizer.step} but provenance says update ${s.provenance.update}`);
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
    ...(s.best
      ? { best: JSON.stringify({ update: s.best.update, validation_nll: s.best.validationNll, scorings_since: s.best.scoringsSince }) }
      : {}),
  };
  return safetensorsChunks(tensors, signed(tensors, metadata));
}

/** The run's streams other than the data's (whose state is the cursor): src/lab/run.ts STREAMS.dropout. */
const RNGS = obj({ dropout: RNG_STATE });

/** An EpochSource's position (src/data/epoch_source.ts): its order a list of distinct indices (the source checks it covers its items). */
const EPOCH_CURSOR = obj({
  epoch: int({ min: 0 }),
  position: int({ min: 0 }),
  order: arr(int({ min: 0 }), { unique: "" }),
  rng: nullable(RNG_STATE),
});

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
    throw new ModelFileError(
      `${where}: format "tinylab-train-state/1" was written by an older tinylab and has no integrity digest; start the run afresh, or finish it with the tinylab that wrote it`,
    );
  }
  checkFormat(metadata, [TRAIN_STATE_FORMAT], where);
  checkIntegrity(contents, where);
  const config = parseConfig(metadata, where);
  const tokenizer = parseTokenizer(metadata, config, where).toJSON();
  const provenance = parseProvenance(metadata, where);
  const options = metaField(metadata, "options", TRAIN_OPTIONS, where);
  const step = metaField(metadata, "step", int({ min: 0 }), where);
  if (step !== provenance.update)
    throw new ModelFileError(`${where}: metadata "step" is ${step} but "provenance" says update ${provenance.update}`);
  const rngs = metaField(metadata, "rngs", RNGS, where);
  const cursor = metaField(metadata, "cursor", DATA_CURSOR, where);
  const shapes = parameterShapes(config);
  const weights = takeTensors(tensors, shapes, "", where);
  const m = takeTensors(tensors, shapes, "m.", where);
  const v = takeTensors(tensors, shapes, "v.", where);
  const best = metadata.best === undefined ? undefined : parseBest(metadata, step, where);
  const prefixes = best ? ["", "m.", "v.", BEST] : ["", "m.", "v."];
  refuseExtraTensors(tensors, new Set(prefixes.flatMap((p) => shapes.map(([n]) => p + n))), where);
  refuseBadValues(weights, "", where);
  refuseBadValues(m, "m.", where);
  refuseBadValues(v, "v.", where, SECOND_MOMENT);
  const selected = best && { ...best, weights: takeTensors(tensors, shapes, BEST, where) };
  if (selected) refuseBadValues(selected.weights, BEST, where);
  return {
    config,
    tokenizer,
    options,
    weights,
    optimizer: { step, m, v },
    rngs,
    cursor,
    provenance,
    ...(selected ? { best: selected } : {}),
  };
}

/** The "best" metadata: an update no later than the state's, a finite NLL, a non-negative count. */
const BEST_META = obj({ update: int({ min: 0 }), validation_nll: num(), scorings_since: int({ min: 0 }) });

function parseBest(metadata: Record<string, string>, step: number, where: string): Omit<SelectedWeights, "weights"> {
  const b = metaField(metadata, "best", BEST_META, where);
  if (b.update > step)
    throw new ModelFileError(`${where}: metadata "best": update: must be at most the state's step ${step} (got ${b.update})`);
  return { update: b.update, validationNll: b.validation_nll, scoringsSince: b.scorings_since };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** One leaf where a saved state and this run disagree: its path and both values as JSON (undefined: absent). */
export interface Difference {
  path: string;
  saved: string | undefined;
  run: string | undefined;
}

/** Leaf-by-leaf differences between two JSON values. */
export function differencesOf(saved: unknown, wanted: unknown, path: string): Difference[] {
  if (isObject(saved) && isObject(wanted)) {
    const keys = [...new Set([...Object.keys(saved), ...Object.keys(wanted)])];
    return keys.flatMap((k) => differencesOf(saved[k], wanted[k], `${path}.${k}`));
  }
  const [a, b] = [JSON.stringify(saved), JSON.stringify(wanted)];
  return a === b ? [] : [{ path, saved: a, run: b }];
}

const said = (d: Difference) => `${d.path}: saved ${d.saved ?? "(absent)"}, this run ${d.run ?? "(absent)"}`;

/** Leaf-by-leaf differences between two JSON values, as "path: saved X, this run Y". */
export function differences(saved: unknown, wanted: unknown, path: string): string[] {
  return differencesOf(saved, wanted, path).map(said);
}

/** A resume refused because the run differs from its saved state; `differences` says where, for a caller to explain. */
export class ResumeMismatchError extends ModelFileError {
  override name = "ResumeMismatchError";
  constructor(
    readonly where: string,
    readonly differences: Difference[],
    message?: string,
  ) {
    super(message ?? `cannot resume from ${where}: this run differs from it in ${differences.map(said).join("; ")}`);
  }
}

/** Refuse to resume a run whose config, tokenizer or options differ from the saved state's, naming each difference. */
export function checkResume(
  saved: TrainSnapshot,
  run: { config: ModelConfig; tokenizer: TokenizerJSON | null; options: TrainOptions; engine?: EngineRecord },
  where: string,
): void {
  const diffs = [
    ...differencesOf(JSON.parse(configJSON(saved.config)), JSON.parse(configJSON(run.config)), "config"),
    ...differencesOf(saved.tokenizer, run.tokenizer, "tokenizer"),
    ...differencesOf(saved.options, run.options, "options"),
  ];
  if (diffs.length > 0) throw new ResumeMismatchError(where, diffs);
  checkEngine(saved.provenance, modelProvenance(run.engine ?? tfjsOnly(), 0, 0), where);
}

/** An engine as the flags name it: the tfjs backend and who computes its matrix products (absent kernels: tfjs's own). */
const engineOf = (p: Pick<ModelProvenance, "backend" | "kernels">) => ({ backend: p.backend, kernels: p.kernels ?? "tfjs" });

/**
 * Refuse to resume on another engine (backend or kernels) than the saved state's: each rounds its products in its
 * own order, so the resumed updates would match neither engine's run, while the model's provenance named only the
 * last. The refusal names the flags that would resume it.
 */
export function checkEngine(
  saved: Pick<ModelProvenance, "backend" | "kernels">,
  now: Pick<ModelProvenance, "backend" | "kernels">,
  where: string,
): void {
  const [a, b] = [engineOf(saved), engineOf(now)];
  const flags = (["backend", "kernels"] as const).filter((k) => a[k] !== b[k]);
  if (flags.length === 0) return;
  const said = (e: typeof a) => `backend ${e.backend}, kernels ${e.kernels}`;
  throw new ResumeMismatchError(
    where,
    flags.map((k) => ({ path: `engine.${k}`, saved: a[k], run: b[k] })),
    `cannot resume from ${where}: it was trained on ${said(a)}, this run is on ${said(b)}; resume with ${flags.map((k) => `--${k} ${a[k]}`).join(" ")} (a run stays on one engine: another rounds differently, and the result would match neither)`,
  );
}
