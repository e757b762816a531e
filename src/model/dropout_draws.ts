// How many uniforms a training-mode forward pass draws from the dropout stream for one input, so a replica can
// start a microbatch's masks where the single-thread path would. Not dropout itself (gpt.ts draws the masks).
import type { ModelConfig } from "./config.ts";
import type { ModelInput } from "./input.ts";

/**
 * gpt.ts draws one uniform per element of each dropped tensor: the embeddings [B, S, C], then per layer the
 * attention probabilities [B, H, S, S], the attention output [B, S, C] and the MLP output [B, S, C]; none
 * when the rate is 0. tests/model/dropout_draws.test.ts counts the real draws against this.
 */
export function dropoutDraws(
  config: Pick<ModelConfig, "dropout" | "dModel" | "nHeads" | "nLayers">,
  input: Pick<ModelInput, "rows" | "cols">,
): number {
  if (config.dropout === 0) return 0;
  const { rows: B, cols: S } = input;
  const bsc = B * S * config.dModel;
  return bsc + config.nLayers * (B * config.nHeads * S * S + 2 * bsc);
}
