// Comments say why, never when: no code comment in src/, experiments/, web/, bin/, tools/, bench/, tests/ or native/ carries
// an issue number, a date, a measured time or ratio, or a session's history, and every file a comment names exists.
// Measured figures belong in docs/ (docs/benchmarks.md keeps the ones named constants rest on).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hashComments, htmlComments, lexScript, type Comment } from "./source_lexer.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIRS = ["src", "experiments", "web", "bin", "tools", "bench", "tests", "native"];
const SKIP_DIRS = new Set(["node_modules", "dist", "fixtures"]);

/** What a comment must not carry, each with a pattern that finds it on one line. */
const HISTORY: readonly { what: string; re: RegExp }[] = [
  { what: "an issue number", re: /\bissues?\b|(^|[\s(])#\d+\b/i },
  { what: "a date", re: /\b20\d\d-[01]\d(-[0-3]\d)?\b/ },
  {
    what: "a measured time",
    re: /\b\d+(\.\d+)?([–-]\d+(\.\d+)?)? ?(ns|µs|us|ms|s|secs?|seconds?|min|minutes?|hours?)\b|\d[\d,]*(\.\d+)? ?([a-z]+ )?[a-z]+\/s\b/,
  },
  { what: "a measured ratio", re: /\d(\.\d+)?× (the speed|as fast|faster|slower)|~\d+(\.\d+)?×|\d+(\.\d+)?[–-]\d+(\.\d+)?×/ },
  {
    what: "a session's history",
    re: /\b(this|last|previous) (turn|session)\b|\ba turn ago\b|\bused to be\b|\bpreviously\b|\bformerly\b|\buntil recently\b|\bthe old default\b|\bthe new default\b|\btoday'?s?\b/i,
  },
];

/** Lines where a pattern's match is the reason, not a measurement: the file, the pattern, and why. */
const ALLOWED: readonly { file: string; what: string; why: string }[] = [
  { file: "tests/util/runtime/progress.test.ts", what: "a measured time", why: "the times are the inputs of its worked examples" },
  { file: "tests/cli/train.test.ts", what: "a measured time", why: "the kill's random delay (0–60 ms) is the test's own setting" },
  { file: "tests/comments.test.ts", what: "an issue number", why: "its header names what it looks for" },
];

/** Sources of ours that hold code comments, repository-relative. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : sources(rel);
    return /\.(ts|js|mjs|c|h|py|sh|html)$/.test(e.name) ? [rel] : [];
  });
}

function commentsOf(file: string, src: string): Comment[] {
  // C shares JavaScript's comment and string syntax, which is all the lexer needs here
  if (/\.(ts|js|mjs|c|h)$/.test(file)) return lexScript(src).comments;
  if (file.endsWith(".py")) return hashComments(src, "python");
  if (file.endsWith(".sh")) return hashComments(src, "shell");
  return htmlComments(src);
}

/** Every comment line of `src` that carries history: `file:line: what: the line`. */
function historyIn(file: string, src: string): string[] {
  const found: string[] = [];
  for (const c of commentsOf(file, src)) {
    c.text.split("\n").forEach((text, k) => {
      for (const { what, re } of HISTORY) {
        if (re.test(text) && !ALLOWED.some((a) => a.file === file && a.what === what))
          found.push(`${file}:${c.line + k}: ${what}: ${text.trim()}`);
      }
    });
  }
  return found;
}

/** Repository paths (`src/…`, `docs/…`, globs such as `src/eval/report/*.ts`) and bare source file names a comment names. */
const PATH = /(?<![\w./-])(?:src|experiments|web|bin|tools|bench|tests|docs)\/[\w./*-]*[\w/*]/g;
const BARE = /(?<![\w./-])[\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|py|sh)\b(?![\w/(])/g;

/** File names of other projects that comments cite: GPT-2's tokenizer source, the JavaScript library. */
const EXTERNAL = new Set(["encoder.py", "transformers.js"]);

/** Every path a comment of `src` names that is not in the repository (a bare file name: nowhere in it). */
function missingIn(file: string, src: string, exists: (path: string) => boolean, names: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const c of commentsOf(file, src)) {
    c.text.split("\n").forEach((text, k) => {
      for (const m of text.matchAll(PATH)) if (!exists(m[0].replace(/\.$/, ""))) found.push(`${file}:${c.line + k}: ${m[0]}`);
      for (const m of text.replace(PATH, " ").matchAll(BARE))
        if (!names.has(m[0]) && !EXTERNAL.has(m[0])) found.push(`${file}:${c.line + k}: ${m[0]}`);
    });
  }
  return found;
}

const FILES = DIRS.flatMap(sources);
// the top level's files too (vitest.config.ts, package.json), which a comment may name bare
const TOP = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => e.name);
const TREE = [...FILES, ...TOP, ...readdirSync(join(ROOT, "docs")).map((f) => join("docs", f))];
const NAMES = new Set(TREE.map((f) => basename(f)));
/** A path, or a glob (`*` within one name) that some file matches. */
const inRepo = (p: string): boolean => {
  if (!p.includes("*")) return existsSync(join(ROOT, p));
  const re = new RegExp(
    `^${p
      .split("*")
      .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]*")}$`,
  );
  return TREE.some((f) => re.test(f));
};

describe("code comments say why, not when", () => {
  it("reads every source (a lister that found nothing would pass)", () => {
    expect(FILES.length).toBeGreaterThan(300);
    expect(FILES).toEqual(
      expect.arrayContaining([
        "src/eval/compare/compare.ts",
        "tools/score.py",
        "bench/help.sh",
        "web/index.html",
        "bin/tinylab.js",
        "native/tinylab_ort.c",
        "native/causal_attention.h",
      ]),
    );
    expect(
      commentsOf("src/eval/compare/compare.ts", readFileSync(join(ROOT, "src/eval/compare/compare.ts"), "utf8")).length,
    ).toBeGreaterThan(5);
    expect(commentsOf("native/tinylab_ort.c", readFileSync(join(ROOT, "native/tinylab_ort.c"), "utf8")).length).toBeGreaterThan(5);
  });

  it("finds history on planted lines of each kind, and nothing in code or strings", () => {
    const planted = [
      "// fixed in issue 21",
      "// see #24",
      "/* measured 2026-12-01 */",
      "// ~50 ms per call",
      "// took 3 s on 2 cores",
      "// ~3,500 tokens/s on wasm",
      "// runs 0.6–0.9× as fast",
      "// the default before this turn",
      "/** it used to be 8 */",
      "// today's default",
      `const s = "issue 21, 50 ms, 2026-12-01"; const r = /#24/; // fine`,
    ].join("\n");
    expect(historyIn("x.ts", planted).map((l) => l.split(": ")[1])).toEqual([
      "an issue number",
      "an issue number",
      "a date",
      "a measured time",
      "a measured time",
      "a measured time",
      "a measured ratio",
      "a session's history",
      "a session's history",
      "a session's history",
    ]);
    expect(historyIn("x.py", `x = "issue 21"  # fine\n"""Docstring of 2026-12-01."""\n`)).toEqual([
      'x.py:2: a date: """Docstring of 2026-12-01."""',
    ]);
    expect(historyIn("x.sh", `echo "$#" '# 50 ms' # took 3 s`)).toEqual(["x.sh:1: a measured time: # took 3 s"]);
    expect(historyIn("x.html", `<p>50 ms</p><!-- issue 7 -->`)).toEqual(["x.html:1: an issue number: <!-- issue 7 -->"]);
    // a number that is the reason stays: a limit, a size, a tolerance
    expect(historyIn("x.ts", "// 2^53 − 1 is the largest exact integer; 8 bytes per statistic; 1e-6 relative")).toEqual([]);
  });

  it("carries no issue number, date, measured time or session history", () => {
    const found = FILES.flatMap((f) => historyIn(f, readFileSync(join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });

  it("names only files that exist", () => {
    expect(
      missingIn(
        "x.ts",
        "// see src/data/batches.ts and src/gone.ts, docs/*.md, src/eval/report/*.ts, src/gone_*.ts, loop.ts and perplexity.test.ts",
        inRepo,
        NAMES,
      ),
    ).toEqual(["x.ts:1: src/gone.ts", "x.ts:1: src/gone_*.ts", "x.ts:1: perplexity.test.ts"]);
    const found = FILES.flatMap((f) => missingIn(f, readFileSync(join(ROOT, f), "utf8"), inRepo, NAMES));
    expect(found).toEqual([]);
  });
});
