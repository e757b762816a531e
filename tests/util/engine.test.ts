// The engine as a value: what a result records of it (never its graph runner), and how output names it
// (engineLabel): the backend and tfjs's own kernels on tfjs's; on onnxruntime's, what ran there: scoring as whole
// graphs always, and a training run's steps as the training graph unless dropout keeps them on tfjs autograd (the
// rule of src/model/graph_training.ts gradientPath; tests/cli/kernels.test.ts runs both).
import { describe, expect, it } from "vitest";
import { engineLabel, engineRecord, tfjsEngine, type Engine } from "../../src/util/engine.ts";

describe("an engine value", () => {
  it("records its backend, kernels and onnxruntime version, and leaves its graph runner out of what a result keeps", () => {
    const onOrt: Engine = { backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0", graphs: () => () => [] };
    expect(engineRecord(onOrt)).toEqual({ backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" });
    expect(JSON.parse(JSON.stringify(engineRecord(onOrt)))).toEqual(engineRecord(onOrt));
    expect(tfjsEngine("cpu")).toEqual({ backend: "cpu", kernels: "tfjs" }); // no graphs: the model runs op by op
    expect(engineRecord(tfjsEngine("wasm"))).toEqual({ backend: "wasm", kernels: "tfjs" });
  });
});

const ORT = { backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" };

describe("engineLabel", () => {
  it("names the backend and its own kernels on tfjs's, training or not", () => {
    expect(engineLabel({ backend: "wasm", kernels: "tfjs" })).toBe("wasm (matrix products on tfjs's own wasm kernels)");
    expect(engineLabel({ backend: "cpu" }, { dropout: 0 })).toBe("cpu (matrix products on tfjs's own cpu kernels)");
  });

  it("on onnxruntime's kernels says what ran there: scoring, training graphs, or autograd under dropout", () => {
    expect(engineLabel(ORT)).toBe("wasm (matrix products and scoring on onnxruntime-node 1.30.0)");
    expect(engineLabel(ORT, { dropout: 0 })).toBe("wasm (training steps and scoring as whole graphs on onnxruntime-node 1.30.0)");
    expect(engineLabel(ORT, { dropout: 0.1 })).toBe(
      "wasm (matrix products and scoring on onnxruntime-node 1.30.0; with dropout, gradients by tfjs autograd)",
    );
    expect(engineLabel({ backend: "wasm", kernels: "onnxruntime" }, { dropout: 0 })).toBe(
      "wasm (training steps and scoring as whole graphs on onnxruntime-node (version not recorded))",
    );
  });
});

describe("an engine's threads", () => {
  it("are in its label where the value holds the workers, and out of what a result's engine record keeps", () => {
    const two: Engine = { backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0", workers: 2, intraOpThreads: 1 };
    expect(engineLabel(two, { dropout: 0 })).toBe(
      "wasm (training steps and scoring as whole graphs on onnxruntime-node 1.30.0), workers 2",
    );
    expect(engineLabel({ ...tfjsEngine("wasm"), workers: 1 })).toBe("wasm (matrix products on tfjs's own wasm kernels), workers 1");
    // provenance records the count a run used beside this record (src/util/runtime/provenance.ts workers)
    expect(engineRecord(two)).toEqual({ backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" });
  });
});
