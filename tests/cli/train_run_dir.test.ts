// A run directory as `tinylab train` claims it: a directory holding a run is refused without --resume, --overwrite
// removes only the run's files, a device, FIFO or directory is never replaced by --save-model, no lock outlives the
// process (normal exit, error exit, Ctrl-C twice), and the best model on validation is kept, labelled, stopped on
// by --patience and carried across a kill and resume exactly. Refusals, and runs whose process is not what is
// tested, run through the CLI's own code in this process (tests/cli/in_process.ts), saving a node and engine start
// each; exits, signals, the kill and the resume after it are processes.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sha256File } from "../../src/node/atomic.ts";
import { readSafetensorsFile } from "../../src/node/disk.ts";
import { withoutTimes } from "../../src/lab/history.ts";
import { ok, start, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";
import { STORY, STORY_SHAPE } from "../story.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-run-dir-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const story = join(dir, "story.txt");
writeFileSync(story, STORY);

const SHAPE = ["--tokenizer", "byte", ...STORY_SHAPE];
const text = (ck: string, more: string[]) => ["train", "--text", story, "--out", join(dir, ck), ...SHAPE, ...more];
const json = (p: string) => JSON.parse(readFileSync(p, "utf8"));
const LOCK = ".tinylab.lock";
const oneLine = (r: { code: number | null; stderr: string }) => {
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
  return r.stderr.trim();
};
const shas = (ck: string) =>
  Object.fromEntries(
    readdirSync(join(dir, ck))
      .sort()
      .filter((f) => statSync(join(dir, ck, f)).isFile())
      .map((f) => [f, sha256File(join(dir, ck, f))]),
  );

describe("a run directory holding a run", () => {
  it("is refused without --resume (one line naming --resume and --overwrite), untouched; --overwrite replaces the run, and is refused beside files the run did not write", async () => {
    ok(await tinylabHere(text("done", ["--updates", "4", "--eval-every", "2"])));
    const before = shas("done");
    expect(Object.keys(before)).toEqual([
      "history.csv",
      "history.json",
      "loss_curve.svg",
      "manifest.json",
      "model.safetensors",
      "model_best.safetensors",
      "train.json",
      "train_state.safetensors",
    ]);
    const refused = await tinylabHere(text("done", ["--updates", "4", "--eval-every", "2", "--seed", "7"]));
    expect(oneLine(refused)).toBe(
      `tinylab: error: --out ${join(dir, "done")} holds a run (train_state.safetensors, train.json, model.safetensors, model_best.safetensors, loss_curve.svg, history.csv, history.json, manifest.json); pass --resume to continue it, or --overwrite to remove its files and start afresh`,
    );
    expect(shas("done")).toEqual(before); // nothing written, no lock left
    // what the run did not write is never removed: a directory holding it besides the run is refused, even with --overwrite
    writeFileSync(join(dir, "done", "notes.txt"), "mine");
    mkdirSync(join(dir, "done", "plots"));
    expect(oneLine(await tinylabHere(text("done", ["--updates", "4", "--seed", "7", "--overwrite"])))).toBe(
      `tinylab: error: --out ${join(dir, "done")}: holds "notes.txt", "plots", which this command does not write; it writes only into a new or empty directory or one holding a run: choose another directory`,
    );
    expect(readFileSync(join(dir, "done", "notes.txt"), "utf8")).toBe("mine");
    expect(Object.fromEntries(Object.entries(shas("done")).filter(([f]) => f !== "notes.txt"))).toEqual(before);
    rmSync(join(dir, "done", "notes.txt"));
    rmSync(join(dir, "done", "plots"), { recursive: true });
    const over = ok(await tinylabHere(text("done", ["--updates", "4", "--seed", "7", "--overwrite"])));
    expect(over.stdout).toContain("updates 1..4");
    expect(readdirSync(join(dir, "done")).sort()).toEqual(Object.keys(before).sort());
    const now = shas("done");
    for (const f of [
      "model.safetensors",
      "model_best.safetensors",
      "train_state.safetensors",
      "history.json",
      "loss_curve.svg",
      "train.json",
    ])
      expect(now[f], f).not.toBe(before[f]);
    // the old history (scored at 2 and 4) is gone, not continued: the new one is scored where its own --eval-every (the text default, 100) and its last update put it
    expect(
      json(join(dir, "done", "history.json"))
        .entries.filter((e: { validation_nll: number | null }) => e.validation_nll !== null)
        .map((e: { update: number }) => e.update),
    ).toEqual([4]);
    expect(json(join(dir, "done", "train.json")).options.seed).toBe(7);
    expect(oneLine(await tinylabHere(text("done", ["--updates", "4", "--resume", "--overwrite"])))).toBe(
      "tinylab: error: give one of --resume (continue the run) and --overwrite (replace it)",
    );
  });

  it("is refused for the overfit fixture's train too; --resume of a directory with nothing saved yet starts at update 0", async () => {
    const ck = join(dir, "fixture");
    ok(await tinylabHere(["train", "--updates", "3", "--out", ck]));
    expect(oneLine(await tinylabHere(["train", "--updates", "3", "--out", ck]))).toMatch(
      /holds a run \(train_state\.safetensors\); pass --resume to continue it, or --overwrite/,
    );
    const empty = join(dir, "empty");
    const r = ok(await tinylabHere(["train", "--updates", "3", "--out", empty, "--resume"]));
    expect(r.stdout).toContain(`nothing saved in ${join(empty, "train_state.safetensors")} yet: starting at update 0; running to update 3`);
    expect(sha256File(join(empty, "train_state.safetensors"))).toBe(sha256File(join(ck, "train_state.safetensors")));
  });
});

describe("--save-model that is not a regular file", () => {
  it("refuses /dev/full, a FIFO and a directory in one line before training, leaving each as it was", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const folder = join(dir, "folder");
    mkdirSync(folder);
    const cases: [string, string][] = [
      ["/dev/full", "is a character device, not a regular file; give a file path"],
      [fifo, "is a FIFO, not a regular file; give a file path"],
      [folder, "is a directory; give a file name"],
    ];
    const before = cases.map(([p]) => statSync(p));
    const results = [];
    for (const [p] of cases) results.push(await tinylabHere(["train", "--updates", "2", "--save-model", p]));
    for (const [i, [p, why]] of cases.entries()) {
      expect(oneLine(results[i])).toBe(`tinylab: error: --save-model ${p}: ${why}`);
      const after = statSync(p);
      expect([after.mode, after.rdev, after.ino]).toEqual([before[i].mode, before[i].rdev, before[i].ino]);
    }
    expect(existsSync(`/dev/full.lock`)).toBe(false);
  });
});

describe("the lock", () => {
  it("is gone after a normal exit, an error exit and two Ctrl-Cs", async () => {
    const ck = join(dir, "locks");
    ok(await tinylab(["train", "--updates", "2", "--out", ck]));
    expect(existsSync(join(ck, LOCK))).toBe(false);
    const failed = await tinylab(["train", "--updates", "4", "--out", ck, "--resume", "--dropout", "0.1"]);
    expect(oneLine(failed)).toMatch(/cannot resume from .*: this run differs from it in config\.dropout/);
    expect(existsSync(join(ck, LOCK))).toBe(false);
    const p = start(["train", "--updates", "100000", "--save-every", "1000", "--log-every", "10", "--out", ck, "--resume"]);
    await p.waitFor(/update\s+20 /);
    expect(existsSync(join(ck, LOCK))).toBe(true);
    p.child.kill("SIGINT");
    p.child.kill("SIGINT"); // the second quits at once, without waiting for the update in progress
    const r = await p.done;
    expect([r.code, r.signal]).toEqual([130, null]);
    expect(existsSync(join(ck, LOCK))).toBe(false);
    expect(readdirSync(ck).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("the best model on validation", () => {
  const common = ["--updates", "60", "--eval-every", "4", "--lr", "0.03", "--save-every", "8"];
  it("is kept beside the last, labelled as chosen on validation, listed in the summary; --patience stops early; both survive a kill and resume exactly", async () => {
    // killed by itself at its 14th atomic write (src/node/atomic.ts TINYLAB_TEST_KILL_AT), mid-run, while the two
    // uninterrupted runs go on here one after the other
    const killing = start(text("patience-killed", [...common, "--patience", "2"]), undefined, { TINYLAB_TEST_KILL_AT: "14" }).done;
    const full = await tinylabHere(text("best", common));
    const patient = await tinylabHere(text("patience", [...common, "--patience", "2"]));
    const killed = await killing;
    ok(full);
    const h = json(join(dir, "best", "history.json"));
    const scored: [number, number][] = [
      [0, h.initial_validation_nll],
      ...h.entries
        .filter((e: { validation_nll: number | null }) => e.validation_nll !== null)
        .map((e: { update: number; validation_nll: number }) => [e.update, e.validation_nll]),
    ];
    const [bestUpdate, bestNll] = scored.reduce((a, b) => (b[1] < a[1] ? b : a));
    expect(bestUpdate).toBeLessThan(60); // this recipe's lr overshoots: the last update is not the best, so the two files differ
    const provenance = JSON.parse(readSafetensorsFile(join(dir, "best", "model_best.safetensors")).metadata.provenance);
    expect(provenance.update).toBe(bestUpdate);
    expect(provenance.selection).toMatchObject({ on: "validation", update: bestUpdate, validation_nll: bestNll });
    expect(provenance.selection.note).toMatch(/optimistic.*test split \(--final-test\) is unbiased/);
    // the file is a model every command reads (integrity, config, tokenizer): evaluate scores it
    const ev = ok(
      await tinylabHere(["evaluate", "--run", join(dir, "best"), "--model", join(dir, "best", "model_best.safetensors"), "--json"]),
    );
    expect(JSON.parse(ev.stdout).model_sha256).toBe(sha256File(join(dir, "best", "model_best.safetensors")));
    expect(full.stdout).toContain(
      `  model at update ${bestUpdate}`.padEnd(31) + `${bestNll.toFixed(6)}  best on validation (optimistic: chosen on it)`,
    );
    expect(full.stdout).toMatch(/ {2}model at update 60 +\d\.\d{6} {2}last\n/);
    expect(json(join(dir, "best", "train.json")).best).toMatchObject({
      update: bestUpdate,
      validation_nll: bestNll,
      file: join(dir, "best", "model_best.safetensors"),
    });

    // --patience 2: the run ends at the second scoring after the best that does not beat it, a finished run (exit 0)
    ok(patient);
    const stop = scored.find(
      ([u]) => u > bestUpdate && scored.filter(([v, n]) => v > bestUpdate && v <= u && n >= bestNll).length === 2,
    )![0];
    expect(patient.stdout).toContain(`stopped early at update ${stop} (--patience 2: no new best in 2 scorings)`);
    const ph = json(join(dir, "patience", "history.json"));
    expect(ph.entries.at(-1).update).toBe(stop);
    expect(json(join(dir, "patience", "train.json")).early_stop).toEqual({ at: stop, patience: 2 });
    // a resume of the stopped run trains no further
    const again = ok(await tinylabHere(text("patience", [...common, "--patience", "2", "--resume"])));
    expect(again.stdout).toContain(`stopped early at update ${stop}`);
    expect(json(join(dir, "patience", "history.json")).entries.at(-1).update).toBe(stop);
    // the killed run, resumed, stops at the same update with the same best and last models, state and history
    expect(killed.signal).toBe("SIGKILL");
    ok(await tinylab(text("patience-killed", [...common, "--patience", "2", "--resume"])));
    for (const f of ["model.safetensors", "model_best.safetensors", "train_state.safetensors", "loss_curve.svg"]) {
      expect(sha256File(join(dir, "patience-killed", f)), f).toBe(sha256File(join(dir, "patience", f)));
    }
    expect(withoutTimes(json(join(dir, "patience-killed", "history.json")))).toEqual(withoutTimes(ph));
  }, 120_000);
});
