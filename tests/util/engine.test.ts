// How output names the engine (engineLabel): the backend and tfjs's own kernels on tfjs's; on onnxruntime's, what ran there:
// scoring as whole graphs always, and a training run's steps as the training graph unless dropout keeps them on
// tfjs autograd (the rule of src/model/graph_training.ts gradientPath; tests/cli/kernels.test.ts runs both).
import { describe, expect, it } from "vitest";
import { engineLabel } from "../../src/util/engine.ts";

const ORT = { backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" };

describe("engineLabel", () => {
  it("names the backend and its own kernels on tfjs's, training or not", () => {
    expect(engineLabel({ backend: "wasm", kernels: "tfjs" })).toBe("wasm (matrix products on tfjs's own wasm kernels)");
    expect(engineLabel({ backend: "cpu" }, { dropout: 0 })).toBe("cpu (matrix products on tfjs's own cpu kernels)");
  });

  it("on onnxruntime's kernels says what ran there: scoring, training graphs, or autograd under dropout", () => {
    expect(engineLabel(ORT)).toBe("wasm (matrix products and scoring on onnxruntime-node 1.30.0)");
    expect(engineLabel(ORT, { dropout: 0 })).toBe("wasm (training steps and scoring as whole graphs on onnxruntime-node 1.30.0)");
    expect(engineLabel(ORT, { dropout: 0.1 })).toBe("wasm (matrix products and scoring on onnxruntime-node 1.30.0; with dropout, gradients by tfjs autograd)");
    expect(engineLabel({ backend: "wasm", kernels: "onnxruntime" }, { dropout: 0 })).toBe("wasm (training steps and scoring as whole graphs on onnxruntime-node (version not recorded))");
  });
});
