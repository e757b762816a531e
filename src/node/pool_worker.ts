// One replica of the worker pool (a worker_threads entry): its own engine (and a tfjs model copy only for a job that
// needs one), answering jobs (gradients of its microbatches into shared memory, its parameters' part of the
// update, scores of its batches, its memory) at the weights in shared memory. Not the pool.
import { workerData, type MessagePort } from "node:worker_threads";
import { GPT } from "../model/gpt.ts";
import { scoreBatch } from "../model/graph_scoring.ts";
import { graphModel } from "../model/graph_session.ts";
import { gradientPath, graphGradient } from "../model/graph_training.ts";
import { modelGradient } from "../lab/gradients.ts";
import {
  paramView,
  readWeights,
  SIGNAL_SLOTS,
  type Job,
  type Reply,
  type SharedBuffers,
  type ShardJob,
  type WorkerInit,
} from "../train/pool_protocol.ts";
import { ownerCheck, ownerSquares, ownerUpdate, type ShardMemory } from "../train/shard_passes.ts";
import { tf } from "../util/backend.ts";
import { openEngine } from "./engine.ts";
import { Rng } from "../util/primitives/rng.ts";

const { init, port, signal, index } = workerData as { init: WorkerInit; port: MessagePort; signal: Int32Array; index: number };

function post(reply: Reply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(reply, transfer);
  // after the message is queued: the caller re-checks its port whenever this counter moves
  Atomics.add(signal, SIGNAL_SLOTS * index, 1);
  Atomics.notify(signal, SIGNAL_SLOTS * index);
}

// explicit, never auto: a replica that cannot compute as the calling thread does fails its start
const engine = await openEngine(init.engine);
if (engine.attention !== init.engine.attention)
  throw new Error(
    `its engine's attention is ${engine.attention ?? "onnxruntime's"}, the calling thread's ${init.engine.attention ?? "onnxruntime's"}`,
  );
const view = new Float32Array(init.weights);
// The graphs need only the parameters' names and shapes (fed `own` below); the tfjs model, whose variables hold a
// model-sized copy in this thread's wasm heap (~90 MB of resident memory at xl), is made only for a job that
// computes on tfjs (dropout, or kernels without graphs), from the shared weights then current.
const shapes = graphModel(init.config, engine);
let tfjsModel: GPT | undefined;
const modelOnTfjs = (): GPT => (tfjsModel ??= new GPT(init.config, readWeights(view, init.layout), engine));
// The graph (scoring, and training without dropout) is fed this thread's own copy of the shared weights:
// onnxruntime-node's binding rejects shared buffers, and one copy here replaces assign's tensors and the dataSync
// copies that fed them back out. tfjs's paths compute with the model's variables, so those jobs assign first.
const own = new Float32Array(init.layout.total);
const ownWeights = new Map(init.layout.names.map((n, i) => [n, paramView(own, init.layout, i)]));
// which write of the shared buffer `own` and the model hold (the pool numbers its writes from 1; the model starts
// at the weights the pool was started with, which no job names)
let ownHolds = 0,
  modelHolds = 0;
// never drawn from: a model without dropout draws nothing, and one with dropout gets each microbatch's own state
const noDropout = Rng.fromSeed("pool worker: no dropout");

// the update's shared buffers as last sent (a job carries one only when it changed)
const held: { terms?: Float32Array; m?: Float32Array; v?: Float32Array } = {};
function keep(job: SharedBuffers): void {
  for (const key of ["terms", "m", "v"] as const) {
    const b = job[key];
    if (b) held[key] = new Float32Array(b);
  }
}

/** An owner's shared memory (the weights are the init's buffer). */
function shardMemory(job: ShardJob): ShardMemory {
  keep(job);
  if (!held.terms || !held.m || !held.v) throw new Error("an owner's job came before the update's shared buffers");
  return { layout: init.layout, weights: view, terms: held.terms, m: held.m, v: held.v };
}

// this thread's gradients of the last gradients job, kept until the next (as the calling thread keeps its own:
// dropped at once, the next graph run paid for their memory again)
const kept: { grads: Float32Array[][] } = { grads: [] };

function handle(job: Job): [Reply, ArrayBuffer[]] {
  if (job.kind === "memory") {
    const heap = (tf.backend() as { wasm?: { HEAPU8?: Uint8Array } }).wasm?.HEAPU8;
    return [{ kind: "memory", numTensors: tf.memory().numTensors, wasmBytes: heap ? heap.buffer.byteLength : null }, []];
  }
  // an owner's part of an update, on the parameters it owns, as the calling thread runs its own (shard_passes.ts)
  if (job.kind === "squares") return [{ kind: "squares", values: ownerSquares(shardMemory(job), job.count, job.params) }, []];
  if (job.kind === "check") return [{ kind: "check", bad: ownerCheck(shardMemory(job), job.count, job.params, job.k, job.decays) }, []];
  if (job.kind === "update") return [{ kind: "update", ...ownerUpdate(shardMemory(job), job.count, job.params, job.k, job.decays) }, []];
  const graph = job.kind === "scores" ? engine.graphs !== undefined : gradientPath(shapes) === "onnxruntime-graph";
  // the shared buffer is read again only when the caller wrote it since this copy was taken
  if (graph && ownHolds !== job.weights) {
    own.set(view);
    ownHolds = job.weights;
  } else if (!graph && modelHolds !== job.weights) {
    modelOnTfjs().assign(readWeights(view, init.layout));
    modelHolds = job.weights;
  }
  if (job.kind === "gradients") {
    const { layout } = init;
    keep(job);
    const terms = held.terms;
    if (!terms) throw new Error("a gradients job came before the update's shared buffer");
    kept.grads = [];
    const items = job.items.map(({ index: i, batch, dropout }) => {
      const dropoutRng = dropout ? Rng.restore(dropout) : noDropout;
      // as the calling thread computes them: the training graph on onnxruntime kernels without dropout, else tfjs
      const { grads, lossSum, count } = graph ? graphGradient(shapes, batch, ownWeights)! : modelGradient(modelOnTfjs(), batch, dropoutRng);
      kept.grads.push(grads);
      // into the update's shared terms, where each parameter's owner reads them
      grads.forEach((g, p) => paramView(terms, layout, p, i).set(g));
      return { index: i, lossSum, count };
    });
    return [{ kind: "gradients", items }, []];
  }
  // as the calling thread scores: the whole graph on onnxruntime kernels (one session per config), else tfjs
  const items = job.items.map(({ index: i, batch }) => ({
    index: i,
    nll: graph ? scoreBatch(shapes, batch, ownWeights) : scoreBatch(modelOnTfjs(), batch),
  }));
  return [{ kind: "scores", items }, items.map((it) => it.nll.buffer as ArrayBuffer)];
}

port.on("message", (job: Job) => {
  let out: [Reply, ArrayBuffer[]];
  try {
    out = handle(job);
  } catch (err) {
    out = [{ kind: "error", message: err instanceof Error ? err.message : String(err) }, []];
  }
  post(...out);
});
post({ kind: "ready" });
