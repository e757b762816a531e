// The one text-display helper of page and console: specials by name, escapes for control bytes, a marked
// placeholder for invalid UTF-8, and "(empty)" for nothing.
import { describe, expect, it } from "vitest";
import { continuationText, tokenText, visibleText } from "../../../src/util/render/text_view.ts";
import { ByteTokenizer } from "../../../src/data/tokenizer.ts";

describe("visibleText", () => {
  it("escapes control characters and shows empty text as (empty)", () => {
    expect(visibleText("a\nb\tc\u0001\u007f\\")).toBe("a\\nb\\tc\\x01\\x7f\\\\");
    expect(visibleText("")).toBe("(empty)");
    expect(visibleText(null)).toBe("(empty)");
    expect(visibleText("café — ok")).toBe("café — ok");
  });

  it("marks invalid UTF-8 from the byte tokenizer (half of a two-byte character)", () => {
    const t = new ByteTokenizer(266);
    const ids = t.encode("é"); // two bytes, two tokens
    expect(ids.length).toBe(2);
    expect(visibleText(t.decode([ids[0]]))).toBe("⟨?⟩");
  });
});

describe("tokenText and continuationText", () => {
  it("names BOS and EOS instead of printing nothing", () => {
    expect(tokenText(0, "")).toBe("⟨BOS⟩");
    expect(tokenText(1, "")).toBe("⟨EOS⟩");
    expect(tokenText(12, "\n")).toBe("\\n");
    expect(continuationText("", "stop-token")).toBe("⟨EOS⟩");
    expect(continuationText("ab", "stop-token")).toBe("ab⟨EOS⟩");
    expect(continuationText("", "length")).toBe("(empty)");
  });
});
