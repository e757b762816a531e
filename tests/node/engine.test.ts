// Opening the engine at the Node edge (src/node/engine.ts): the value carries its threads as chosen there, the
// workers as --workers gave them (absent when not given: the run's default decides) and onnxruntime's intra-op
// threads per session (INTRA_OP_THREADS).
import { afterAll, describe, expect, it } from "vitest";
import { openEngine } from "../../src/node/engine.ts";
import { openKernels } from "../../src/node/native_kernels.ts";
import { INTRA_OP_THREADS } from "../../src/node/onnxruntime.ts";

afterAll(() => openKernels("tfjs"));

describe("openEngine", () => {
  it("carries the workers as given and, on onnxruntime, its intra-op threads per session", async () => {
    const ort = await openEngine({ backend: "wasm", kernels: "onnxruntime", workers: 2 });
    expect(ort).toMatchObject({ backend: "wasm", kernels: "onnxruntime", workers: 2, intraOpThreads: INTRA_OP_THREADS });
    expect(INTRA_OP_THREADS).toBe(1); // a product's bits cannot depend on how many threads split it
    const tfjs = await openEngine({ backend: "wasm", kernels: "tfjs" });
    expect(tfjs).toEqual({ backend: "wasm", kernels: "tfjs" }); // no --workers: the run's default; no onnxruntime sessions
  });
});
