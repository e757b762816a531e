// The configs the benches compare on: medium, then the PyTorch peer's large and xl (../shared/peer/torch_decoder.py
// CONFIGS; xl is about nanoGPT's Shakespeare-character model), each built on the medium preset of the tree a bench
// measures (bench/step.ts and bench/update.ts load another checkout's modules). Not a recipe's config.
import type { ModelConfig } from "../src/model/config.ts";

/** medium, large and xl on `medium` (a tree's PRESETS.medium): vocabulary 512, context 128 or 256. */
export function peerConfigs(medium: ModelConfig): Record<"medium" | "large" | "xl", ModelConfig> {
  return {
    medium,
    large: { ...medium, contextLength: 256, nLayers: 6, dModel: 256, nHeads: 8, dFF: 1024 },
    xl: { ...medium, contextLength: 256, nLayers: 6, dModel: 384, nHeads: 6, dFF: 1536 },
  };
}

/** The config named by --config, or a one-line error naming the known ones. */
export function peerConfig(medium: ModelConfig, name: string | undefined): ModelConfig {
  const all: Record<string, ModelConfig> = peerConfigs(medium);
  const c = name === undefined ? undefined : all[name];
  if (!c) throw new Error(`--config: unknown config "${name}" (known: ${Object.keys(all).join(", ")})`);
  return c;
}
