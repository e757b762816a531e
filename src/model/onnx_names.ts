// The tensor names of the decoder's ONNX graphs (onnx.ts's forms, onnx_train.ts's training step), apart from the
// builders: what feeds a graph and reads its outputs needs the names only, and the builders import protobuf,
// which a run on tfjs's kernels never loads (graph_builders.ts).

/** The batch axis's name; transformers.js builds its empty cache from input metadata and looks for exactly this. */
export const BATCH_AXIS = "batch_size";

export const INPUT_IDS = "input_ids",
  ATTENTION_MASK = "attention_mask",
  POSITION_IDS = "position_ids",
  LOGITS = "logits";
/** The scoring form's extra names: the additive mask input.ts builds (segments included), the targets, −ln p(target). */
export const ATTENTION_BIAS = "attention_bias",
  TARGETS = "targets",
  NLL = "nll";
/** Names of layer l's cache tensors, [batch_size, heads, past | total, head_dim]: transformers.js's names for a decoder. */
export const pastName = (l: number, kv: "key" | "value") => `past_key_values.${l}.${kv}`;
export const presentName = (l: number, kv: "key" | "value") => `present.${l}.${kv}`;

/** The training form's extra input (float32 [B, S]: 1 where a target counts) and its outputs. */
export const TARGET_MASK = "target_mask",
  LOSS_SUM = "loss_sum";
export const gradName = (param: string) => `grad.${param}`;
