// Test helpers: backend set-up per describe block and leak checks. Not a test file itself.
import { initBackend, tf, type BackendChoice } from "../src/util/backend.ts";

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

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
