// tools/run_text.py (the Python tools' --run) refuses a broken run directory in the very words of
// src/node/text_files.ts readRunText: no manifest, a manifest that is not a file, not JSON (the parser's own detail
// aside) or not a manifest, a missing or moved text file, a text that is not UTF-8, a changed document. The Python
// side needs the standard library alone, so it always runs.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunText } from "../../src/node/text_files.ts";

const PYTHON = process.env.TINYLAB_PYTHON ?? "/usr/bin/python3"; // as tests/tools/models.ts
const TOOLS = resolve(import.meta.dirname, "../../tools");
const dir = mkdtempSync(join(tmpdir(), "tinylab-run-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPLIT = { seed: 0, validation: 0.25, test: 0.25 };

/** A run directory whose manifest is made from `text` (a file written here), so each case can then break one thing. */
function runOf(name: string, body = "one\n\ntwo\n\nthree\n\nfour\n"): { run: string; text: string } {
  const run = join(dir, name),
    text = join(dir, `${name}.txt`);
  mkdirSync(run);
  writeFileSync(text, body);
  writeFileSync(join(run, "manifest.json"), JSON.stringify(readRunText({ text, split: SPLIT }).manifest));
  return { run, text };
}

/** readRunText's refusal, or "ok". */
function tsMessage(run: string, text?: string): string {
  try {
    readRunText({ run, text, split: SPLIT });
    return "ok";
  } catch (err) {
    return (err as Error).message;
  }
}

/** run_text.read_run's refusal of each case, or "ok": one Python process for all of them. */
function pyMessages(cases: { run: string; text?: string }[]): string[] {
  const script = [
    "import json, sys",
    `sys.path.insert(0, ${JSON.stringify(TOOLS)})`,
    "from run_text import RunTextError, read_run",
    "for c in json.loads(sys.stdin.read()):",
    "    try:\n        read_run(c['run'], c.get('text'))\n        print(json.dumps('ok'))",
    "    except RunTextError as err:\n        print(json.dumps(str(err)))",
  ].join("\n");
  const r = spawnSync(PYTHON, ["-c", script], { input: JSON.stringify(cases), encoding: "utf8" });
  expect(r.stderr).toBe("");
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as string);
}

describe("tools/run_text.py refuses as readRunText does", () => {
  it("words every refusal of a broken run as the TypeScript side does, and accepts a sound run", () => {
    const sound = runOf("sound");
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const manifestDir = join(dir, "manifest-dir");
    mkdirSync(join(manifestDir, "manifest.json"), { recursive: true });
    const manifest = (name: string, body: string) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "manifest.json"), body);
      return { run: join(dir, name) };
    };
    const gone = runOf("gone");
    rmSync(gone.text);
    const latin1 = runOf("latin1");
    writeFileSync(latin1.text, Buffer.from("one\n\ntwo \xe9\n", "latin1"));
    const changed = runOf("changed");
    writeFileSync(changed.text, "one\n\nTWO\n\nthree\n\nfour\n");
    const cases: { run: string; text?: string }[] = [
      sound,
      { run: sound.run, text: join(dir, "elsewhere.txt") },
      { run: empty },
      { run: manifestDir },
      manifest("not-json", "{"),
      manifest("array", "[]"),
      manifest("no-format", `{"seed": 0}`),
      manifest("other-format", `{"format": "x"}`),
      manifest(
        "documents",
        `{"format": "tinylab-text-manifest/1", "seed": 0, "fractions": {"validation": 0.1, "test": 0.1}, "documents": 5}`,
      ),
      { run: gone.run },
      { run: latin1.run },
      { run: changed.run },
    ];
    const ts = cases.map((c) => tsMessage(c.run, c.text));
    // the cases do refuse, each its own way: the comparison below is not of equal strings
    expect(ts[0]).toBe("ok");
    expect(new Set(ts).size).toBe(cases.length);
    expect(ts[2]).toBe(
      `run manifest of --run ${empty} (train --text writes manifest.json there) not found: ${join(empty, "manifest.json")}`,
    );
    // JSON.parse and Python's json say where a parse failed in their own words: the rest of the line is compared
    const parser = (m: string) => m.replace(/(: not valid JSON: ).*/, "$1…");
    expect(ts[4]).toMatch(/not-json\/manifest\.json: not valid JSON: ./);
    expect(pyMessages(cases).map(parser)).toEqual(ts.map(parser));
  });
});
