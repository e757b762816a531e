// Visible token text: special tokens marked, control characters escaped, multi-byte characters rejoined across tokens.
import { describe, expect, it } from "vitest";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { escapeControls, visibleText, visibleToken } from "../../src/cli/views/visible.ts";

const t = new ByteTokenizer(266);
const ids = (s: string) => t.encode(s);

describe("visible text", () => {
  it("escapes control characters and doubles backslashes", () => {
    expect(escapeControls("a\nb\tc\rd\u0000e\u007f\\")).toBe("a\\nb\\tc\\rd\\x00e\\x7f\\\\");
  });

  it("marks BOS, EOS and byte-less ids, and rejoins a character split over byte tokens", () => {
    expect(visibleText(t, [0, ...ids("é!"), 1, 260])).toBe("⟨bos⟩é!⟨eos⟩⟨id 260⟩");
    expect(visibleToken(t, ids("é")[0])).toBe("\ufffd"); // one byte of a two-byte character, alone
    expect(visibleToken(t, 0)).toBe("⟨bos⟩");
  });
});
