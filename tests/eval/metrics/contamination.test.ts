// Contamination audit contracts: 003's casefolded 3-gram check, 13-gram default, thresholds,
// tokenization, and full-versus-filtered reporting.
import { describe, expect, it } from "vitest";
import { contaminationAudit, fullVsFiltered, wordTokens } from "../../../src/eval/metrics/contamination.ts";

const passage = "It was the best of times it was the worst of times it was the age of wisdom";

describe("wordTokens", () => {
  it("lowercases and splits on anything that is not a letter, digit or underscore", () => {
    expect(wordTokens("Hello, World! It's 2024_v2…")).toEqual(["hello", "world", "it", "s", "2024_v2"]);
    expect(wordTokens("  ")).toEqual([]);
  });

  it("folds case beyond ASCII, as Unicode casefold does for ß and accented capitals", () => {
    expect(wordTokens("STRASSE Straße ÉCOLE")).toEqual(["strasse", "strasse", "école"]);
  });
});

describe("contaminationAudit", () => {
  it("reproduces 003's check: 'A b c d' overlaps 'a b c d' at n = 3; 'a b' has no 3-grams", () => {
    const audit = contaminationAudit(
      [
        { id: "q0", text: "A b c d" },
        { id: "q1", text: "a b" },
      ],
      ["a b c d"],
      { n: 3 },
    );
    expect(audit.items[0]).toEqual({ id: "q0", hasNgrams: true, ngrams: 2, matched: 2, overlap: 1, flagged: true });
    expect(audit.items[1]).toEqual({ id: "q1", hasNgrams: false, ngrams: 0, matched: 0, overlap: 0, flagged: false });
    expect(audit.flaggedIds).toEqual(["q0"]);
    expect(audit.flaggedFraction).toBe(0.5);
    expect(audit.unauditable).toBe(1);
  });

  it("defaults to 13-grams, so a short question cannot be audited (003)", () => {
    const audit = contaminationAudit([{ id: "short", text: "What is the capital of France?" }], [passage]);
    expect(audit.n).toBe(13);
    expect(audit.items[0].hasNgrams).toBe(false);
    expect(audit.flaggedIds).toEqual([]);
  });

  it("flags any shared 13-gram by default and reports the fraction of the item's 13-grams found", () => {
    // 15 words → 3 thirteen-grams; only the first (the training passage's first 13 words, with case
    // and punctuation changed) is in training → overlap 1/3.
    const item = { id: "leak", text: "IT WAS the best, of times; it was the worst of times it IS NOT" };
    const clean = { id: "clean", text: "A freshly written question about tokenizers and byte pair merges that nobody has seen anywhere" };
    const audit = contaminationAudit([item, clean], [passage]);
    expect(audit.items[0]).toMatchObject({ ngrams: 3, matched: 1, flagged: true });
    expect(audit.items[0].overlap).toBeCloseTo(1 / 3, 12);
    expect(audit.items[1]).toMatchObject({ hasNgrams: true, matched: 0, overlap: 0, flagged: false });
    expect(audit.threshold).toBe(0);
    // A threshold above the item's overlap clears it; at or below keeps it flagged.
    expect(contaminationAudit([item], [passage], { threshold: 0.5 }).flaggedIds).toEqual([]);
    expect(contaminationAudit([item], [passage], { threshold: 1 / 3 }).flaggedIds).toEqual(["leak"]);
  });

  it("streams any iterable of training documents and never joins n-grams across documents", () => {
    function* docs() {
      yield "a b";
      yield "c d";
    }
    const audit = contaminationAudit([{ id: "x", text: "a b c d" }], docs(), { n: 2 });
    // Bigrams {a b, b c, c d}: "b c" spans the document boundary, so 2 of 3 match.
    expect(audit.items[0].matched).toBe(2);
  });

  it("returns an empty audit for no items", () => {
    expect(contaminationAudit([], [passage])).toMatchObject({ items: [], flaggedIds: [], flaggedFraction: NaN, unauditable: 0 });
  });

  it("refuses duplicate ids, a threshold outside [0, 1] and a bad order", () => {
    expect(() =>
      contaminationAudit(
        [
          { id: "a", text: "x" },
          { id: "a", text: "y" },
        ],
        [],
      ),
    ).toThrow(/duplicate item id "a"/);
    expect(() => contaminationAudit([], [], { threshold: 1.5 })).toThrow(/threshold must be in \[0, 1\], got 1.5/);
    expect(() => contaminationAudit([], [], { threshold: NaN })).toThrow(/threshold must be in \[0, 1\], got NaN/);
    expect(() => contaminationAudit([{ id: "a", text: "x" }], [], { n: 0 })).toThrow(/order must be a positive integer, got 0/);
  });
});

describe("fullVsFiltered", () => {
  const scores = [
    { id: "a", score: 1 },
    { id: "b", score: 0 },
    { id: "c", score: 1 },
    { id: "d", score: 1 },
  ];

  it("reports both denominators: 3/4 on all items, 1/2 without the flagged a and c", () => {
    expect(fullVsFiltered(scores, ["a", "c"])).toEqual({ full: { count: 4, mean: 0.75 }, filtered: { count: 2, mean: 0.5 }, removed: 2 });
    expect(fullVsFiltered(scores, [])).toEqual({ full: { count: 4, mean: 0.75 }, filtered: { count: 4, mean: 0.75 }, removed: 0 });
  });

  it("gives a NaN filtered mean when every item is flagged", () => {
    expect(fullVsFiltered(scores.slice(0, 1), ["a"]).filtered).toEqual({ count: 0, mean: NaN });
  });

  it("takes flagged ids straight from an audit", () => {
    const audit = contaminationAudit(
      [
        { id: "a", text: "a b c" },
        { id: "b", text: "x y z" },
      ],
      ["a b c"],
      { n: 3 },
    );
    expect(
      fullVsFiltered(
        [
          { id: "a", score: 1 },
          { id: "b", score: 0 },
        ],
        audit.flaggedIds,
      ).filtered,
    ).toEqual({ count: 1, mean: 0 });
  });

  it("refuses an unknown flagged id, a duplicate scored id and a non-finite score", () => {
    expect(() => fullVsFiltered(scores, ["z"])).toThrow(/flagged id "z" has no score/);
    expect(() => fullVsFiltered([...scores, { id: "a", score: 0 }], [])).toThrow(/duplicate item id "a" at index 4/);
    expect(() => fullVsFiltered([{ id: "a", score: NaN }], [])).toThrow(/score for item "a" is not finite/);
  });
});
