// Documents files (JSONL of text or token-id rows): what each row becomes, and a refusal naming the line for
// every malformed row.
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MAX_FILE_BYTES, MAX_LINE_BYTES, parseDocumentsJsonl, readDocumentsFile } from "../../src/node/files.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";

const tok = new ByteTokenizer(266);
const parse = (text: string) => parseDocumentsJsonl(text, tok, "docs.jsonl");
const dir = mkdtempSync(join(tmpdir(), "tinylab-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("documents files", () => {
  it("encodes text rows as BOS + bytes + EOS and takes id rows as given; blank lines and CRLF are fine", () => {
    const docs = parse(
      [
        '{"id":"t1","split":"train","source":"made up","text":"ab"}',
        "",
        '{"id":"v1","split":"validation","ids":[0,99,100,1]}\r',
        '{"id":"x1","split":"test","source":"s","ids":[5,6]}',
      ].join("\n"),
    );
    // 'a' is byte 97 → id 99, 'b' → 100; BOS 0, EOS 1
    expect(docs).toEqual([
      { id: "t1", split: "train", source: "made up", ids: [0, 99, 100, 1] },
      { id: "v1", split: "validation", source: "docs.jsonl", ids: [0, 99, 100, 1] },
      { id: "x1", split: "test", source: "s", ids: [5, 6] },
    ]);
  });

  it("reads a file from disk and names a missing one", () => {
    const path = join(dir, "d.jsonl");
    writeFileSync(path, '\ufeff{"id":"a","split":"train","text":"x"}\n');
    expect(readDocumentsFile(path, tok)).toEqual([{ id: "a", split: "train", source: "d.jsonl", ids: [0, 122, 1] }]);
    expect(() => readDocumentsFile(join(dir, "none.jsonl"), tok)).toThrow(/documents file not found: .*none\.jsonl/);
  });

  const ok = '{"id":"a","split":"train","text":"x"}';
  it.each([
    ["not JSON", "{id: 1}", /docs\.jsonl line 2: not valid JSON/],
    ["an array", "[1,2]", /line 2: expected a JSON object/],
    ["no id", '{"split":"train","text":"x"}', /line 2: "id" must be a non-empty string/],
    ["a bad split", '{"id":"b","split":"dev","text":"x"}', /line 2: split must be one of train, validation, test, got "dev"/],
    ["both text and ids", '{"id":"b","split":"train","text":"x","ids":[0,1]}', /line 2: give exactly one of "text" and "ids"/],
    ["neither text nor ids", '{"id":"b","split":"train"}', /line 2: give exactly one of "text" and "ids"/],
    ["an unknown key", '{"id":"b","split":"train","txt":"x"}', /line 2: unknown key "txt"/],
    ["a non-string text", '{"id":"b","split":"train","text":5}', /line 2: "text" must be a string/],
    ["ids not an array", '{"id":"b","split":"train","ids":"0 1"}', /line 2: "ids" must be an array/],
    [
      "one id",
      '{"id":"b","split":"train","ids":[0]}',
      /line 2: "ids" has 1 id\(s\); a document needs a context id and at least one target/,
    ],
    ["a fractional id", '{"id":"b","split":"train","ids":[0,1.5]}', /line 2: ids\[1\] is not an integer: 1.5/],
    [
      "an id past the vocabulary",
      '{"id":"b","split":"train","ids":[0,266]}',
      /line 2: ids\[1\] = 266 is outside the vocabulary \[0, 266\)/,
    ],
    ["a negative id", '{"id":"b","split":"train","ids":[-1,3]}', /line 2: ids\[0\] = -1 is outside/],
    ["a repeated id", ok, /line 2: document id "a" already used on line 1/],
    ["a non-string source", '{"id":"b","split":"train","source":3,"text":"x"}', /line 2: "source" must be a string/],
  ])("refuses %s, naming the line", (_, line, message) => {
    expect(() => parse(`${ok}\n${line}\n`)).toThrow(message);
  });

  it("refuses a file with no documents", () => {
    expect(() => parse("\n  \n")).toThrow(/docs\.jsonl: no documents/);
  });

  it("hints at the format when the first line is not a JSON object (e.g. plain text), and only then", () => {
    const hint =
      '; a documents file has one JSON object per line: {"id": "...", "split": "train|validation|test", "source": "...", "text": "..."}';
    expect(() => parse("It was a dark and stormy night.\nThe end.\n")).toThrow(
      /^docs\.jsonl line 1: not valid JSON \(.*\); a documents file has one JSON/,
    );
    expect(() => parse("\n[1, 2]\n")).toThrow(
      `docs.jsonl line 2: expected a JSON object {"id", "split", "source", "text" or "ids"}${hint}`,
    );
    expect(() => parse(`${ok}\nplain text`)).toThrow(/line 2: not valid JSON \([^)]*\)$/);
  });

  it("refuses a lone surrogate (a JSON \\ud800 escape) naming the line and the key; a surrogate pair is fine", () => {
    expect(() => parse(`${ok}\n{"id":"b","split":"train","text":"ab\\ud800"}`)).toThrow(
      'docs.jsonl line 2: "text" holds a lone surrogate U+D800 at index 2',
    );
    expect(() => parse(`${ok}\n{"id":"\\udc00","split":"train","text":"x"}`)).toThrow(/line 2: "id" holds a lone surrogate U\+DC00/);
    expect(parse('{"id":"e","split":"train","text":"\\ud83d\\ude00"}')[0].ids).toEqual([0, 0xf0 + 2, 0x9f + 2, 0x98 + 2, 0x80 + 2, 1]);
  });

  it("refuses bytes that are not UTF-8 naming the line, never replacing them with U+FFFD", () => {
    const path = join(dir, "latin1.jsonl");
    const line2 = new TextEncoder().encode('{"id":"b","split":"train","text":"caf?"}');
    line2[line2.indexOf(63)] = 0xe9; // "é" in Latin-1: a lone UTF-8 lead byte
    writeFileSync(path, Buffer.concat([Buffer.from(`${ok}\n`), line2, Buffer.from(`\n${ok.replace('"a"', '"c"')}\n`)]));
    expect(() => readDocumentsFile(path, tok)).toThrow(`${path} line 2: not valid UTF-8 (a documents file must be UTF-8 text)`);
  });

  it("refuses a line over 8 MiB naming it, before parsing it", () => {
    expect(MAX_LINE_BYTES).toBe(8 * 2 ** 20);
    const path = join(dir, "long.jsonl");
    const long = `{"id":"b","split":"train","text":"${"a".repeat(MAX_LINE_BYTES)}"}`;
    writeFileSync(path, `${ok}\n${long}\n`);
    const jsonParse = vi.spyOn(JSON, "parse");
    try {
      expect(() => readDocumentsFile(path, tok)).toThrow(
        `${path} line 2: ${long.length} bytes, more than the 8388608 (8 MiB) a line may hold`,
      );
      expect(jsonParse).not.toHaveBeenCalled();
      expect(() => parse(`${ok}\n${long}`)).toThrow(
        `docs.jsonl line 2: ${long.length} characters, more than the 8388608 (8 MiB) a line may hold`,
      );
      expect(jsonParse).toHaveBeenCalledTimes(1); // line 1 only
    } finally {
      jsonParse.mockRestore();
    }
  });

  it("refuses a file over 256 MiB before reading it", () => {
    expect(MAX_FILE_BYTES).toBe(256 * 2 ** 20);
    const path = join(dir, "huge.jsonl");
    const fd = openSync(path, "w");
    ftruncateSync(fd, MAX_FILE_BYTES + 1); // sparse: no disk used
    closeSync(fd);
    expect(() => readDocumentsFile(path, tok)).toThrow(
      `documents file ${path} has 268435457 bytes, more than the 268435456 (256 MiB) limit`,
    );
  });
});
