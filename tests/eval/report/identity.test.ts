// Evaluator identities: `eval-` + 16 hex of sha256 over name, settings and version, independent of key order
// and changed by any setting or version; model identities carry the file's sha256.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, evaluatorIdentity, modelIdentity } from "../../../src/eval/report/identity.ts";

describe("evaluatorIdentity", () => {
  it("is eval- plus the first 16 hex digits of sha256 over the canonical {name, settings, version}", () => {
    const e = evaluatorIdentity("windowed-perplexity", { stride: 64, context_length: 128 }, 1);
    const expected = createHash("sha256")
      .update('{"name":"windowed-perplexity","settings":{"context_length":128,"stride":64},"version":1}')
      .digest("hex")
      .slice(0, 16);
    expect(e.id).toBe(`eval-${expected}`);
    expect(e.id).toMatch(/^eval-[0-9a-f]{16}$/);
  });

  it("ignores key order and changes with any setting, the name or the version", () => {
    const a = evaluatorIdentity("x", { a: 1, b: { c: [1, 2], d: "e" } }, 1).id;
    expect(evaluatorIdentity("x", { b: { d: "e", c: [1, 2] }, a: 1 }, 1).id).toBe(a);
    expect(evaluatorIdentity("x", { a: 2, b: { c: [1, 2], d: "e" } }, 1).id).not.toBe(a);
    expect(evaluatorIdentity("x", { a: 1, b: { c: [2, 1], d: "e" } }, 1).id).not.toBe(a);
    expect(evaluatorIdentity("y", { a: 1, b: { c: [1, 2], d: "e" } }, 1).id).not.toBe(a);
    expect(evaluatorIdentity("x", { a: 1, b: { c: [1, 2], d: "e" } }, 2).id).not.toBe(a);
  });

  it("refuses an empty name, a bad version and values JSON cannot hold", () => {
    expect(() => evaluatorIdentity("", {}, 1)).toThrow(/name/);
    expect(() => evaluatorIdentity("x", {}, 0)).toThrow(/version/);
    expect(() => canonicalJson([() => 1])).toThrow(/function/);
    expect(canonicalJson({ x: NaN, y: undefined })).toBe('{"x":"NaN"}');
  });
});

describe("modelIdentity", () => {
  it("records the file's sha256 or null for an in-memory model", () => {
    const sha = "a".repeat(64);
    expect(modelIdentity("m.safetensors", { path: "m.safetensors", sha256: sha })).toEqual({
      name: "m.safetensors",
      path: "m.safetensors",
      sha256: sha,
    });
    expect(modelIdentity("decoder")).toEqual({ name: "decoder", path: null, sha256: null });
    expect(() => modelIdentity("m", { path: "m", sha256: "xyz" })).toThrow(/sha256/);
  });
});
