// Where commands write, through the CLI (tests/node/output_dir.test.ts has the rule itself): --save-model never
// over an input, a file that is not a model or an existing model without --overwrite; every writing command
// refused, naming the holder, while another holds its directory; no write through a link or out of a sweep's run
// folder; no output into /, a system directory or the input text's directory; an earlier report kept without
// --overwrite; and a refused command leaves no directory it made.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DIRECTORY_LOCK } from "../../src/node/lock.ts";
import { tinylabHere } from "./in_process.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-writes-"));
// a live process that is not this one: the holder of the locks below
const sleeper = spawn("sleep", ["300"], { stdio: "ignore" });
afterAll(() => {
  sleeper.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The one error line of a refused command run in `dir`. */
async function refusal(args: string[]): Promise<string> {
  const r = await tinylabHere(args, { cwd: dir });
  expect(r.code, r.output).toBe(1);
  return r.stderr.trim();
}
const at = (p: string) => join(dir, p);
const put = (p: string, text: string | Uint8Array) => {
  mkdirSync(join(at(p), ".."), { recursive: true });
  writeFileSync(at(p), text);
};
const LINES = Array.from({ length: 30 }, (_, i) => `line ${i} of a story long enough to split`).join("\n") + "\n";

describe("--save-model", () => {
  it("never writes over the command's input, a file that is not a model, an existing model without --overwrite, or another run's file", async () => {
    put("fx/self.txt", LINES);
    put("docs/a.txt", LINES);
    put("notes.txt", "my notes\n");
    copyFileSync(FIXTURE, at("m.safetensors"));
    put("run/train_state.safetensors", "a run's state");
    expect(
      await refusal([
        "train",
        "--text",
        "fx/self.txt",
        "--one-per-line",
        "--tokenizer",
        "byte",
        "--updates",
        "2",
        "--save-model",
        "fx/self.txt",
      ]),
    ).toBe(
      "tinylab: error: --save-model fx/self.txt: is the command's input --text fx/self.txt; refusing to write over its input: choose another path",
    );
    expect(await refusal(["train", "--text", "docs", "--save-model", "docs/m.safetensors"])).toBe(
      "tinylab: error: --save-model docs/m.safetensors: is inside the command's input --text docs; refusing to write over its input: choose another path",
    );
    expect(await refusal(["overfit", "--save-model", "notes.txt"])).toBe(
      "tinylab: error: --save-model notes.txt: holds a file that is not a tinylab model; refusing to replace it: choose another path",
    );
    expect(await refusal(["overfit", "--save-model", "m.safetensors"])).toBe(
      "tinylab: error: --save-model m.safetensors: holds a model file; pass --overwrite to replace it, or choose another path",
    );
    expect(await refusal(["overfit", "--save-model", "run/train_state.safetensors"])).toBe(
      `tinylab: error: --save-model run/train_state.safetensors: run holds another run (train_state.safetensors or manifest.json); its files are that run's: save the model elsewhere`,
    );
    expect(readFileSync(at("fx/self.txt"), "utf8")).toBe(LINES);
    expect(readFileSync(at("notes.txt"), "utf8")).toBe("my notes\n");
    expect(readFileSync(at("m.safetensors"))).toEqual(readFileSync(FIXTURE));
    expect(readdirSync(dir).sort()).toEqual(["docs", "fx", "m.safetensors", "notes.txt", "run"]); // overfit's results/ made and removed again
  });

  it("replaces an existing model with --overwrite", async () => {
    const r = await tinylabHere(
      [
        "overfit",
        "--updates",
        "2",
        "--checkpoints",
        "0,2",
        "--seeds",
        "39",
        "--figures",
        "false",
        "--out",
        "ow",
        "--save-model",
        "m.safetensors",
        "--overwrite",
      ],
      { cwd: dir },
    );
    expect(r.code, r.output).toBe(0);
    expect(readFileSync(at("m.safetensors"))).not.toEqual(readFileSync(FIXTURE));
  });
});

describe("every writing command takes the lock of the directory it writes into", () => {
  it("is refused, naming the holder's pid, while another process holds it; nothing is written there", async () => {
    put(`busy/${DIRECTORY_LOCK}`, JSON.stringify({ pid: sleeper.pid }));
    const held = (what: string) =>
      `tinylab: error: ${what} is in use by process ${sleeper.pid} (lock file ${at(`busy/${DIRECTORY_LOCK}`)}); wait for it to finish, or remove the lock file if that process is not tinylab`;
    expect(await refusal(["report", "--model", FIXTURE, "--out", "busy"])).toBe(held("report directory busy"));
    expect(await refusal(["overfit", "--out", "busy"])).toBe(held("output directory busy"));
    expect(await refusal(["cyclic", "--out", "busy"])).toBe(held("output directory busy"));
    expect(await refusal(["compare", FIXTURE, "--baseline", "bigram-add1", "--out", "busy"])).toBe(held("output directory busy"));
    expect(await refusal(["export", "--format", "onnx", "--model", FIXTURE, "--out", "busy"])).toBe(held("export directory busy"));
    expect(await refusal(["sweep", "--collect", "busy"])).toBe(held("sweep directory busy"));
    expect(await refusal(["overfit", "--out", "fresh", "--save-model", "busy/model.safetensors"])).toBe(held("model directory busy"));
    expect(readdirSync(at("busy"))).toEqual([DIRECTORY_LOCK]);
    expect(existsSync(at("fresh"))).toBe(false); // made for the run, removed when the run was refused
  });

  it("a run given --out . (a sweep's run) is refused naming its folder, not `.`", async () => {
    const r = await tinylabHere(["train", "--out", ".", "--updates", "1"], { cwd: at("busy") });
    expect(r.stderr.trim()).toBe(
      `tinylab: error: output directory ${at("busy")} is in use by process ${sleeper.pid} (lock file ${at(`busy/${DIRECTORY_LOCK}`)}); wait for it to finish, or remove the lock file if that process is not tinylab`,
    );
  });
});

describe("no write leaves the directory a command owns", () => {
  it("refuses a link below it (report's figures/, an export's onnx/, a run folder), a linked --collect directory and a grid value climbing out", async () => {
    mkdirSync(at("outside"));
    mkdirSync(at("R"));
    symlinkSync(at("outside"), at("R/figures"));
    expect(await refusal(["report", "--model", FIXTURE, "--out", "R"])).toBe(
      "tinylab: error: --out R: R/figures is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link",
    );
    expect((await tinylabHere(["export", "--format", "hf-gpt2", "--model", FIXTURE, "--out", "E"], { cwd: dir })).code).toBe(0);
    rmSync(at("E/onnx"), { recursive: true });
    symlinkSync(at("outside"), at("E/onnx"));
    expect(await refusal(["export", "--format", "hf-gpt2", "--model", FIXTURE, "--out", "E"])).toBe(
      "tinylab: error: --out E: E/onnx is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link",
    );
    mkdirSync(at("runs/seed=39"), { recursive: true });
    symlinkSync(at("runs"), at("linked-runs"));
    expect(await refusal(["sweep", "--collect", "linked-runs"])).toBe(
      `tinylab: error: --collect linked-runs: is a symbolic link (to ${at("runs")}); give the directory itself`,
    );
    symlinkSync(at("outside"), at("runs/seed=40"));
    expect(await refusal(["sweep", "--collect", "runs"])).toBe(
      "tinylab: error: --collect runs: runs/seed=40 is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link",
    );
    expect(await refusal(["sweep", "overfit", "--out", "S", "--grid", "save-model=../../../outside/x.safetensors"])).toBe(
      'tinylab: error: --grid --save-model ../../../outside/x.safetensors: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors',
    );
    expect(readdirSync(at("outside"))).toEqual([]);
    expect(existsSync(at("S"))).toBe(false);
  });

  it("confines --save-model=VALUE after -- as it confines --save-model VALUE, and refuses an --out of its own after --", async () => {
    const climbing =
      'tinylab: error: after --, --save-model ../../outside/x.safetensors: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors';
    expect(await refusal(["sweep", "overfit", "--out", "S", "--", "--save-model", "../../outside/x.safetensors"])).toBe(climbing);
    expect(await refusal(["sweep", "overfit", "--out", "S", "--", "--save-model=../../outside/x.safetensors"])).toBe(climbing);
    expect(await refusal(["sweep", "overfit", "--out", "S", "--", `--save-model=${at("outside/x.safetensors")}`])).toBe(
      `tinylab: error: after --, --save-model ${at("outside/x.safetensors")}: a file a run writes stays inside its folder under --out; give a relative path without "..", e.g. model.safetensors`,
    );
    expect(await refusal(["sweep", "overfit", "--out", "S", "--", "--out=../outside"])).toBe(
      "tinylab: error: --out after -- is set by the sweep itself in every run (each writes into its folder under the sweep's --out)",
    );
    expect(readdirSync(at("outside"))).toEqual([]);
    expect(existsSync(at("S"))).toBe(false);
  });
});

describe("an output directory is one the command may own", () => {
  it("never /, nor the input text's directory, nor one holding other files; an earlier report only with --overwrite", async () => {
    expect(await refusal(["train", "--out", "/"])).toBe(
      "tinylab: error: --out /: / is a system directory; a command writes only into a directory of its own: choose one (e.g. results/…)",
    );
    expect(await refusal(["report", "--model", FIXTURE, "--out", "/"])).toBe(
      "tinylab: error: --out /: / is a system directory; a command writes only into a directory of its own: choose one (e.g. results/…)",
    );
    put("story/a.txt", LINES);
    expect(await refusal(["train", "--text", "story/a.txt", "--one-per-line", "--out", "story"])).toBe(
      "tinylab: error: --out story: is the directory of --text story/a.txt; a command never writes among its inputs: choose another directory",
    );
    put("mine/notes.txt", "my notes\n");
    expect(await refusal(["overfit", "--out", "mine"])).toBe(
      `tinylab: error: --out mine: holds "notes.txt", which this command does not write; it writes only into a new or empty directory or one holding an overfit result: choose another directory`,
    );
    put("rep/report.json", "{}");
    expect(await refusal(["report", "--model", FIXTURE, "--out", "rep"])).toBe(
      "tinylab: error: --out rep: holds a report (report.json); pass --overwrite to replace it, or choose another directory",
    );
    expect(readdirSync(at("rep"))).toEqual(["report.json"]);
  });

  it("a refused run leaves no directory it made", async () => {
    put("one.txt", "a single document\n");
    expect(await refusal(["train", "--text", "one.txt", "--out", "newrun", "--updates", "2"])).toMatch(
      /^tinylab: error: the split leaves validation empty/,
    );
    expect(existsSync(at("newrun"))).toBe(false);
  });
});

describe("after every refusal above", () => {
  it("no lock file is left behind but the holder's own", () => {
    const locks = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? locks(join(d, e.name)) : e.name.endsWith(".lock") ? [join(d, e.name)] : [],
      );
    expect(locks(dir)).toEqual([at(`busy/${DIRECTORY_LOCK}`)]);
  });
});
