// Refusals that name the flag or the fix (wording contracts): --vocab for a BPE the text cannot fill,
// `--` for a sweep's recipe options, the known names for a mistyped --grid option, and a reason beside every
// n/a of the sweep table and null of sweep.json.
import { describe, expect, it } from "vitest";
import { runTraining, TRAIN_DEFAULTS } from "../../experiments/train.ts";
import type { SweepRow } from "../../experiments/sweep.ts";
import { formatSweep } from "../../src/cli/views/sweep.ts";
import { nearestOption } from "../../src/cli/options.ts";
import { documentsOfText } from "../../src/data/text_documents.ts";
import { memoryStore } from "../../src/lab/store.ts";
import { tinylabHere } from "./in_process.ts";

describe("messages name the flag or the fix", () => {
  it("a BPE vocabulary the train split cannot fill names --vocab and the largest it supports", async () => {
    const docs = documentsOfText("one two\n\nthree four\n\nfive six\n\nseven eight\n", "small.txt", "small.txt", false);
    await expect(
      runTraining(
        {
          ...TRAIN_DEFAULTS,
          text: { docs, name: "small.txt", tokenizer: "bpe", split: { seed: 0, validation: 0.25, test: 0 } },
          out: memoryStore(),
          modelConfig: { vocabSize: 512 },
        },
        () => {},
        () => {},
      ),
    ).rejects.toThrow(
      /^--vocab 512 is more than this text's train split supports: BPE finds repeated pairs for at most \d+ ids; pass --vocab \d+ or less, give more text, or use --tokenizer byte$/,
    );
  });

  it("a mistyped --grid option is answered with the catalogue's nearest name; sweep options before -- with the hint", async () => {
    expect([nearestOption("learning-rate"), nearestOption("lyers"), nearestOption("batch-row"), nearestOption("zzz")]).toEqual([
      "lr",
      "layers",
      "batch-rows",
      undefined,
    ]);
    // through the CLI's own code in this process (tests/cli/in_process.ts), one after the other
    const grid = await tinylabHere(["sweep", "train", "--grid", "learning-rate=1e-3", "--", "--text", "x.txt"]);
    const dashes = await tinylabHere(["sweep", "train", "--text", "x.txt"]);
    expect([grid.code, grid.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^tinylab: error: --grid learning-rate: train has no option --learning-rate \(did you mean --lr\?\); it takes .*--lr, /,
      ),
    ]);
    expect([dashes.code, dashes.stderr]).toEqual([
      2,
      expect.stringMatching(/Unknown argument: text; a recipe's own options go after --, e\.g\. tinylab sweep train .* -- --text FILE/),
    ]);
  }, 60_000);

  it("the sweep table gives the reason of each n/a", () => {
    const row: SweepRow = {
      name: "seed=1",
      recipe: "train",
      seed: 1,
      grid: {},
      train_nll: null,
      train_nll_reason: "train scores the validation split only",
      validation_nll: 3.5,
      result: "r/train.json",
    };
    const table = formatSweep([row]).split("\n");
    expect(table[1]).toMatch(/n\/a\s+3\.500000$/);
    expect(table.at(-1)).toBe("train NLL n/a: train scores the validation split only");
  });
});
