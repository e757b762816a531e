// joinChunks: chunks joined in order, and a producer that reuses one buffer copied chunk by chunk.
import { describe, expect, it } from "vitest";
import { joinChunks } from "../../../src/util/primitives/bytes.ts";

describe("joinChunks", () => {
  it("joins chunks in order, empty ones and none included", () => {
    expect(joinChunks([Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)])).toEqual(Uint8Array.of(1, 2, 3));
    expect(joinChunks([])).toEqual(new Uint8Array(0));
  });

  it("with reused, copies each chunk as it comes from a producer that writes the next into the same buffer", () => {
    function* reusing() {
      const buffer = new Uint8Array(2);
      for (const pair of [
        [1, 2],
        [3, 4],
      ]) {
        buffer.set(pair);
        yield buffer;
      }
    }
    expect(joinChunks(reusing(), { reused: true })).toEqual(Uint8Array.of(1, 2, 3, 4));
    expect(joinChunks(reusing())).toEqual(Uint8Array.of(3, 4, 3, 4)); // kept as given: why the option exists
  });
});
