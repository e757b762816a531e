// The decoder's typed config with its defaults, override checking and the named presets used by experiments.
// Not the model itself (gpt.ts) and not training settings (src/train).
import { bool, int, num, type Schema } from "../util/formats/schema.ts";

/** Shape of a GPT-style decoder. Saved with every result and checkpoint. */
export interface ModelConfig {
  vocabSize: number;
  contextLength: number;
  nLayers: number;
  dModel: number;
  nHeads: number;
  dFF: number;
  dropout: number;
  /** Output head shares the token-embedding matrix (transposed). */
  tiedHead: boolean;
}

export const DEFAULT_MODEL_CONFIG: ModelConfig = {
  vocabSize: 266,
  contextLength: 8,
  nLayers: 1,
  dModel: 8,
  nHeads: 2,
  dFF: 16,
  dropout: 0,
  tiedHead: true,
};

/** Named configurations; `overfit` is the fixture of the overfitting experiment. */
export const PRESETS: Record<string, ModelConfig> = {
  overfit: { ...DEFAULT_MODEL_CONFIG },
  micro: { vocabSize: 4, contextLength: 4, nLayers: 1, dModel: 4, nHeads: 2, dFF: 8, dropout: 0, tiedHead: true },
  medium: { vocabSize: 512, contextLength: 128, nLayers: 4, dModel: 128, nHeads: 4, dFF: 512, dropout: 0, tiedHead: true },
};

/** Merge overrides onto a base config: unknown keys and wrong types are refused, then the result is validated. */
export function resolveModelConfig(
  overrides: Record<string, unknown> = {},
  base: ModelConfig = DEFAULT_MODEL_CONFIG,
  names: FieldNames = {},
): ModelConfig {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    // own keys only: `in` also finds Object.prototype's ("constructor", "__proto__"), which would pass as fields
    if (!Object.hasOwn(base, key)) throw new Error(`unknown model config key "${key}" (known: ${Object.keys(base).join(", ")})`);
    const want = typeof (base as unknown as Record<string, unknown>)[key];
    if (typeof value !== want) throw new Error(`model config "${key}" must be a ${want}, got ${JSON.stringify(value)}`);
    out[key] = value;
  }
  return validateModelConfig(out as unknown as ModelConfig, names);
}

/** How a refusal names a field: by the option that set it (`--vocab`, from the command line), else by its key. */
export type FieldNames = Partial<Record<keyof ModelConfig, string>>;

// Size limits, checked before anything is allocated: beyond them a typed array or a tfjs tensor fails deep inside
// the engine ("Invalid typed array length") or the process runs out of memory. Far above anything this lab trains
// (the Brown model has 0.46M parameters), low enough that a model, its AdamW moments and gradients fit in memory.
/** 2^20 token ids: a byte-level BPE a hundred times larger than the Brown lab's 512 still fits. */
export const MAX_VOCAB_SIZE = 2 ** 20;
/** 4096 positions: attention allocates [B, heads, T, T] scores, 64 MiB per head and row at T = 4096. */
export const MAX_CONTEXT_LENGTH = 4096;
/** 2^27 parameters: 512 MiB of float32 weights, ×4 with gradients and AdamW's two moments (2 GiB in all). */
export const MAX_PARAMETERS = 2 ** 27;

/**
 * Each field's type and range as a file states it (a model file's `config`, --model-config): an integer field
 * written 266.0 is refused, as tools/score.py refuses it. Cross-field rules are validateModelConfig's.
 */
export const MODEL_CONFIG_FIELDS = {
  vocabSize: int({ min: 1, max: MAX_VOCAB_SIZE }),
  contextLength: int({ min: 1, max: MAX_CONTEXT_LENGTH }),
  nLayers: int({ min: 1 }),
  dModel: int({ min: 1 }),
  nHeads: int({ min: 1 }),
  dFF: int({ min: 1 }),
  dropout: num({ min: 0, below: 1 }),
  tiedHead: bool,
} satisfies Record<keyof ModelConfig, Schema<unknown>>;

/** Refuse configs the model cannot build, naming the field. */
export function validateModelConfig(c: ModelConfig, names: FieldNames = {}): ModelConfig {
  const key = (k: keyof ModelConfig) => names[k] ?? k;
  const field = (k: keyof ModelConfig) => names[k] ?? `model config ${k}`;
  const positiveInts: (keyof ModelConfig)[] = ["vocabSize", "contextLength", "nLayers", "dModel", "nHeads", "dFF"];
  for (const k of positiveInts) {
    const v = c[k];
    if (typeof v !== "number" || !Number.isInteger(v) || v <= 0)
      throw new Error(`${field(k)} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  if (c.vocabSize > MAX_VOCAB_SIZE) throw new Error(`${field("vocabSize")} must be ≤ ${MAX_VOCAB_SIZE} (2^20), got ${c.vocabSize}`);
  if (c.contextLength > MAX_CONTEXT_LENGTH)
    throw new Error(`${field("contextLength")} must be ≤ ${MAX_CONTEXT_LENGTH}, got ${c.contextLength}`);
  // closed form through the shapes of a 0- and a 1-block model, so a huge nLayers is never looped over
  const base = parameterCount({ ...c, nLayers: 0 }),
    perBlock = parameterCount({ ...c, nLayers: 1 }) - base;
  const count = base + c.nLayers * perBlock;
  if (count > MAX_PARAMETERS) {
    const shape = `${key("vocabSize")} ${c.vocabSize}, ${key("contextLength")} ${c.contextLength}, ${key("nLayers")} ${c.nLayers}, ${key("dModel")} ${c.dModel}, ${key("dFF")} ${c.dFF}${c.tiedHead ? "" : ", untied head"}`;
    throw new Error(`model config has ${count} parameters, more than the limit ${MAX_PARAMETERS} (2^27) (${shape})`);
  }
  if (c.dModel % c.nHeads !== 0) throw new Error(`${field("dModel")} (${c.dModel}) must be divisible by ${key("nHeads")} (${c.nHeads})`);
  if (!(c.dropout >= 0 && c.dropout < 1)) throw new Error(`${field("dropout")} must be in [0, 1), got ${c.dropout}`);
  if (typeof c.tiedHead !== "boolean") throw new Error(`${field("tiedHead")} must be a boolean`);
  return c;
}

/** Every parameter's name and shape, in a fixed order shared by the tfjs model, the reference and checkpoints. */
export function parameterShapes(c: ModelConfig): [string, number[]][] {
  const { vocabSize: V, contextLength: T, dModel: C, dFF: F } = c;
  const shapes: [string, number[]][] = [
    ["wte", [V, C]],
    ["wpe", [T, C]],
  ];
  for (let l = 0; l < c.nLayers; l++) {
    const p = `h${l}.`;
    shapes.push(
      [p + "ln1.g", [C]],
      [p + "ln1.b", [C]],
      [p + "attn.wqkv", [C, 3 * C]],
      [p + "attn.bqkv", [3 * C]],
      [p + "attn.wo", [C, C]],
      [p + "attn.bo", [C]],
      [p + "ln2.g", [C]],
      [p + "ln2.b", [C]],
      [p + "mlp.w1", [C, F]],
      [p + "mlp.b1", [F]],
      [p + "mlp.w2", [F, C]],
      [p + "mlp.b2", [C]],
    );
  }
  shapes.push(["lnf.g", [C]], ["lnf.b", [C]]);
  if (!c.tiedHead) shapes.push(["head", [C, V]]);
  return shapes;
}

export function parameterCount(c: ModelConfig): number {
  return parameterShapes(c).reduce((n, [, s]) => n + s.reduce((a, b) => a * b, 1), 0);
}
