// Every reader refuses, before it reads, what cannot be a bounded input: a device (/dev/zero never ends), a FIFO
// (opening one blocks until a writer comes), a directory, a missing path (one wording for a loop of links and a
// file used as a directory), and a model file whose header does not describe exactly its size. A tokenizer is
// refused by what its merges would expand to, counted before its table is built.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BpeTokenizer, MAX_TOKEN_BYTES } from "../../src/data/bpe.ts";
import { readDocumentsBytes } from "../../src/node/files.ts";
import { readSplitFile } from "../../src/node/split_files.ts";
import { readTextInput } from "../../src/node/text_files.ts";
import { BYTE_OFFSET, BYTE_VOCAB } from "../../src/data/tokenizer.ts";
import { PRESETS } from "../../src/model/config.ts";
import { initParameters } from "../../src/model/init.ts";
import { decodeModelParts, encodeModel } from "../../src/lab/model_file.ts";
import { ModelFileError } from "../../src/lab/file_checks.ts";
import { readFileBytes, readSafetensorsBytes, requireFile } from "../../src/node/disk.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { reencode } from "../lab/file_edits.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-bounded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fifo = join(dir, "fifo");
execFileSync("mkfifo", [fifo]);
const loop = join(dir, "loop");
symlinkSync(loop, loop);
const file = join(dir, "a.txt");
writeFileSync(file, "text\n");

const prov = { seed: 1, update: 0, backend: "cpu", tfjs: "4.22.0", tinylab: "0.1.0" };
const modelBytes = (tokenizer = { kind: "byte", vocabSize: PRESETS.overfit.vocabSize }) =>
  encodeModel(initParameters(PRESETS.overfit, Rng.fromSeed(1).child("init")), PRESETS.overfit, tokenizer as never, prov);

describe("readers refuse what is not a bounded regular file, before reading", () => {
  it.each<[string, () => unknown, string]>([
    [
      "train --text /dev/zero",
      () => readTextInput("/dev/zero", false),
      "text file is not a regular file: /dev/zero (it is a character device)",
    ],
    [
      "train --text FIFO (would block)",
      () => readTextInput(fifo, false),
      `text file is not a regular file: ${fifo} (it is a FIFO (named pipe))`,
    ],
    [
      "evaluate --data /dev/zero",
      () => readDocumentsBytes("/dev/zero"),
      "documents file is not a regular file: /dev/zero (it is a character device)",
    ],
    ["evaluate --data FIFO", () => readDocumentsBytes(fifo), `documents file is not a regular file: ${fifo} (it is a FIFO (named pipe))`],
    [
      "a split file that is a FIFO",
      () => readSplitFile(fifo, { vocabSize: 4, contextLength: 4 } as never),
      `split file is not a regular file: ${fifo}`,
    ],
    [
      "a model file that is /dev/zero",
      () => readSafetensorsBytes("/dev/zero", "model file", ModelFileError),
      "model file is not a regular file: /dev/zero (it is a character device)",
    ],
    ["a directory", () => readFileBytes(dir, "model file"), `model file is not a regular file: ${dir} (it is a directory)`],
  ])("%s", (_, read, message) => {
    expect(read).toThrow(message);
  });

  it("says `not found` for a missing path, a loop of links and a file used as a directory, in every reader", () => {
    for (const read of [
      (p: string) => readFileBytes(p, "model file"),
      (p: string) => readSafetensorsBytes(p, "model file"),
      (p: string) => requireFile(p, "model file"),
    ]) {
      expect(() => read(join(dir, "absent"))).toThrow(`model file not found: ${join(dir, "absent")}`);
      expect(() => read(loop)).toThrow(`model file not found: ${loop} (a loop of symbolic links)`);
      expect(() => read(`${file}/`)).toThrow(`model file not found: ${file}/ (a part of the path is not a directory)`);
    }
  });

  it("refuses a file over its named limit before reading it (a sparse file: nothing is allocated)", () => {
    const big = join(dir, "big.jsonl");
    writeFileSync(big, "");
    truncateSync(big, 256 * 2 ** 20 + 1);
    expect(() => readDocumentsBytes(big)).toThrow(`documents file ${big} has 268435457 bytes, more than the 268435456 (256 MiB) limit`);
  });

  it("checks a model file's header against its size before its body: a valid model and 8 GiB of zeros after it", () => {
    const bytes = modelBytes();
    const path = join(dir, "padded.safetensors");
    writeFileSync(path, bytes);
    truncateSync(path, bytes.length + 2 ** 33); // sparse: more than one buffer holds, so only a header-first reader can say why
    expect(() => readSafetensorsBytes(path, "model file", ModelFileError)).toThrow(
      `${path}: not a valid safetensors file: 8589934592 trailing bytes after the last tensor's data`,
    );
    writeFileSync(path, bytes);
    expect(readSafetensorsBytes(path, "model file", ModelFileError)).toEqual(bytes);
  });
});

describe("a tokenizer's expansion is bounded before it is built", () => {
  /** Merges each joining the previous token with itself: token r is 2^(r+1) bytes. */
  const doubling = (n: number): [number, number][] =>
    Array.from({ length: n }, (_, r) => (r === 0 ? [BYTE_OFFSET + 97, BYTE_OFFSET + 97] : [BYTE_VOCAB + r - 1, BYTE_VOCAB + r - 1]));

  it("takes a token of MAX_TOKEN_BYTES and refuses the merge past it", () => {
    expect(MAX_TOKEN_BYTES).toBe(4096);
    expect(new BpeTokenizer(doubling(12)).bytesOf(BYTE_VOCAB + 11)).toHaveLength(4096);
    expect(() => new BpeTokenizer(doubling(13))).toThrow(
      `bpe merge 12 ([269,269]) expands to 8192 bytes, more than the 4096 a token may (MAX_TOKEN_BYTES)`,
    );
  });

  it("refuses merges whose tokens add up past MAX_TOKENIZER_BYTES, each token within its own limit", () => {
    // 128 chains doubling byte b to a 2048-byte token, then every pair of those: 16,384 distinct 4096-byte tokens
    const merges: [number, number][] = [];
    const top: number[] = [];
    for (let b = 0; b < 128; b++) {
      let id = BYTE_OFFSET + b;
      for (let k = 0; k < 11; k++) {
        merges.push([id, id]);
        id = BYTE_VOCAB + merges.length - 1;
      }
      top.push(id);
    }
    for (const x of top) for (const y of top) merges.push([x, y]);
    expect(() => new BpeTokenizer(merges)).toThrow(
      /^bpe merges 0\.\.\d+ expand to \d+ bytes in all, more than the 67108864 \(64 MiB\) a tokenizer may \(MAX_TOKENIZER_BYTES\)$/,
    );
    expect(() => new BpeTokenizer(merges.slice(0, -200))).not.toThrow();
  });

  it("refuses a re-signed model file with doubling merges, naming the file and the limit", () => {
    const bytes = reencode(
      modelBytes(),
      (_, m) => {
        m.tokenizer = JSON.stringify({ kind: "bpe", vocabSize: BYTE_VOCAB + 30, merges: doubling(30) });
        m.config = JSON.stringify({ ...JSON.parse(m.config), vocabSize: BYTE_VOCAB + 30 });
      },
      true,
    );
    expect(() => decodeModelParts(bytes, "m.safetensors")).toThrow(
      /^model file m\.safetensors: metadata "tokenizer": bpe merge 12 \(\[269,269\]\) expands to 8192 bytes, more than the 4096 a token may \(MAX_TOKEN_BYTES\)$/,
    );
  });
});
