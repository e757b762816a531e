// The report recipe's canary reference: scored with the model's own token ids, so a reference with another
// tokenizer (a BPE model beside a byte model) is refused before any pass, not scored on ids that mean other text.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReport } from "../../experiments/report.ts";
import { BYTE_OFFSET } from "../../src/data/tokenizer.ts";
import { encodeModel } from "../../src/lab/model_file.ts";
import { PRESETS } from "../../src/model/config.ts";
import { initParameters } from "../../src/model/init.ts";
import { tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { useBackend } from "../helpers.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("report --canary-reference", () => {
  beforeAll(() => useBackend("wasm"));

  it("refuses a reference whose tokenizer is not the model's, naming both, and leaks no tensor", () => {
    const c = PRESETS.overfit;
    // 8 merges: a BPE vocabulary of 266, the same size as the byte model's, so only the ids' meaning differs
    const merges = Array.from({ length: c.vocabSize - 258 }, (_, r) => [BYTE_OFFSET + 97, BYTE_OFFSET + 98 + r]);
    const bpe = join(dir, "bpe.safetensors");
    writeFileSync(
      bpe,
      encodeModel(initParameters(c, Rng.fromSeed(2).child("init")), c, { kind: "bpe", vocabSize: c.vocabSize, merges } as never, {
        seed: 2,
        update: 0,
        backend: "wasm",
        tfjs: "4.22.0",
        tinylab: "0.1.0",
      }),
    );
    const before = tf.memory().numTensors;
    expect(() => runReport({ model: FIXTURE, canary: { text: "abab", secretTokens: 2, reference: bpe } } as never)).toThrow(
      `--canary-reference ${bpe}: its tokenizer (bpe, vocabulary 266) is not the model's (byte, vocabulary 266), so the canary's token ids would mean other text under it`,
    );
    expect(tf.memory().numTensors).toBe(before);
  });
});
