// Contract of the compensated sum: recovers bits plain summation loses, and passes non-finite values through.
import { describe, expect, it } from "vitest";
import { neumaierSum } from "../../src/eval/sum.ts";

describe("neumaierSum", () => {
  it("recovers small terms around a huge cancelling pair (where plain Kahan gives 0)", () => {
    // 1 + 1e100 loses the 1 in float64; Neumaier keeps it in the compensation: exact answer 2.
    expect([1, 1e100, 1, -1e100].reduce((s, v) => s + v, 0)).toBe(0);
    expect(neumaierSum([1, 1e100, 1, -1e100])).toBe(2);
  });

  it("sums ten 0.1s to exactly 1 where plain summation gives 0.9999999999999999", () => {
    const tenths = Array<number>(10).fill(0.1);
    expect(tenths.reduce((s, v) => s + v, 0)).not.toBe(1);
    expect(neumaierSum(tenths)).toBe(1);
  });

  it("accepts any iterable and returns 0 for an empty one", () => {
    function* gen() {
      yield 1.5;
      yield 2.5;
    }
    expect(neumaierSum(gen())).toBe(4);
    expect(neumaierSum([])).toBe(0);
  });

  it("returns Infinity or NaN as plain summation would, not NaN from the compensation", () => {
    expect(neumaierSum([1, Infinity, 2])).toBe(Infinity);
    expect(neumaierSum([Infinity, -Infinity])).toBeNaN();
    expect(neumaierSum([1, NaN])).toBeNaN();
  });
});
