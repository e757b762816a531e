// The engine a run computes on, as one value chosen at the edge (the CLI, a bench, the lab page) and handed to
// the run, the model adapters and the pool's workers: which tfjs backend, who multiplies, who runs whole graphs,
// on how many threads.
// Not its start-up (backend.ts initialises tfjs; src/node/engine.ts opens onnxruntime's kernels and graphs).

/** A float32, int64 or bool (one byte each) input of a graph run, row-major. */
export type GraphFeed =
  | { type: "float32"; data: Float32Array; dims: number[] }
  | { type: "int64"; data: BigInt64Array; dims: number[] }
  | { type: "bool"; data: Uint8Array; dims: number[] };
/** An ONNX model loaded into a session: feeds in, the named float32 outputs out in the order asked (synchronously). */
export type GraphSession = (feeds: Record<string, GraphFeed>, outputs: readonly string[]) => Float32Array[];
/** Loads ONNX model bytes into a session. */
export type GraphLoader = (bytes: Uint8Array) => GraphSession;

/** Who computes matrix products: tfjs's own kernels, or onnxruntime-node's (installed from the Node edge). */
export type Kernels = "tfjs" | "onnxruntime";

/** What a result records about the engine that produced it (the recorded part of an Engine). */
export interface EngineRecord {
  /** The tfjs backend that holds the tensors and runs every op the kernels below do not. */
  backend: string;
  /**
   * Who computed the matrix products (onnxruntime: onnxruntime-node's MLAS under the wasm backend); with
   * onnxruntime, scoring also ran the whole forward as one ONNX graph on it (src/model/graph_scoring.ts), and
   * training without dropout the whole step's forward and backward (src/model/graph_training.ts).
   */
  kernels: Kernels;
  /** The onnxruntime-node version, where kernels is onnxruntime. */
  onnxruntime?: string;
  /**
   * `tinylab`: scoring's attention ran on tinylab's causal kernel (native/tinylab_ort.c, built at install where it
   * can be) at the head sizes it takes, onnxruntime's `Attention` elsewhere; absent: onnxruntime's everywhere.
   * Training never uses it.
   */
  attention?: "tinylab";
}

/** The head sizes tinylab's causal attention kernel takes (native/tinylab_ort.c refuses others). */
export const CAUSAL_ATTENTION_HEAD_SIZES: readonly number[] = [32, 64];

/** tinylab's causal attention operator where the engine has it: who runs the scoring graphs that hold it. */
export interface CausalAttention {
  readonly graphs: GraphLoader;
}

/** Whether scoring a model of this shape on `engine` runs tinylab's causal attention. */
export const usesCausalAttention = (e: { causalAttention?: CausalAttention }, c: { dModel: number; nHeads: number }): boolean =>
  e.causalAttention !== undefined && takesCausalAttention(c);

/** Whether tinylab's causal kernel takes this model's head size (d_model ÷ heads). */
const takesCausalAttention = (c: { dModel: number; nHeads: number }): boolean => CAUSAL_ATTENTION_HEAD_SIZES.includes(c.dModel / c.nHeads);

/**
 * An engine: the recorded choice and, where the kernels are onnxruntime's, who runs whole graphs (scoring, and
 * training steps without dropout). Every worker of a pool opens the same engine, so any count computes the same bits.
 */
export interface Engine extends EngineRecord {
  /** Who runs whole ONNX graphs; absent: nobody, the model runs op by op on tfjs. */
  readonly graphs?: GraphLoader;
  /** Present exactly when `attention` is `tinylab`: scoring graphs whose attention is tinylab's kernel. */
  readonly causalAttention?: CausalAttention;
  /**
   * Threads a run shares its microbatches and scoring batches over, the calling one included (--workers); absent:
   * as many as the run's model pays for (src/train/pool.ts workersFor). A result records the count it used.
   */
  readonly workers?: number;
  /**
   * onnxruntime's intra-op threads per session (products and graphs), where kernels is onnxruntime: one, so
   * parallelism comes from `workers` and a product's bits cannot depend on how many threads split it.
   */
  readonly intraOpThreads?: number;
}

/** An engine on tfjs alone (its own kernels of `backend`, no graphs): the browser's, and the teaching recipes'. */
export const tfjsEngine = (backend: string): Engine => ({ backend, kernels: "tfjs" });

/** The recorded part of an engine (what provenance and model files keep). */
export const engineRecord = (e: EngineRecord): EngineRecord => ({
  backend: e.backend,
  kernels: e.kernels,
  ...(e.onnxruntime ? { onnxruntime: e.onnxruntime } : {}),
  ...(e.attention ? { attention: e.attention } : {}),
});

/**
 * How output names an engine: who multiplied, on onnxruntime what ran as whole graphs (training steps only without
 * dropout, `training` given: src/model/graph_training.ts gradientPath), tinylab's causal attention where scoring a
 * model of `model`'s shape (by default `training`'s) uses it (without a shape: at the head sizes it takes), and the workers where the value
 * holds them. A result's summary passes its engineRecord: the workers a default count used follow the machine's cores.
 */
export function engineLabel(
  e: { backend: string; kernels?: string; onnxruntime?: string; attention?: string; workers?: number },
  training?: { dropout: number; dModel?: number; nHeads?: number },
  model: { dModel?: number; nHeads?: number } | undefined = training,
): string {
  const on = e.kernels === "onnxruntime" ? `onnxruntime-node ${e.onnxruntime ?? "(version not recorded)"}` : e.kernels;
  const what =
    !e.kernels || e.kernels === "tfjs"
      ? `matrix products on tfjs's own ${e.backend} kernels`
      : training?.dropout === 0
        ? `training steps and scoring as whole graphs on ${on}`
        : `matrix products and scoring on ${on}${training ? "; with dropout, gradients by tfjs autograd" : ""}`;
  const shape = model?.dModel !== undefined && model.nHeads !== undefined ? { dModel: model.dModel, nHeads: model.nHeads } : undefined;
  const attention =
    e.attention !== "tinylab" || (shape !== undefined && !takesCausalAttention(shape))
      ? ""
      : `; scoring's attention on tinylab's causal kernel${shape !== undefined ? "" : ` (head sizes ${CAUSAL_ATTENTION_HEAD_SIZES.join(" and ")})`}`;
  return `${e.backend} (${what}${attention})${e.workers === undefined ? "" : `, workers ${e.workers}`}`;
}
