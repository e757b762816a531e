// The schema facility and its strict JSON parse: one line `<file>: <field>: <what> (got <value>)` per refusal, a key
// given twice refused (JSON.parse keeps the last), integers refused when written as floats, and JSON.parse's grammar.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseStrictJson } from "../../../src/util/formats/json_strict.ts";
import { arr, bool, int, nullable, num, obj, oneOf, optional, parseJsonFile, record, str } from "../../../src/util/formats/schema.ts";

const S = obj({
  n: int({ min: 0 }),
  x: num({ above: 0 }),
  s: str({ oneLine: true }),
  b: bool,
  k: oneOf(["a", "b"]),
  z: nullable(int()),
  o: optional(int()),
  list: arr(obj({ id: str() }), { unique: "id" }),
  m: record(int()),
});
const GOOD = { n: 1, x: 0.5, s: "t", b: true, k: "a", z: null, list: [{ id: "p" }, { id: "q" }], m: { a: 1 } };
const read = (text: string) => parseJsonFile(text, S, "f.json");

describe("strict JSON", () => {
  it("parses what JSON.parse parses, to the same value", () => {
    for (const t of ['{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"],"b":{}}', "[]", " 0 ", '"\\ud83d\\ude00"', '{"__proto__":1}']) {
      expect(parseStrictJson(t, "f").value).toEqual(JSON.parse(t));
    }
    expect(Object.keys(parseStrictJson('{"__proto__":1}', "f").value as object)).toEqual(["__proto__"]); // a field, not the prototype
  });

  it("refuses what JSON.parse refuses, and a key given twice, naming the file, the path and the place", () => {
    for (const t of ["{", "[1,]", "01", "{'a':1}", "NaN", '"a', "1 2", '{"a":1,}', '"\t"']) {
      expect(() => JSON.parse(t)).toThrow();
      expect(() => parseStrictJson(t, "f.json")).toThrow(/^f\.json: not valid JSON: .* at line \d+, column \d+$/);
    }
    expect(() => parseStrictJson('{"a":{"b":1,\n"b":2}}', "f.json")).toThrow(
      /^f\.json: not valid JSON: key "b" is given twice \(a\.b\) at line 2, column 1$/,
    );
    expect(() => parseStrictJson("[".repeat(MAX_JSON_DEPTH + 2), "f.json")).toThrow(/nested deeper than 64 levels/);
  });

  it("keeps the literal of a number its value does not print back", () => {
    const { literal } = parseStrictJson('{"a":266.0,"b":[1e3,0.5,7],"c":1e999}', "f");
    expect([literal("a"), literal("b[0]"), literal("b[1]"), literal("b[2]"), literal("c")]).toEqual([
      "266.0",
      "1e3",
      undefined,
      undefined,
      "1e999",
    ]);
  });
});

describe("schemas", () => {
  it("accepts a valid value and returns it typed (the control)", () => {
    expect(read(JSON.stringify(GOOD))).toEqual(GOOD);
    expect(read(JSON.stringify({ ...GOOD, o: 3 })).o).toBe(3);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["missing", { n: undefined }, "f.json: n: is missing (got nothing)"],
    ["null", { n: null }, "f.json: n: must be an integer, not null (got null)"],
    ["a string for an integer", { n: "1" }, 'f.json: n: must be an integer, not a string (got "1")'],
    ["out of range", { n: -1 }, "f.json: n: must be ≥ 0 (got -1)"],
    ["not above", { x: 0 }, "f.json: x: must be > 0 (got 0)"],
    ["a control character", { s: "a\nb" }, 'f.json: s: must be one line of text (no control characters) (got "a\\nb")'],
    ["not one of", { k: "c" }, 'f.json: k: must be one of "a", "b" (got "c")'],
    ["an unknown field", { extra: 1 }, "f.json: extra: is not a field here (the fields are n, x, s, b, k, z, o, list, m) (got 1)"],
    ["a duplicated id", { list: [{ id: "p" }, { id: "p" }] }, 'f.json: list[1].id: is given twice (also at list[0]) (got "p")'],
    ["a bad map value", { m: { "a b": "1" } }, 'f.json: m["a b"]: must be an integer, not a string (got "1")'],
    ["an array for an object", { list: [[]] }, "f.json: list[0]: must be an object, not an array (got [])"],
  ])("refuses %s in one line naming the field", (_, edit, expected) => {
    const v: Record<string, unknown> = { ...GOOD, ...edit };
    for (const [k, x] of Object.entries(edit)) if (x === undefined) delete v[k];
    expect(() => read(JSON.stringify(v))).toThrow(expected);
  });

  it("quotes numbers as written: an integer written as a float is refused, 1e999 is not finite", () => {
    expect(() => read(JSON.stringify(GOOD).replace('"n":1', '"n":1.0'))).toThrow(
      "f.json: n: must be an integer, written without a fraction or exponent (got 1.0)",
    );
    expect(() => read(JSON.stringify(GOOD).replace('"x":0.5', '"x":1e999'))).toThrow("f.json: x: must be a finite number (got 1e999)");
    expect(() => read(JSON.stringify(GOOD).replace('"n":1', '"n":9007199254740993'))).toThrow(
      /n: must be an integer of at most 2\^53 − 1 in size \(got 9007199254740993\)/,
    );
  });
});
