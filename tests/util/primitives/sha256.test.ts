// The TypeScript SHA-256 against FIPS 180-4 vectors and against node:crypto (the reference) on random input.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sha256, sha256Hex } from "../../../src/util/primitives/sha256.ts";

const node = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex");

/** Deterministic pseudo-random bytes (xorshift32), so a failure reproduces. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe("sha256", () => {
  it("gives the FIPS 180-4 / NIST example digests", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    expect(
      sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
    ).toBe("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    expect(sha256Hex(new Uint8Array(1_000_000).fill(0x61))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  it("agrees with node:crypto on every length 0..1000 and a few megabytes", () => {
    for (let n = 0; n <= 1000; n++) {
      const b = bytes(n, n + 1);
      expect(sha256Hex(b), `length ${n}`).toBe(node(b));
    }
    for (const n of [1 << 20, 3 * (1 << 20) + 7]) {
      const b = bytes(n, n);
      expect(sha256Hex(b), `length ${n}`).toBe(node(b));
    }
  });

  it("gives the same digest however the input is cut into updates, mixing bytes and strings", () => {
    const b = bytes(5000, 7);
    for (const cuts of [
      [1, 63, 64, 65, 127, 128, 3000],
      [500, 501, 502],
      [64, 128, 192],
    ]) {
      const h = new Sha256(),
        ref = createHash("sha256");
      let at = 0;
      for (const cut of [...cuts, b.length]) {
        h.update(b.subarray(at, cut));
        ref.update(b.subarray(at, cut));
        h.update(`cut ${cut}`);
        ref.update(`cut ${cut}`);
        at = cut;
      }
      expect(h.digest()).toBe(ref.digest("hex"));
    }
  });

  it("encodes strings as UTF-8 exactly as node's hash.update(string), lone surrogates included", () => {
    for (const s of ["héllo", "日本語", "emoji 😀", '{"k":[1,2]}', "lone \ud800 high", "lone \udc00 low", "end \ud83d"]) {
      expect(sha256Hex(s), JSON.stringify(s)).toBe(node(s));
    }
  });

  it("hashes strings of every length around the one-shot path's 16,384-unit limit and its padding boundaries as node does", () => {
    // sha256Hex hashes a string of at most 16,384 UTF-16 units in a reused buffer and a longer one incrementally:
    // both sides of the limit, 1- to 4-byte characters (the buffer must hold 3 bytes per unit), and the lengths
    // whose padding needs a second block (55, 56, 63, 64 bytes)
    for (const unit of ["a", "é", "語", "😀"]) {
      for (const n of [0, 1, 55, 56, 63, 64, 8191, 16_383, 16_384, 16_385, 40_000]) {
        const s = unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
        expect(sha256Hex(s), `${n} units of ${unit}`).toBe(node(s));
      }
    }
    // a string longer than the 2^20 units Sha256.update encodes at once, with a surrogate pair across the first cut
    const long = "a".repeat((1 << 20) - 1) + "😀" + "é".repeat(5000);
    expect(sha256Hex(long)).toBe(node(long));
    // one short hash leaves nothing behind for the next: a long one in between, then the short ones again
    expect([sha256Hex("x".repeat(300)), sha256Hex("ab")]).toEqual([node("x".repeat(300)), node("ab")]);
  });

  it("refuses updates after the digest", () => {
    const h = new Sha256().update("x");
    h.digest();
    expect(() => h.update("y")).toThrow(/update after digest/);
    expect(() => h.digest()).toThrow(/digest called twice/);
  });
});
