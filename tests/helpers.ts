// Test helpers: backend set-up per describe block, leak checks, and model/state files by path (the lab itself
// works on bytes; src/node/disk.ts reads and writes them). Not a test file itself.
import { Rng } from "../src/util/primitives/rng.ts";
import { parameterShapes, PRESETS, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { gradcheckParameters } from "../src/model/gradcheck.ts";
import { toModelInput, type ModelInput } from "../src/model/input.ts";
import type { ParamArrays } from "../src/model/init.ts";
import { initBackend, tf, type BackendChoice } from "../src/util/backend.ts";
import { readSafetensorsBytes } from "../src/node/disk.ts";
import { writeFileAtomic, sha256Bytes } from "../src/node/atomic.ts";
import type { GPT } from "../src/model/gpt.ts";
import type { Tokenizer } from "../src/data/tokenizer.ts";
import { decodeModelFile, encodeModel, type LoadedModel } from "../src/lab/model_file.ts";
import type { ModelProvenance } from "../src/lab/model_metadata.ts";
import { ModelFileError } from "../src/lab/file_checks.ts";
import { decodeTrainState, type TrainSnapshot } from "../src/lab/state_file.ts";

/** Backends every guard test runs on (tensorflow only if installed: not in CI). */
export const TEST_BACKENDS: BackendChoice[] = ["cpu", "wasm"];

export async function useBackend(name: BackendChoice): Promise<void> {
  await initBackend(name);
}

/** Run `f` and return how many tensors it left behind. */
export function leakedBy(f: () => void): number {
  const before = tf.memory().numTensors;
  f();
  return tf.memory().numTensors - before;
}

/** How many entries differ in their float32 bits (a loop: deep-equality of a 1M-entry array takes seconds). */
export function bitDiffs(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  const [x, y] = [new Uint32Array(a.buffer, a.byteOffset, a.length), new Uint32Array(b.buffer, b.byteOffset, b.length)];
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  return n;
}

/** A seeded array of standard normals. */
export const randomArray = (rng: Rng, size: number): Float32Array => Float32Array.from({ length: size }, () => rng.normal());

/**
 * Random weights for a config, each parameter from its own child stream: matrices 0.3·N(0, 1) (not GPT-2's 0.02,
 * whose logits are nearly flat and whose greedy choices nearly tie), vectors 0.1·N(0, 1), gains 1 + that.
 */
export function randomWeights(config: ModelConfig, rng: Rng): ParamArrays {
  return new Map(
    parameterShapes(config).map(([name, shape]) => {
      const a = randomArray(
        rng.child(name),
        shape.reduce((x, y) => x * y, 1),
      ).map((v) => v * (shape.length > 1 ? 0.3 : 0.1));
      if (name.endsWith(".g"))
        a.forEach((v, i) => {
          a[i] = 1 + v;
        });
      return [name, a];
    }),
  );
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** A model file by path; the caller disposes the model. */
export function loadModel(path: string): LoadedModel {
  return decodeModelFile(readSafetensorsBytes(path, "model file", ModelFileError), path);
}

/** Write a model file atomically; returns its sha256. */
export function saveModel(path: string, model: GPT, tokenizer: Tokenizer, prov: ModelProvenance): string {
  const bytes = encodeModel(model.read(), model.config, tokenizer.toJSON(), prov);
  writeFileAtomic(path, bytes);
  return sha256Bytes(bytes);
}

/** A training-state file by path. */
export function loadTrainState(path: string): TrainSnapshot {
  return decodeTrainState(readSafetensorsBytes(path, "training-state file", ModelFileError), path);
}

/**
 * The float64 reference's agreement cases (tests/model/reference.test.ts, tests/node/native_kernels.test.ts): the
 * overfit config and a 2-layer untied one, each with its gradcheck parameters and a packed-and-padded input.
 */
export function referenceCases(): { config: ModelConfig; params: ParamArrays; input: ModelInput }[] {
  const configs = [
    PRESETS.overfit,
    resolveModelConfig({ vocabSize: 300, contextLength: 8, nLayers: 2, dModel: 12, nHeads: 3, dFF: 20, tiedHead: false }),
  ];
  return configs.map((config) => ({
    config,
    params: gradcheckParameters(config, Rng.fromSeed(11).child(`p${config.nLayers}`)),
    input: toModelInput(
      [
        [0, 99, 99, 100, 1, 0, 100, 1],
        [0, 100, 99, 99, 1, 0, 0, 0],
      ],
      [
        [0, 0, 0, 0, 0, 1, 1, 1],
        [2, 2, 2, 2, 2, -1, -1, -1],
      ],
      config,
    ),
  }));
}
