// float32View: a tensor's values read in place on wasm (a view of the heap, so no model-sized copy per read), equal
// to dataSync's; dataSync's own array on cpu; another dtype refused by name. No tensor leaks.
import { afterAll, describe, expect, it } from "vitest";
import { float32View, tf } from "../../src/util/backend.ts";
import { useBackend } from "../helpers.ts";

describe("float32View", () => {
  afterAll(() => useBackend("wasm"));

  it.each(["wasm", "cpu"] as const)("on %s reads a float32 tensor's values as dataSync gives them", async (backend) => {
    await useBackend(backend);
    const tensors = tf.memory().numTensors;
    const t = tf.tensor([1.5, -2, 3.25, 0, 1e-30, 7], [2, 3]);
    const view = float32View(t);
    expect([...view]).toEqual([...(t.dataSync() as Float32Array)]);
    // in place on wasm: the view's buffer is the backend's heap, not a copy (dataSync's is a new buffer)
    const heap = (tf.backend() as { wasm?: { HEAPU8: Uint8Array } }).wasm?.HEAPU8.buffer;
    expect(view.buffer === heap).toBe(backend === "wasm");
    const ints = tf.tensor([1, 2, 3], [3], "int32");
    expect(() => float32View(ints)).toThrow("float32View: the tensor is int32, not float32");
    tf.dispose([t, ints]);
    expect(tf.memory().numTensors).toBe(tensors);
  });
});
