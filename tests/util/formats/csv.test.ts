// CSV tables: RFC 4180 quoting, null as an empty cell, CRLF rows, refusals.
import { describe, expect, it } from "vitest";
import { csvTable } from "../../../src/util/formats/csv.ts";

describe("csvTable", () => {
  it("quotes a cell holding a comma, a quote or a line break, and leaves the rest as written", () => {
    expect(
      csvTable(
        ["a", "b", "c"],
        [
          ["x,y", 'say "hi"', "two\nlines"],
          [1.5, null, true],
          [0.1 + 0.2, -0, "plain"],
        ],
      ),
    ).toBe('a,b,c\r\n"x,y","say ""hi""","two\nlines"\r\n1.5,,true\r\n0.30000000000000004,0,plain\r\n');
  });

  it("refuses a row of the wrong length and a non-finite number", () => {
    expect(() => csvTable(["a", "b"], [[1]])).toThrow("CSV: row 1 has 1 cells for 2 columns");
    expect(() => csvTable(["a"], [[NaN]])).toThrow("CSV: refusing to write the non-finite value NaN");
  });
});
