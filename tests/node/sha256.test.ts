// node:crypto's SHA-256 behind the core's seam (src/node/sha256.ts) against the plain TypeScript one: the same
// digest for every input, one-shot and incremental, so a split made with either names the same documents.
import { describe, expect, it } from "vitest";
import { nodeSha256 } from "../../src/node/sha256.ts";
import { jsSha256 } from "../../src/util/primitives/sha256.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

describe("node:crypto's SHA-256 and the plain TypeScript one", () => {
  it("give the same digests of strings (non-ASCII, lone surrogates, long) and bytes, one-shot and incremental", () => {
    const rng = Rng.fromSeed(3);
    const units = ["a", "é", "€", "𝄞", "\ud800", "\udc00", "\n", "\u0000", "\ufeff"];
    const strings = ["", "abc", "x".repeat(70_000), "é\ud800".repeat(9_000)];
    for (let k = 0; k < 300; k++)
      strings.push(Array.from({ length: Math.floor(rng.next() * 200) }, () => units[Math.floor(rng.next() * units.length)]).join(""));
    for (const s of strings) {
      expect(nodeSha256.hex(s), JSON.stringify(s.slice(0, 40))).toBe(jsSha256.hex(s));
      const bytes = new TextEncoder().encode(s);
      expect(nodeSha256.hex(bytes)).toBe(jsSha256.hex(bytes));
      // incremental, in pieces of bytes and strings: the digest of the whole
      const [a, b] = [nodeSha256.create(), jsSha256.create()];
      for (const h of [a, b]) for (const part of [s, bytes.subarray(0, 5), "tail"]) h.update(part);
      expect(a.digest()).toBe(b.digest());
    }
    expect(nodeSha256.hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
