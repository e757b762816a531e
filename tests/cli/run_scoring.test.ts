// A run directory as the input of every scorer: one tiny `train --text` run on a corpus built here (blank-line
// documents, run through the CLI's own code in this process), then evaluate --run (a process), report and compare (in process, through the CLI's own scoringText)
// and tools/score.py --run give the run's own validation NLL at the one stride; a changed text file is refused by
// name (by the CLI's own code run in process, tests/cli/in_process.ts, and by score.py); a text model given no data
// is refused naming --run; a text-trained model's provenance names its manifest.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { runReport } from "../../experiments/report.ts";
import { runCompare } from "../../experiments/compare.ts";
import { scoringText } from "../../src/cli/common.ts";
import { optionValues, SCORING_DATA } from "../../src/cli/options.ts";
import { readRunText } from "../../src/node/text_files.ts";
import { splitTexts } from "../../src/data/text_split.ts";
import { documentsOfText } from "../../src/data/text_documents.ts";
import { sourcesOfManifest } from "../../src/data/text_rebuild.ts";
import { sha256Hex } from "../../src/util/primitives/sha256.ts";
import { leakedBy, loadModel, useBackend } from "../helpers.ts";
import { ok, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const PYTHON = process.env.TINYLAB_PYTHON ?? "/usr/bin/python3"; // as tests/tools/models.ts
const SCORE = resolve(import.meta.dirname, "../../tools/score.py");
/** score.py is float64, tinylab float32: agreement within tests/tools/score.test.ts's tolerance, not bit for bit. */
const FLOAT64_TOLERANCE = 1e-5;

const dir = mkdtempSync(join(tmpdir(), "tinylab-run-scoring-"));
const run = join(dir, "run");
const text = join(dir, "notice.txt");
const WORDS = "the a lab model text run split train test score window token stride data file document paragraph licence".split(" ");

/** 24 paragraphs of 6–70 words (several longer than the 32-token context), separated by blank lines. */
function corpus(): string {
  let x = 7;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return (
    Array.from({ length: 24 }, () => Array.from({ length: 6 + (next() % 65) }, () => WORDS[next() % WORDS.length]).join(" ") + ".").join(
      "\n\n",
    ) + "\n"
  );
}

/** The scoring-data values as the CLI reads them from its parsed arguments (flag names in, recipe keys out). */
const argvOf = (o: Record<string, unknown>) => optionValues({ "one-per-line": false, ...o }, SCORING_DATA);
let trainedValidation: number;

beforeAll(async () => {
  writeFileSync(text, corpus());
  const r = ok(
    await tinylabHere([
      "train",
      "--text",
      text,
      "--out",
      run,
      "--updates",
      "4",
      "--layers",
      "1",
      "--d-model",
      "16",
      "--heads",
      "2",
      "--d-ff",
      "32",
      "--context",
      "32",
      "--vocab",
      "300",
      "--batch-rows",
      "2",
      "--eval-every",
      "4",
      "--log-every",
      "4",
      "--workers",
      "1",
    ]),
  );
  expect(r.stdout).toMatch(/saved model/);
  trainedValidation = JSON.parse(readFileSync(join(run, "train.json"), "utf8")).validation.nll;
  await useBackend("wasm");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a run directory is a scorer's input", () => {
  it("evaluate --run, report --run and compare --run give train's validation NLL exactly; score.py --run within float64 rounding", async () => {
    const model = join(run, "model.safetensors");
    const [evaluated] = await Promise.all([tinylab(["evaluate", "--run", run, "--split", "validation", "--json"])]);
    const e = JSON.parse(ok(evaluated).stdout);
    expect([e.model, e.stride, e.context_length, e.layout]).toEqual([model, 32, 32, "strided windows"]);
    expect(e.splits.validation.nll).toBe(trainedValidation);
    expect(e.data.note).toBeUndefined(); // the model's own split

    const t = (await scoringText(argvOf({ run })))!;
    let report: ReturnType<typeof runReport> | undefined, compared: ReturnType<typeof runCompare> | undefined;
    expect(
      leakedBy(() => {
        report = runReport({ model, text: t, seed: 0, replicates: 50 });
        compared = runCompare({
          a: model,
          baseline: "unigram-prior-bigram",
          text: t,
          split: "validation",
          finalTest: false,
          seed: 0,
          replicates: 50,
          bitsPerByte: false,
        });
      }),
    ).toBe(0);
    const v = report!.perplexity.groups.find((g) => g.split === "validation")!; // one source: its group is the split
    expect([report!.perplexity.stride, v.nll, report!.data.description]).toEqual([
      32,
      trainedValidation,
      `run ${run} (its manifest.json over ${text}), encoded with the model file's tokenizer`,
    ]);
    expect([compared!.result.stride, compared!.result.nll!.a, compared!.result.data.source]).toEqual([
      32,
      trainedValidation,
      `run ${run} (its manifest.json over ${text})`,
    ]);
    expect(compared!.result.b.name).toMatch(/fitted on \d+ train documents/);

    const py = spawnSync(PYTHON, [SCORE, "--run", run, "--split", "validation", "--json"], { encoding: "utf8" });
    expect(py.stderr).toBe("");
    const p = JSON.parse(py.stdout);
    expect([p.stride, p.splits.validation.targets]).toEqual([32, e.splits.validation.targets]);
    expect(Math.abs(p.splits.validation.nll - trainedValidation)).toBeLessThan(FLOAT64_TOLERANCE);
  }, 120_000);

  it("records the run's manifest in the model file, refuses the model with no data naming --run, and notes other data in one line", async () => {
    const model = join(run, "model.safetensors");
    const loaded = loadModel(model);
    loaded.model.dispose();
    const manifestSha = sha256Hex(readFileSync(join(run, "manifest.json")));
    expect(loaded.provenance.data).toMatchObject({
      kind: "text",
      manifest_sha256: manifestSha,
      files: [text],
      split: { seed: 0, validation: 0.1, test: 0.1 },
    });

    const refusal = /was trained on text \(.*notice\.txt, manifest sha256 [0-9a-f]{12}…\): give --run DIR .* or --text PATH/;
    expect(() => evaluateModelFile({ model, batchRows: 1, split: "all" })).toThrow(refusal);
    expect(() => runReport({ model, seed: 0, replicates: 10 })).toThrow(refusal);
    expect(() =>
      runCompare({ a: model, baseline: "uniform", split: "validation", finalTest: false, seed: 0, replicates: 10, bitsPerByte: false }),
    ).toThrow(refusal);
    const py = spawnSync(PYTHON, [SCORE, model], { encoding: "utf8" });
    expect([py.status, py.stderr]).toEqual([1, expect.stringMatching(/^score\.py: error: .*was trained on text .*give --run DIR/)]);

    // --text with the split options train used: the same split, so no note; another split seed: one line saying so
    const same = evaluateModelFile({ model, batchRows: 1, split: "validation" }, await scoringText(argvOf({ text })));
    expect([same.splits.validation!.nll, same.data.note]).toEqual([trainedValidation, undefined]);
    const other = evaluateModelFile({ model, batchRows: 1, split: "validation" }, await scoringText(argvOf({ text, "split-seed": 5 })));
    expect(other.data.note).toMatch(/^note: .* was trained on another split .*: not the data it was trained against$/);
  }, 60_000);

  it("refuses a changed text file by name, before any scoring, from the CLI and score.py", async () => {
    const moved = join(dir, "moved.txt");
    writeFileSync(moved, readFileSync(text, "utf8").replace("the", "THE"));
    const changed = /moved\.txt changed: document .*notice\.txt#\d+ has sha256 [0-9a-f]{12}…, the manifest says [0-9a-f]{12}…/;
    await expect(scoringText(argvOf({ run, text: moved }))).rejects.toThrow(changed);
    const cli = await tinylabHere(["evaluate", "--run", run, "--text", moved]);
    expect([cli.code, cli.stderr.trim().split("\n").length]).toEqual([1, 1]);
    expect(cli.stderr).toMatch(changed);
    const py = spawnSync(PYTHON, [SCORE, "--run", run, "--text", moved], { encoding: "utf8" });
    expect([py.status, py.stderr]).toEqual([1, expect.stringMatching(changed)]);
  }, 60_000);

  it("refuses a split option beside --run (the manifest fixes the split) or without --text, and a directory with no manifest, in one line", async () => {
    // an Error given to toThrow is matched on its whole message
    for (const [flag, value] of [
      ["split-seed", 0],
      ["validation-fraction", 0.2],
      ["test-fraction", 0.1],
    ] as const) {
      const beside = new Error(
        `--run and --${flag}: the run's manifest.json fixes the split; drop --${flag}, or give --text without --run to split the text afresh`,
      );
      await expect(scoringText(argvOf({ run, [flag]: value }))).rejects.toThrow(beside);
      await expect(scoringText(argvOf({ run, text, [flag]: value }))).rejects.toThrow(beside);
      await expect(scoringText(argvOf({ [flag]: value }))).rejects.toThrow(new Error(`--${flag} needs --text (the text to split)`));
    }
    await expect(scoringText(argvOf({ run: dir }))).rejects.toThrow(
      new Error(`run manifest of --run ${dir} (train --text writes manifest.json there) not found: ${join(dir, "manifest.json")}`),
    );
  });
});

describe("the split rebuilt from a manifest (src/data/text_split.ts sourcesOfManifest, text_files.ts readRunText)", () => {
  it("reproduces a directory of .txt files' split, moved elsewhere with --text, and tells blank-line from one-per-line files", () => {
    const corpusDir = join(dir, "corpus"),
      movedDir = join(dir, "corpus-moved");
    for (const d of [join(corpusDir, "a"), join(corpusDir, "b"), join(movedDir, "a"), join(movedDir, "b")])
      mkdirSync(d, { recursive: true });
    for (let i = 0; i < 5; i++)
      for (const s of ["a", "b"]) writeFileSync(join(corpusDir, s, `${i}.txt`), `file ${s}${i}\n\nwith a blank line inside\n`);
    const runDir = join(dir, "dir-run");
    mkdirSync(runDir);
    const made = readRunText({ text: corpusDir, split: { seed: 3, validation: 0.2, test: 0.2 } });
    writeFileSync(join(runDir, "manifest.json"), JSON.stringify(made.manifest, null, 1) + "\n");
    const again = readRunText({ run: runDir, split: { seed: 0, validation: 0.1, test: 0.1 } }); // the manifest's split, not these options
    expect(again.bySplit).toEqual(made.bySplit);
    expect(again.manifestSha256).toBe(made.manifestSha256);
    for (const s of ["a", "b"]) for (let i = 0; i < 5; i++) copyFileSync(join(corpusDir, s, `${i}.txt`), join(movedDir, s, `${i}.txt`));
    expect(readRunText({ run: runDir, text: movedDir, split: { seed: 0, validation: 0.1, test: 0.1 } }).bySplit).toEqual(made.bySplit);
    writeFileSync(join(movedDir, "b", "3.txt"), "edited\n");
    expect(() => readRunText({ run: runDir, text: movedDir, split: { seed: 0, validation: 0.1, test: 0.1 } })).toThrow(
      /corpus-moved\/b\/3\.txt changed: document b\/3\.txt/,
    );

    // one file, one document per line: the manifest says which cut reproduces its sha256s
    const lines = "one\ntwo\nthree\nfour\nfive\n";
    const m = splitTexts(documentsOfText(lines, "l.txt", "l.txt", true), { seed: 0, validation: 0.2, test: 0 });
    const read = () => ({ text: lines, path: "l.txt" });
    expect(sourcesOfManifest(m, read).docs.map((d) => d.text)).toEqual(["one", "two", "three", "four", "five"]);
    expect(sourcesOfManifest(m, read, false).docs.map((d) => d.text)).toEqual([lines.trim()]);
  });
});
