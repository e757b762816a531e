// The docs cannot drift: every console block of README.md and docs/*.md is re-run, its commands in page order
// in one scratch directory (`results/` and `/tmp/` inside it), and each output compared with the block's, line
// by line (tests/docs/doctest.ts says which lines are compared without their numbers). A block its page marks
// `<!-- doctest: skip (why) -->` is not run; `skip-commands-with TEXT (why)` skips the commands containing TEXT.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeTorchSession, missingPython, PYTHON, REQUIRE_PYTHON, torchMain } from "../tools/models.ts";
import { blocks, commands, mismatch, tinylabWords, type Block } from "./doctest.ts";
import { tinylabHere } from "../cli/in_process.ts";

const ROOT = resolve(import.meta.dirname, "../..");
// Pages in the order their commands depend on each other (the README's job 3 writes results/seed39.safetensors,
// own-text.md the notice model sample.md reads); any other page follows, by name.
const ORDER = [
  "README.md",
  "docs/options.md",
  "docs/overfit.md",
  "docs/gradcheck.md",
  "docs/checkpoints.md",
  "docs/python.md",
  "docs/report.md",
  "docs/cyclic.md",
  "docs/baselines.md",
  "docs/own-text.md",
  "docs/sweeps.md",
  "docs/compare.md",
  "docs/sample.md",
  "docs/choice-canary.md",
  "docs/workers.md",
  "docs/browser-lab.md",
  "docs/brown.md",
];
const pages = [
  ...ORDER,
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`)
    .filter((f) => !ORDER.includes(f))
    .sort(),
];
const all: Block[] = pages.flatMap((p) => blocks(p, readFileSync(join(ROOT, p), "utf8")));
const consoles = all.filter((b) => b.lang === "console");

const scratch = mkdtempSync(join(tmpdir(), "tinylab-doctest-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// the repository's files the commands name by relative path
for (const name of ["tools", "node_modules"]) symlinkSync(join(ROOT, name), join(scratch, name));
mkdirSync(join(scratch, "docs"));
symlinkSync(join(ROOT, "docs/examples"), join(scratch, "docs/examples"));
const TMP = join(scratch, "tmp");
mkdirSync(TMP);
const inScratch = (s: string) => s.replaceAll("/tmp/", `${TMP}/`);
/** A path a page names: /tmp/… in the scratch tmp, a relative one in the scratch directory (the commands' cwd). */
const scratchPath = (p: string) => (p.startsWith("/") ? inScratch(p) : join(scratch, p));

// Files a page shows being made: `$ cat FILE` with its content shown, or a block marked `file PATH`.
function write(path: string, lines: string[]): void {
  const to = scratchPath(path);
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, lines.join("\n") + "\n");
}
for (const b of all) {
  const file = b.marker?.match(/^file (\S+)$/)?.[1];
  if (file) write(file, b.body);
  if (b.lang === "console")
    for (const c of commands(b)) {
      const m = c.command.match(/^cat (\/tmp\/\S+)$/);
      if (m) write(m[1], c.expected);
    }
}

const numpyMissing = missingPython(["numpy"]);
const torchMissing = missingPython(["numpy", "torch"]);
/** Why this machine cannot run a Python command (outside CI only; TINYLAB_REQUIRE_PYTHON=1 runs it regardless). */
function pythonMissing(command: string): string | undefined {
  if (REQUIRE_PYTHON || !/^(\/usr\/bin\/)?python3 /.test(command)) return undefined;
  return command.includes("tinylab_torch.py") ? torchMissing : numpyMissing;
}

const ENV = { TINYLAB_BACKEND: "wasm" };

/** The arguments of a `python3 tools/tinylab_torch.py …` line of plain words, else undefined. */
const torchWords = (command: string): string[] | undefined =>
  command
    .match(/^(?:\/usr\/bin\/)?python3 tools\/tinylab_torch\.py((?: [\w./=-]+)+)$/)?.[1]
    .trim()
    .split(" ");
afterAll(closeTorchSession);

/**
 * What a command printed (stdout and stderr in order) and its exit status. A plain `npx tinylab` line runs in
 * this process (the program main.ts runs, tests/cli/in_process.ts), each in the scratch directory, saving a
 * start of node and the engine per command; a plain `python3 tools/tinylab_torch.py` line runs the tool's main()
 * in one Python for all the pages (tests/tools/torch_session.py: torch imported once); anything else runs in a shell.
 */
async function run(command: string): Promise<{ lines: string[]; status: number | null }> {
  const words = tinylabWords(inScratch(command));
  if (words !== undefined) {
    const r = await tinylabHere(words, { env: ENV, cwd: scratch });
    return { lines: r.output.replaceAll(`${TMP}/`, "/tmp/").split("\n"), status: r.code };
  }
  const torchArgs = torchWords(inScratch(command));
  if (torchArgs !== undefined) {
    const r = await torchMain(torchArgs, { cwd: scratch, merged: true });
    return { lines: r.stdout.replaceAll(`${TMP}/`, "/tmp/").split("\n"), status: r.status };
  }
  // `python3` is the Python the interop tests use (Debian's, or TINYLAB_PYTHON), not whichever is first on PATH
  const line = inScratch(command)
    .replace(/^npx tinylab /, `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, "bin/tinylab.js"))} `)
    .replace(/^(\/usr\/bin\/)?python3 /, `${JSON.stringify(PYTHON)} `);
  const r = spawnSync("/bin/sh", ["-c", `${line} 2>&1`], {
    cwd: scratch,
    encoding: "utf8",
    env: { ...process.env, ...ENV },
    timeout: 300_000,
  });
  if (r.error) throw r.error;
  return { lines: r.stdout.replaceAll(`${TMP}/`, "/tmp/").split("\n"), status: r.status };
}

describe("console blocks of README.md and docs/", () => {
  it("runs a plain tinylab line in process and leaves every other line to a shell", () => {
    expect(tinylabWords("npx tinylab sample --model m.safetensors --prompt 'The software' --seed 1")).toEqual([
      "sample",
      "--model",
      "m.safetensors",
      "--prompt",
      "The software",
      "--seed",
      "1",
    ]);
    expect(tinylabWords('npx tinylab sample --prompt "a b"')).toEqual(["sample", "--prompt", "a b"]);
    for (const shell of [
      "npx tinylab --help",
      "npx tinylab train -h",
      "npx tinylab evaluate --model m | head",
      "npx tinylab evaluate > out.txt",
      "npx tinylab evaluate --model $HOME/m",
      'npx tinylab sample --prompt "$X"',
      "npx tinylab overfit && ls",
      "python3 tools/score.py m",
    ])
      expect(tinylabWords(shell), shell).toBeUndefined();
  });

  it("finds the blocks, and every block it does not run says why", () => {
    expect(consoles.length).toBeGreaterThan(20);
    for (const b of consoles)
      if (b.marker !== undefined) expect(b.marker, `${b.file}:${b.line}`).toMatch(/^(skip \(.+\)|skip-commands-with \S+ \(.+\))$/);
  });

  for (const b of consoles) {
    const name = `${b.file}:${b.line} ${commands(b)
      .map((c) => c.command.split(/\s+/).slice(0, 3).join(" "))
      .join("; ")}`;
    if (b.marker?.startsWith("skip (")) continue; // its reason is checked above
    const without = b.marker?.match(/^skip-commands-with (\S+)/)?.[1];
    it(name, async () => {
      for (const c of commands(b)) {
        if (without !== undefined && c.command.includes(without)) continue;
        const missing = pythonMissing(c.command);
        if (missing) {
          console.warn(`doctest: not running ${c.command}: ${missing}`);
          continue;
        }
        const r = await run(c.command);
        // a command shown without output had it elided by the page: it must succeed, its output is not compared
        if (c.expected.length === 0) {
          expect(r.status, `${b.file}:${b.line} $ ${c.command}\n${r.lines.join("\n")}`).toBe(0);
          continue;
        }
        expect(mismatch(c.expected, r.lines), `${b.file}:${b.line} $ ${c.command}`).toBeUndefined();
      }
    });
  }
});
