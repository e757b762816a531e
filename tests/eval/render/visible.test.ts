// Visible token text: special tokens marked, control characters escaped, multi-byte characters rejoined across tokens.
import { describe, expect, it } from "vitest";
import { ByteTokenizer } from "../../../src/data/tokenizer.ts";
import { visibleIds, visibleToken } from "../../../src/eval/render/visible.ts";
import { visibleChars } from "../../../src/util/render/text_view.ts";

const t = new ByteTokenizer(266);
const ids = (s: string) => t.encode(s);

describe("visible text", () => {
  it("escapes control characters and doubles backslashes", () => {
    expect(visibleChars("a\nb\tc\rd\u0000e\u007f\\")).toBe("a\\nb\\tc\\rd\\x00e\\x7f\\\\");
  });

  it("marks BOS, EOS and byte-less ids, and rejoins a character split over byte tokens", () => {
    expect(visibleIds(t, [0, ...ids("é!"), 1, 260])).toBe("⟨BOS⟩é!⟨EOS⟩⟨id 260⟩");
    expect(visibleToken(t, ids("é")[0])).toBe("⟨?⟩"); // one byte of a two-byte character, alone: invalid UTF-8
    expect(visibleToken(t, 0)).toBe("⟨BOS⟩");
  });
});
