// `tinylab train --text` end to end on a text made here (not shipped): split manifest, tokenizer, validation
// history, loss curve, a model file `evaluate` reads; then the manifest refused on a changed file, extension refused
// on a changed schedule length, resume-and-extend equal bit for bit to one run, and history kept across the resume.
// Refusals, and runs whose process is not what is tested, run through the CLI's own code in this process
// (tests/cli/in_process.ts); the evaluate that re-reads the model, the straight run and the resume that extends a run
// are processes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sha256File } from "../../src/node/atomic.ts";
import { withoutTimes } from "../../src/lab/history.ts";
import { ok, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";
import { STORY, STORY_SHAPE, storyParagraph } from "../story.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-train-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const story = join(dir, "story.txt");
writeFileSync(story, STORY);

const run = (ck: string, more: string[]) => ["train", "--text", story, "--out", join(dir, ck), ...STORY_SHAPE, ...more];
const json = (p: string) => JSON.parse(readFileSync(p, "utf8"));
describe("tinylab train --text", () => {
  it("runs end to end: manifest with every sha256, BPE on train, whole-split validation history, curve with baselines, a model evaluate reads", async () => {
    const r = ok(
      await tinylabHere(run("a", ["--tokenizer", "bpe", "--vocab", "300", "--updates", "12", "--eval-every", "6", "--save-every", "6"])),
    );
    expect(r.stdout).toMatch(/^train: .*story\.txt, 10 train \/ 1 validation \/ 1 test documents \(split seed 0\)/);
    const manifest = json(join(dir, "a", "manifest.json"));
    expect(manifest.documents).toHaveLength(12);
    expect(manifest.documents.every((d: { sha256: string }) => /^[0-9a-f]{64}$/.test(d.sha256))).toBe(true);
    const h = json(join(dir, "a", "history.json"));
    expect(h.entries.map((e: { update: number }) => e.update)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const scored = h.entries.filter((e: { validation_nll: number | null }) => e.validation_nll !== null);
    expect(scored.map((e: { update: number }) => e.update)).toEqual([6, 12]);
    // every validation target once: the count is the validation document's ids minus one
    const result = json(join(dir, "a", "train.json"));
    expect(result.validation.targets).toBe(scored[0].validation_targets);
    expect(result.tokenizer).toBe("bpe");
    expect(result.baselines.map((b: { name: string }) => b.name)).toEqual([
      "uniform",
      "unigram (add-one)",
      "bigram (add-1)",
      "unigram-prior bigram (k=1)",
    ]);
    expect(result.baselines[0].validation_nll).toBeCloseTo(Math.log(300), 9);
    const svg = readFileSync(join(dir, "a", "loss_curve.svg"), "utf8");
    for (const label of ["train loss (raw)", "validation", "unigram-prior bigram (k=1)"]) expect(svg).toContain(label);
    // the model file carries its BPE tokenizer: another process scoring the validation text with it (same windows,
    // stride = context) gets the history's last validation NLL
    const model = join(dir, "a", "model.safetensors");
    const v = manifest.documents.find((d: { split: string }) => d.split === "validation");
    const docs = join(dir, "validation.jsonl");
    writeFileSync(
      docs,
      JSON.stringify({ id: v.id, split: "validation", source: "story", text: storyParagraph(Number(v.id.split("#")[1]) - 1) }) + "\n",
    );
    const ev = ok(await tinylab(["evaluate", "--model", model, "--data", docs, "--split", "validation", "--stride", "32", "--json"]));
    const scoredAgain = JSON.parse(ev.stdout);
    expect(scoredAgain.model_sha256).toBe(sha256File(model));
    expect(scoredAgain.splits.validation.targets).toBe(result.validation.targets);
    expect(Math.abs(scoredAgain.splits.validation.nll - result.validation.nll)).toBeLessThan(1e-6); // float32 logits, float64 sums in both
  });

  it("keeps progress off stdout: with --json, stdout is the JSON alone and every progress line is on stderr", async () => {
    const r = await tinylabHere(run("progress", ["--tokenizer", "byte", "--updates", "3", "--json"]));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).experiment).toBe("train"); // nothing else on stdout: a progress line would break the parse
    for (const l of r.output.split("\n").filter((x) => /^\S+ {2}\d+\/\d+ /.test(x)))
      expect(l).toMatch(/^(bpe|tokenize|validation|train) {2}\d+\/\d+ \w+ {2}[\d.]+% /);
  });

  it("refuses clear one-line errors: a changed file (named), an empty file, a directory with no .txt, invalid UTF-8, validation left empty", async () => {
    const changed = join(dir, "changed.txt");
    writeFileSync(changed, readFileSync(story, "utf8"));
    const base = (f: string, ck: string) => [
      "train",
      "--text",
      f,
      "--out",
      join(dir, ck),
      ...STORY_SHAPE,
      "--tokenizer",
      "byte",
      "--updates",
      "2",
    ];
    ok(await tinylabHere(base(changed, "c")));
    writeFileSync(changed, readFileSync(story, "utf8").replace("miller", "baker"));
    const refused = await tinylabHere([...base(changed, "c"), "--resume"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      new RegExp(
        `^tinylab: error: ${changed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} changed: document .*#\\d+ has sha256 [0-9a-f]{12}…, the manifest says [0-9a-f]{12}… \\(the split in .*manifest\\.json was made from other text`,
      ),
    );
    const empty = join(dir, "empty.txt");
    writeFileSync(empty, "\n\n  \n");
    const noTxt = join(dir, "no-txt");
    mkdirSync(noTxt);
    writeFileSync(join(noTxt, "notes.md"), "hello");
    const bad = join(dir, "bad.txt");
    writeFileSync(bad, Buffer.concat([Buffer.from("fine line\nbroken "), Buffer.from([0xc3, 0x28]), Buffer.from("\n")]));
    const one = join(dir, "one.txt");
    writeFileSync(one, "just one paragraph of text\n");
    const cases: [string, RegExp][] = [
      [empty, /: no text \(the file is empty or only blank lines\)$/],
      [noTxt, /: a directory with no \.txt files/],
      [bad, /bad\.txt line 2: not valid UTF-8/],
      [one, /the split leaves validation empty: 1 document\(s\), --validation-fraction 0\.1/],
    ];
    const results = [];
    for (const [i, [path]] of cases.entries()) results.push(await tinylabHere(base(path, `x-${i}`)));
    for (const [i, [, message]] of cases.entries()) {
      const r = results[i];
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
  });

  it("extends a finished run bit for bit like one run to the same total; a changed schedule length is refused naming --cosine-steps; history survives the resume", async () => {
    const common = ["--tokenizer", "byte", "--eval-every", "4", "--save-every", "4", "--dropout", "0.1"];
    // the first run's schedule is --cosine-steps 8 (its default, --updates); the straight run states it
    // the straight run in a process of its own while the first part runs here; the extension below is a process too
    const straight = tinylab(run("straight", [...common, "--updates", "16", "--cosine-steps", "8"]));
    ok(await tinylabHere(run("extended", [...common, "--updates", "8"])));
    ok(await straight);
    // raising --updates alone would lengthen the schedule (its default is --updates): refused, naming the option and the value to keep
    const refused = await tinylabHere(run("extended", [...common, "--updates", "16", "--resume"]));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `tinylab: error: cannot resume from ${join(dir, "extended", "train_state.safetensors")}: this run differs from it in options.schedule.cosineSteps: saved 8, this run 16. The schedule's length is --cosine-steps: it was 8 and is now 16; to extend the run, raise --updates and pass --cosine-steps 8`,
    );
    const extended = ok(await tinylab(run("extended", [...common, "--updates", "16", "--cosine-steps", "8", "--resume"])));
    expect(extended.stdout).toContain("at update 8; running to update 16");
    expect(sha256File(join(dir, "extended", "model.safetensors"))).toBe(sha256File(join(dir, "straight", "model.safetensors")));
    expect(sha256File(join(dir, "extended", "train_state.safetensors"))).toBe(sha256File(join(dir, "straight", "train_state.safetensors")));
    // one entry per update, none duplicated, equal to the straight run's apart from the times
    const [a, b] = [json(join(dir, "extended", "history.json")), json(join(dir, "straight", "history.json"))];
    expect(a.entries.map((e: { update: number }) => e.update)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(withoutTimes(a)).toEqual(withoutTimes(b));
  });
});
