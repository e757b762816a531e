// Interrupting the Brown lab between two updates (as Ctrl-C does): the run stops there and saves that whole state,
// the same bytes as a run told to stop at that update, with no temp file left, and resumes from it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModelConfig } from "../../src/model/config.ts";
import { BROWN_DEFAULTS, runBrown, type BrownOptions } from "../../experiments/brown.ts";
import { useBackend } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-brown-interrupt-"));
const slice: Partial<BrownOptions> = {
  slice: { filesPerGenre: 3, chars: 2000 },
  vocab: 280,
  updates: 40,
  evalEvery: 20,
  saveEvery: 20,
  warmup: 5,
  model: resolveModelConfig({ vocabSize: 280, contextLength: 16, nLayers: 1, dModel: 16, nHeads: 2, dFF: 32 }),
  canary: { ...BROWN_DEFAULTS.canary, repetitions: 2 },
};

describe("brown lab interrupted", () => {
  beforeAll(() => useBackend("wasm"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("stops after the update in progress, saving exactly the state a planned stop there saves", async () => {
    const asked: number[] = [];
    const interrupted = await runBrown({
      ...BROWN_DEFAULTS,
      ...slice,
      out: join(dir, "i"),
      shouldStop: (done) => {
        asked.push(done);
        return done >= 27;
      },
    });
    expect(interrupted).toEqual({ stopped: 27, state: join(dir, "i", "train_state.safetensors") });
    expect(asked.slice(0, 2)).toEqual([0, 1]); // asked before the first update, then after every one
    const planned = await runBrown({ ...BROWN_DEFAULTS, ...slice, out: join(dir, "p"), stopAt: 27 });
    expect(planned).toEqual({ stopped: 27, state: join(dir, "p", "train_state.safetensors") });
    expect(readFileSync(join(dir, "i", "train_state.safetensors"))).toEqual(readFileSync(join(dir, "p", "train_state.safetensors")));
    expect(readdirSync(join(dir, "i")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    const h = JSON.parse(readFileSync(join(dir, "i", "history.json"), "utf8"));
    expect(h.entries.map((e: { update: number }) => e.update)).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
  });
});
