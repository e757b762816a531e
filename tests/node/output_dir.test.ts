// The one rule for an output directory, called directly: which directories a command may own, what it may
// replace there, that a write never leaves it (no link below it followed, no name climbing out), that it is
// locked while held, and that a directory the claim made is gone again when nothing was written.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claimOutputDir, SHARED_KINDS, type OutputDirOptions } from "../../src/node/output_dir.ts";
import { DIRECTORY_LOCK } from "../../src/node/lock.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-output-dir-"));
const sleeper = spawn("sleep", ["120"], { stdio: "ignore" });
afterAll(() => {
  sleeper.kill();
  rmSync(dir, { recursive: true, force: true });
});

const REPORT = { noun: "a report", files: ["report.json", "report.md", "figures/"] };
const opts = (o: Partial<OutputDirOptions> = {}): OutputDirOptions => ({
  option: "--out",
  what: "output directory",
  kind: REPORT,
  replace: false,
  ...o,
});
const fresh = (name: string, files: Record<string, string> = {}) => {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(d, f, ".."), { recursive: true });
    writeFileSync(join(d, f), text);
  }
  return d;
};

describe("claimOutputDir: the directories a command may own", () => {
  it("refuses / and system directories, naming the option and the directory", () => {
    expect(() => claimOutputDir("/", opts())).toThrow(
      "--out /: / is a system directory; a command writes only into a directory of its own: choose one (e.g. results/…)",
    );
    expect(() => claimOutputDir("/usr/share/tinylab-out", opts())).toThrow(
      "--out /usr/share/tinylab-out: /usr/share/tinylab-out is inside the system directory /usr",
    );
    expect(() => claimOutputDir("/tmp", opts())).toThrow("--out /tmp: /tmp is a system directory");
    expect(existsSync("/usr/share/tinylab-out")).toBe(false);
  });

  it("refuses an input's directory and a directory inside an input directory", () => {
    const text = fresh("texts", { "a.txt": "story" });
    const inputs = { paths: [["--text", join(text, "a.txt")]] as const };
    expect(() => claimOutputDir(text, opts({ inputs }))).toThrow(
      `--out ${text}: is the directory of --text ${join(text, "a.txt")}; a command never writes among its inputs: choose another directory`,
    );
    expect(() => claimOutputDir(join(text, "run"), opts({ inputs: { paths: [["--text", text]] } }))).toThrow(
      `--out ${join(text, "run")}: is inside the --text ${text}; a command never writes among its inputs`,
    );
    expect(existsSync(join(text, "run"))).toBe(false);
  });

  it("refuses a directory holding files it does not write, and a link given as the directory", () => {
    const mixed = fresh("mixed", { "notes.txt": "mine", "report.json": "{}" });
    expect(() => claimOutputDir(mixed, opts())).toThrow(
      `--out ${mixed}: holds "notes.txt", which this command does not write; it writes only into a new or empty directory or one holding a report: choose another directory`,
    );
    const linked = join(dir, "linked-out");
    symlinkSync(fresh("target"), linked);
    expect(() => claimOutputDir(linked, opts())).toThrow(
      `--out ${linked}: is a symbolic link (to ${join(dir, "target")}); give the directory itself`,
    );
  });

  it("a shared kind sits beside the other shared kinds' results, saved models and subdirectories, and nothing else", () => {
    const results = fresh("results", { "cyclic.json": "{}", "seed39.safetensors": "m", "report/report.json": "{}" });
    claimOutputDir(results, opts({ kind: SHARED_KINDS.overfit })).release();
    writeFileSync(join(results, "notes.txt"), "mine");
    expect(() => claimOutputDir(results, opts({ kind: SHARED_KINDS.overfit }))).toThrow(
      `--out ${results}: holds "notes.txt", which this command does not write`,
    );
  });

  it("replaces an earlier output of its own kind only when told (--overwrite)", () => {
    const earlier = fresh("earlier", { "report.json": "{}", "figures/a.svg": "<svg/>" });
    expect(() => claimOutputDir(earlier, opts())).toThrow(
      `--out ${earlier}: holds a report (figures/, report.json); pass --overwrite to replace it, or choose another directory`,
    );
    const out = claimOutputDir(earlier, opts({ replace: true }));
    out.write("report.json", '{"new":1}');
    out.release();
    expect(readFileSync(join(earlier, "report.json"), "utf8")).toBe('{"new":1}');
  });
});

describe("claimOutputDir: writes stay inside", () => {
  it("refuses a link below the directory (figures/ pointing elsewhere) and a name that leaves it; nothing lands outside", () => {
    const outside = fresh("outside");
    const r = fresh("r");
    symlinkSync(outside, join(r, "figures"));
    expect(() => claimOutputDir(r, opts())).toThrow(
      `--out ${r}: ${join(r, "figures")} is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link`,
    );
    rmSync(join(r, "figures"));
    const out = claimOutputDir(r, opts());
    try {
      symlinkSync(outside, join(r, "figures")); // made after the claim, before the write
      expect(() => out.write("figures/a.svg", "<svg/>")).toThrow(
        `--out ${r}: ${join(r, "figures")} is a symbolic link; refusing to write through it`,
      );
      for (const name of ["../escape.json", "/etc/x.json", "figures/../../x", ""])
        expect(() => out.write(name, "x")).toThrow("which is not a plain name inside it");
    } finally {
      out.release();
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("claimOutputDir: writes stay inside, fuzzed", () => {
  it("300 seeded names over a tree with links to outside planted at random: each write lands inside or is refused, outside untouched", () => {
    const rng = Rng.fromSeed("tinylab output dir fuzz");
    const outside = fresh("fuzz-outside");
    const parts = ["a", "b", "figures", "link", "..", ".", "", "x.svg"];
    let written = 0,
      refused = 0;
    for (let i = 0; i < 300; i++) {
      const root = fresh(`fuzz-${i}`);
      // a link to outside, at the top or one level down, sometimes made after the claim (before the write)
      const linkAt = rng.int(2) === 0 ? "link" : "a/link";
      const late = rng.int(2) === 0;
      const plant = () => {
        mkdirSync(join(root, linkAt, ".."), { recursive: true });
        symlinkSync(outside, join(root, linkAt));
      };
      if (!late) mkdirSync(join(root, "a"), { recursive: true });
      let out;
      try {
        if (!late) plant();
        out = claimOutputDir(root, opts({ kind: { noun: "a fuzz output", files: ["a/", "b/", "figures/", "x.svg"] }, replace: true }));
      } catch (err) {
        expect((err as Error).message).toMatch(/is a symbolic link; refusing to write through it/);
        refused++;
        continue;
      }
      try {
        if (late) plant();
        const name = Array.from({ length: 1 + rng.int(4) }, () => parts[rng.int(parts.length)]).join(rng.int(5) === 0 ? "//" : "/");
        try {
          const p = out.path(name);
          writeFileSync(p, "x");
          expect(realpathSync(p).startsWith(realpathSync(root) + "/")).toBe(true);
          written++;
        } catch (err) {
          expect((err as Error).message).toMatch(
            /is a symbolic link; refusing to write through it|which is not a plain name inside it|is in the way|is a directory in the way/,
          );
          refused++;
        }
      } finally {
        out.release();
      }
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(written).toBeGreaterThan(10); // the control: a rule that refused every name would pass the rest
    expect(refused).toBeGreaterThan(10);
  });
});

describe("claimOutputDir: the lock and what a refusal leaves", () => {
  it("refuses while another live process holds the directory, naming it; a directory the claim made is removed when left empty", () => {
    const busy = fresh("busy");
    writeFileSync(join(busy, DIRECTORY_LOCK), JSON.stringify({ pid: sleeper.pid }));
    expect(() => claimOutputDir(busy, opts())).toThrow(
      `output directory ${busy} is in use by process ${sleeper.pid} (lock file ${join(busy, DIRECTORY_LOCK)})`,
    );
    const made = join(dir, "made", "deep");
    const out = claimOutputDir(made, opts());
    expect(out.created).toBe(true);
    out.release();
    expect(existsSync(join(dir, "made"))).toBe(false);
    const kept = claimOutputDir(made, opts());
    kept.write("report.json", "{}");
    kept.release();
    expect(readdirSync(made)).toEqual(["report.json"]);
  });

  it("names the directory itself, not `.`, when it was given as . (a sweep's run)", () => {
    const run = fresh("sweep-run");
    writeFileSync(join(run, DIRECTORY_LOCK), JSON.stringify({ pid: sleeper.pid }));
    const home = process.cwd();
    process.chdir(run);
    try {
      expect(() => claimOutputDir(".", opts())).toThrow(`output directory ${run} is in use by process ${sleeper.pid}`);
    } finally {
      process.chdir(home);
    }
  });
});
