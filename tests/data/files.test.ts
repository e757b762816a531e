// Documents files (JSONL of text or token-id rows): what each row becomes, and a refusal naming the line for
// every malformed row.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocumentsJsonl, readDocumentsFile } from "../../src/data/files.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";

const tok = new ByteTokenizer(266);
const parse = (text: string) => parseDocumentsJsonl(text, tok, "docs.jsonl");
const dir = mkdtempSync(join(tmpdir(), "tinylab-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("documents files", () => {
  it("encodes text rows as BOS + bytes + EOS and takes id rows as given; blank lines and CRLF are fine", () => {
    const docs = parse([
      '{"id":"t1","split":"train","source":"made up","text":"ab"}',
      "",
      '{"id":"v1","split":"validation","ids":[0,99,100,1]}\r',
      '{"id":"x1","split":"test","source":"s","ids":[5,6]}',
    ].join("\n"));
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
    ["one id", '{"id":"b","split":"train","ids":[0]}', /line 2: "ids" has 1 id\(s\); a document needs a context id and at least one target/],
    ["a fractional id", '{"id":"b","split":"train","ids":[0,1.5]}', /line 2: ids\[1\] is not an integer: 1.5/],
    ["an id past the vocabulary", '{"id":"b","split":"train","ids":[0,266]}', /line 2: ids\[1\] = 266 is outside the vocabulary \[0, 266\)/],
    ["a negative id", '{"id":"b","split":"train","ids":[-1,3]}', /line 2: ids\[0\] = -1 is outside/],
    ["a repeated id", ok, /line 2: document id "a" already used on line 1/],
    ["a non-string source", '{"id":"b","split":"train","source":3,"text":"x"}', /line 2: "source" must be a string/],
  ])("refuses %s, naming the line", (_, line, message) => {
    expect(() => parse(`${ok}\n${line}\n`)).toThrow(message);
  });

  it("refuses a file with no documents", () => {
    expect(() => parse("\n  \n")).toThrow(/docs\.jsonl: no documents/);
  });
});
