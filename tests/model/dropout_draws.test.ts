// dropoutDraws equals the uniforms a training-mode forward really draws (counted), for several shapes; 0 without dropout.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { resolveModelConfig, PRESETS } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { initParameters } from "../../src/model/init.ts";
import { dropoutDraws } from "../../src/model/dropout_draws.ts";

beforeAll(() => initBackend("wasm"));

/** An Rng whose next() counts its calls (the forward pass reads nothing else of the dropout stream). */
function counting(): { rng: Rng; count: () => number } {
  const rng = Rng.fromSeed(3);
  let n = 0;
  const next = rng.next.bind(rng);
  rng.next = () => {
    n++;
    return next();
  };
  return { rng, count: () => n };
}

describe("dropoutDraws", () => {
  it.each([
    [{ dropout: 0.1 }, 1, 8],
    [{ dropout: 0.2, nLayers: 2, nHeads: 2 }, 3, 5],
    [{ dropout: 0 }, 2, 8],
  ])("counts the draws of one forward pass (%j, %i rows × %i columns)", (over, rows, cols) => {
    const config = resolveModelConfig(over, PRESETS.overfit);
    const model = new GPT(config, initParameters(config, Rng.fromSeed(1).child("init")));
    const input = { rows, cols, ids: new Int32Array(rows * cols).fill(1), docIds: new Int32Array(rows * cols) };
    const { rng, count } = counting();
    tf.tidy(() => {
      model.forward(input, { train: true, dropoutRng: rng });
    });
    model.dispose();
    expect(count()).toBe(dropoutDraws(config, input));
    if (config.dropout === 0) expect(count()).toBe(0);
    else expect(count()).toBeGreaterThan(0);
  });
});
