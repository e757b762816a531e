// gradient_terms: re-adding a parameter's microbatch terms gives the bits of the float64 accumulator it replaces.
import { describe, expect, it } from "vitest";
import { sumOfSquares, sumTerms } from "../../src/train/gradient_terms.ts";

/** The reduction sumTerms replaces: a zeroed float64 accumulator, each term added in order. */
function accumulated(terms: Float32Array[]): Float64Array {
  const acc = new Float64Array(terms[0].length);
  for (const t of terms) for (let j = 0; j < acc.length; j++) acc[j] += t[j];
  return acc;
}

describe("gradient terms", () => {
  // -0 alone sums to +0 (0 + -0), as the accumulator's first addition gives; 1e-8 + 1 + -1 is not 1e-8 in float32
  // terms added in float64 only if the order is kept: the cases cover one, two and four terms
  const values = [-0, 0, 1e-8, 1, -1, 3.5e38, -3.5e38, 0.1, 7e-46];
  const term = (shift: number) => Float32Array.from(values, (_, i) => values[(i + shift) % values.length]);
  for (const count of [1, 2, 4]) {
    it(`${count} term(s): the accumulator's bits, element by element and squared`, () => {
      const terms = Array.from({ length: count }, (_, k) => term(k * 3));
      const out = new Float64Array(values.length);
      sumTerms(terms, out);
      const want = accumulated(terms);
      for (let j = 0; j < out.length; j++) expect(Object.is(out[j], want[j])).toBe(true);
      let sq = 0;
      for (const a of want) sq += a * a;
      expect(Object.is(sumOfSquares(terms), sq)).toBe(true);
    });
  }
});
