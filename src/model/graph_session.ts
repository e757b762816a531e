// What the ONNX graph paths share: one session per (runtime, config, graph form) in this thread, the weights fed
// with every run (so an update never rebuilds a session), and a batch's feeds. Not the loader (src/node/onnxruntime.ts).
import { float32View } from "../util/backend.ts";
import type { Engine, GraphFeed, GraphLoader, GraphSession } from "../util/engine.ts";
import { parameterShapes, type ModelConfig } from "./config.ts";
import type { GPT } from "./gpt.ts";
import { attentionMask, checkModelInput, positionsOf, type ScoredBatch } from "./input.ts";
import { ATTENTION_BIAS, INPUT_IDS, POSITION_IDS, TARGETS } from "./onnx_names.ts";

/**
 * What the graph paths read of a model when its weights are fed apart: its config, its engine and its parameters'
 * names and shapes, in parameterShapes order. A GPT is one; so is `graphModel`'s, which holds no tfjs variables.
 */
export interface GraphModel {
  readonly config: ModelConfig;
  readonly engine: Engine;
  readonly params: ReadonlyMap<string, { readonly size: number; readonly shape: number[] }>;
}

/** A config's parameter names and shapes on an engine, without weights (a pool worker's, fed its own copy). */
export function graphModel(config: ModelConfig, engine: Engine): GraphModel {
  const params = new Map(parameterShapes(config).map(([name, shape]) => [name, { shape, size: shape.reduce((a, b) => a * b, 1) }]));
  return { config, engine, params };
}

const sessions = new WeakMap<GraphLoader, Map<string, GraphSession>>();
let builds = 0;

/** Graph sessions built in this thread so far (tests and benches check one session serves every update). */
export const graphBuilds = (): number => builds;

/** The session of graph `form` for this config on `load`, built from `bytes()` the first time only. */
export function cachedSession(load: GraphLoader, form: string, model: GraphModel, bytes: () => Uint8Array): GraphSession {
  let byKey = sessions.get(load);
  if (!byKey) sessions.set(load, (byKey = new Map()));
  const key = `${form} ${JSON.stringify(model.config)}`;
  let run = byKey.get(key);
  if (!run) {
    byKey.set(key, (run = load(bytes())));
    builds++;
  }
  return run;
}

const int64 = (xs: Int32Array, dims: number[]): GraphFeed => ({ type: "int64", data: BigInt64Array.from(xs, (x) => BigInt(x)), dims });

/**
 * Feeds named as the model's parameters: `weights` where given (a pool worker's own copy of the shared weights,
 * so it builds no tensors only to read them back), else the model's current weights, read in place (no copy: run
 * the graph before any other tfjs call, float32View).
 */
export function weightFeeds(model: GPT, weights?: ReadonlyMap<string, Float32Array>): Record<string, GraphFeed>;
export function weightFeeds(model: GraphModel, weights: ReadonlyMap<string, Float32Array>): Record<string, GraphFeed>;
export function weightFeeds(model: GPT | GraphModel, weights?: ReadonlyMap<string, Float32Array>): Record<string, GraphFeed> {
  if (weights)
    return Object.fromEntries(
      [...model.params].map(([name, v]) => [name, { type: "float32", data: sized(weights, name, v.size), dims: v.shape }]),
    );
  return Object.fromEntries(
    [...(model as GPT).params].map(([name, v]) => [name, { type: "float32", data: float32View(v), dims: v.shape }]),
  );
}

function sized(weights: ReadonlyMap<string, Float32Array>, name: string, size: number): Float32Array {
  const w = weights.get(name);
  if (!w || w.length !== size)
    throw new Error(`weights for parameter "${name}": ${w ? `${w.length} values, ${size} expected` : "missing"}`);
  return w;
}

/** input_ids, attention_bias (input.ts's mask: causal, documents kept apart), position_ids and targets of a checked batch. */
export function batchFeeds(model: GraphModel, batch: ScoredBatch): Record<string, GraphFeed> {
  const { rows, cols, ids } = checkModelInput(batch.input, model.config);
  return {
    [INPUT_IDS]: int64(ids, [rows, cols]),
    [ATTENTION_BIAS]: { type: "float32", data: attentionMask(batch.input), dims: [rows, 1, cols, cols] },
    [POSITION_IDS]: int64(positionsOf(batch.input), [rows, cols]),
    [TARGETS]: int64(batch.targets, [rows, cols]),
  };
}
