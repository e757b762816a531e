// The decoder adapter's state fingerprint: the same digest node:crypto gives over the same bytes in the same
// order (names as UTF-8, weights as raw float32, RNG states as JSON), so fingerprints stay comparable.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GPT } from "../../../src/model/gpt.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";
import { tf } from "../../../src/util/backend.ts";
import { tinyDecoder } from "../tiny_model.ts";
import { useBackend } from "../../helpers.ts";

describe("decoderAdapter.stateFingerprint", () => {
  let model: GPT;
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(2);
  });
  afterAll(() => model.dispose());

  it("equals node:crypto's sha256 over names, weights and RNG states in order", () => {
    const watched = new Map<string, tf.Tensor>([["ünïcode step", tf.scalar(3, "int32")]]);
    const rngs = [Rng.fromSeed(1).child("dropout"), Rng.fromSeed(2)];
    rngs[0].int(10);
    const ref = createHash("sha256");
    for (const [name, v] of [...model.params, ...watched]) {
      ref.update(name);
      const data = v.dataSync();
      ref.update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    }
    for (const r of rngs) ref.update(JSON.stringify(r.state()));
    expect(decoderAdapter(model, { watched, rngs }).stateFingerprint()).toBe(ref.digest("hex"));
    watched.forEach((t) => t.dispose());
  });
});
