// Runaways refused before the work, through the commands as typed: a model file holding a GiB its config does not
// call for (evaluate, report, sample, export), training shapes past the memory estimate, counts past their named
// limits, and the small hostile values (hex, 2^53 + 1, empty list elements, __proto__, invalid UTF-8, --lr 1e30),
// each in one line naming the option or the file, each in bounded time and memory.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tinylabHere } from "./in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid model file (the kept seed-39 fixture) plus a 1.2 GB F32 tensor its header declares: written sparse. */
function bloated(): string {
  const bytes = readFileSync(join(import.meta.dirname, "../fixtures/seed39-format2.safetensors"));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString("utf8")) as Record<string, unknown>;
  const end = bytes.length - 8 - n,
    extra = 1_200_000_000;
  header.extra = { dtype: "F32", shape: [extra / 4], data_offsets: [end, end + extra] };
  let text = JSON.stringify(header);
  text += " ".repeat((8 - (text.length % 8)) % 8);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
  const path = join(dir, "bloated.safetensors");
  writeFileSync(path, Buffer.concat([prefix, Buffer.from(text), bytes.subarray(8 + n)]));
  truncateSync(path, 8 + Buffer.byteLength(text) + end + extra);
  return path;
}

/**
 * Run `args` here and return its one line of refusal, checking its time and new memory against the bounds. Timed
 * on a second run: the first also loads the command's modules and starts the engine, which is start-up, not the
 * work the bound is about; and in CPU seconds, which other work on a shared machine does not stretch (reading
 * and copying a GiB costs them as surely as wall time).
 */
async function refusal(args: string[]): Promise<string> {
  const rss = process.memoryUsage.rss();
  const first = await tinylabHere(args);
  const cpu = process.cpuUsage();
  const r = await tinylabHere(args);
  const used = process.cpuUsage(cpu);
  const seconds = (used.user + used.system) / 1e6;
  expect(first.stderr).toBe(r.stderr);
  expect(seconds, `${args.join(" ")} took ${seconds.toFixed(2)} s`).toBeLessThan(1);
  expect(process.memoryUsage.rss() - rss, args.join(" ")).toBeLessThan(300 * 2 ** 20);
  expect([r.code, r.stdout], args.join(" ")).toEqual([1, ""]);
  return r.stderr;
}

describe("a model file with a 1.2 GB tensor its config does not call for", () => {
  const model = bloated();
  it.each([
    ["evaluate", "--model", model],
    ["report", "--model", model, "--out", join(dir, "report")],
    ["sample", "--model", model, "--prompt", "the"],
    ["export", "--model", model, "--format", "hf-gpt2", "--out", join(dir, "export")],
  ])("%s refuses it from the header, in under 1 CPU-second and 300 MB", async (...args) => {
    expect(await refusal(args)).toBe(`tinylab: error: model file ${model}: unexpected tensor "extra" for this config\n`);
  });
});

describe("training shapes past the memory estimate, refused naming the option before anything is allocated", () => {
  const text = join(dir, "t.txt");
  writeFileSync(text, "one document here.\n\nanother document there.\n\na third one.\n");
  it.each<[string[], string]>([
    [
      ["train", "--batch-rows", "1000000"],
      "--batch-rows 1000000 at --context 8 needs an estimated 31 GiB to train (0.03 MiB a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 96976 or fewer",
    ],
    [
      ["train", "--text", text, "--out", join(dir, "context"), "--context", "4096"],
      "--batch-rows 8 at --context 4096 needs an estimated 13 GiB to train (1.65 GiB a row; attention scores grow with the context squared: 2 layers × 4 heads × 4096² a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 1 or fewer, or lower --context",
    ],
    [
      ["train", "--text", text, "--out", join(dir, "vocab"), "--tokenizer", "byte", "--vocab", "1048576", "--d-model", "64"],
      "--batch-rows 8 at --context 128 needs an estimated 13 GiB to train (1.50 GiB a row; the logits grow with the vocabulary: 128 positions × --vocab 1048576 a row), more than the 3.00 GiB limit (MAX_TRAINING_BYTES); give --batch-rows 1 or fewer, or lower --vocab",
    ],
    // at the default width the vocabulary alone passes the parameter limit: refused naming the flags as typed
    [
      ["train", "--text", text, "--out", join(dir, "vocab2"), "--tokenizer", "byte", "--vocab", "1048576"],
      "model config has 134630912 parameters, more than the limit 134217728 (2^27) (--vocab 1048576, --context 128, --layers 2, --d-model 128, --d-ff 512)",
    ],
  ])("tinylab %j", async (args, message) => {
    expect(await refusal(args)).toBe(`tinylab: error: ${message}\n`);
  });
});

describe("a scoring batch past the memory estimate, refused naming --batch-rows before the model is built", () => {
  const model = join(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
  it("tinylab evaluate --batch-rows 1000000", async () => {
    // a row of the fixture (T 8, V 266, C 8, F 16, 2 heads, 1 layer): attention 4·1·2·2·8² = 1024, logits 4·2·8·266 = 17024,
    // widths 4·1·8·(8·8 + 2·16) = 3072 bytes; 21120 a row, so (3 GiB − the weights, 4 bytes a parameter) / 21120 = 152519 rows fit
    expect(await refusal(["evaluate", "--model", model, "--batch-rows", "1000000"])).toBe(
      "tinylab: error: --batch-rows 1000000 at the model's context 8 and vocabulary 266 needs an estimated 20 GiB to score (0.02 MiB a row), more than the 3.00 GiB limit (MAX_SCORING_BYTES); give --batch-rows 152519 or fewer\n",
    );
  });
});

describe("counts past their named limits and values no one means, refused where they are parsed", () => {
  const model = join(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
  it.each<[string[], string]>([
    [
      ["sample", "--model", model, "--prompt", "the", "--max-tokens", "1000000000"],
      "--max-tokens must be an integer in [1, 4096] (MAX_NEW_TOKENS: the longest context a model has), got 1000000000",
    ],
    [
      ["sample", "--model", model, "--prompt", "the", "--temperature", "1", "--samples", "1000000000"],
      "--samples must be an integer in [1, 1000] (MAX_SAMPLES), got 1000000000",
    ],
    [["train", "--updates", "9007199254740993"], "--updates must be a positive integer of at most 2^53 − 1 in size, got 9007199254740993"],
    [
      ["train", "--updates", "1e9"],
      "--updates must be a positive integer ≤ 100000000 (MAX_UPDATES: more is more than a day of updates), got 1e9",
    ],
    [["train", "--updates", "0x10"], "--updates must be a positive integer, written in decimal digits, got 0x10"],
    [["train", "--updates", "160e-1"], "--updates must be a positive integer, written without a fraction or negative exponent, got 160e-1"],
    [
      ["report", "--model", model, "--strides", "1,,2"],
      '--strides: element 2 of "1,,2" is empty; give each integer once, separated by single commas',
    ],
    [
      ["train", "--model-config", '{"__proto__":{"nLayers":3}}'],
      '--model-config: key "__proto__" is not a model-config field (the fields: vocabSize, contextLength, nLayers, dModel, nHeads, dFF, dropout, tiedHead)',
    ],
    [
      ["train", "--model-config", '{"constructor":1}'],
      '--model-config: key "constructor" is not a model-config field (the fields: vocabSize, contextLength, nLayers, dModel, nHeads, dFF, dropout, tiedHead)',
    ],
    [
      ["sample", "--model", model, "--prompt", "caf\uFFFD"],
      "--prompt: not valid UTF-8 (character 4 is U+FFFD, which stands for bytes that decode to no character; the text must be UTF-8, as --text's files must)",
    ],
  ])("tinylab %j", async (args, message) => {
    expect(await refusal(args)).toBe(`tinylab: error: ${message}\n`);
  });

  it("--lr 1e30: the divergence names the update and --lr", async () => {
    const r = await tinylabHere(["train", "--lr", "1e30", "--updates", "3"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      "tinylab: error: non-finite loss at update 2; no parameter was updated (update 1 moved the weights at learning rate 1e+30, from --lr 1e+30: the run diverged; a smaller --lr is the usual cure)",
    );
  });
});

describe("small samples said plainly", () => {
  it("train --text warns when a held-out split has fewer than 10 documents, naming the fraction option", async () => {
    const texts = join(dir, "fourteen.txt");
    writeFileSync(texts, Array.from({ length: 14 }, (_, i) => `document ${i} says a few words.`).join("\n\n"));
    const r = await tinylabHere([
      "train",
      "--text",
      texts,
      "--out",
      join(dir, "small"),
      "--tokenizer",
      "byte",
      "--updates",
      "1",
      "--context",
      "16",
      "--d-model",
      "8",
      "--heads",
      "1",
      "--layers",
      "1",
      "--d-ff",
      "16",
      "--batch-rows",
      "1",
      "--microbatches",
      "1",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("warning: the"))).toEqual([
      "warning: the validation split has 1 document, fewer than 10 (MIN_INTERVAL_DOCUMENTS): its NLL is one document's, too few for an interval; raise --validation-fraction (now 0.1) or give more documents",
      "warning: the test split has 1 document, fewer than 10 (MIN_INTERVAL_DOCUMENTS): its NLL is one document's, too few for an interval; raise --test-fraction (now 0.1) or give more documents",
    ]);
  });
});
