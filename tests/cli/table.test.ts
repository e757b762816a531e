// Console tables: every header starts (left-aligned) or ends (right-aligned) where its column does, whatever the
// width of the names; counts take the right number.
import { describe, expect, it } from "vitest";
import { count, formatTable } from "../../src/cli/views/table.ts";

describe("formatTable", () => {
  it("aligns each header with its column for short and long names", () => {
    for (const name of ["u", "unigram-prior bigram with a very long name (k=1)"]) {
      const lines = formatTable(
        ["baseline", "train NLL", "validation NLL"],
        [
          [name, "5.583496", "5.583496"],
          ["bigram", "4.402665", "15.044970"],
        ],
        ["l", "r", "r"],
      );
      const end = (line: string, s: string) => line.indexOf(s) + s.length;
      // right-aligned: the header's last character is above each value's last character
      expect(end(lines[1], "5.583496")).toBe(end(lines[0], "train NLL"));
      expect(end(lines[2], "15.044970")).toBe(end(lines[0], "validation NLL"));
      expect(lines[1].indexOf(name)).toBe(lines[0].indexOf("baseline"));
    }
  });

  it("refuses a ragged row", () => {
    expect(() => formatTable(["a", "b"], [["1"]], ["l", "r"])).toThrow(/1 cells, the header 2/);
  });
});

describe("count", () => {
  it("uses the singular for one only", () => {
    expect(count(1, "layer")).toBe("1 layer");
    expect(count(2, "layer")).toBe("2 layers");
    expect(count(0, "bin")).toBe("0 bins");
    expect(count(1, "row", "rows")).toBe("1 row");
  });
});
