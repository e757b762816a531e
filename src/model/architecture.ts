// What the decoder computes, stated as data: the `architecture` a model file declares so that another
// implementation can score it. Not the computation itself (gpt.ts, ops.ts, reference.ts implement it).
import type { ModelConfig } from "./config.ts";
import { ACTIVATION, ATTENTION_SCALE, LN_EPS, LN_VARIANCE } from "./ops.ts";

/** The decoder's architecture, key by key as docs/model-format.md defines them. */
export interface Architecture {
  family: "gpt2";
  activation: string;
  /** LayerNorm before attention and before the MLP in each block (gpt.ts forward), plus a final one. */
  layer_norm: "pre";
  layer_norm_eps: number;
  layer_norm_variance: string;
  /** Every linear map is y = x·W + b with W stored [in, out] (ops.ts linear). */
  weight_layout: "in_out";
  /** attn.wqkv [C, 3C] holds q, k, v as column blocks in that order (gpt.ts attention). */
  qkv_packing: "q|k|v";
  attention_scale: string;
  /** Positions restart at 0 in every row and at every document start within a row (input.ts positionsOf). */
  positions: "per_row";
  /** A query sees keys at or before it within its own document segment of its row (input.ts attentionMask). */
  attention: "causal_within_row";
  head: "tied" | "untied";
  biases: true;
}

/** The architecture this code implements for `config`; only `head` depends on the config. */
export function architectureOf(config: ModelConfig): Architecture {
  return {
    family: "gpt2",
    activation: ACTIVATION,
    layer_norm: "pre",
    layer_norm_eps: LN_EPS,
    layer_norm_variance: LN_VARIANCE,
    weight_layout: "in_out",
    qkv_packing: "q|k|v",
    attention_scale: ATTENTION_SCALE,
    positions: "per_row",
    attention: "causal_within_row",
    head: config.tiedHead ? "tied" : "untied",
    biases: true,
  };
}
