// The start of `tinylab`: `--help` runs from the bundled front (bin/front.js) and loads no module beyond the
// launcher (no engine, no recipe, no package), a command loads the engine's packages through require, the front's
// code cache is accepted, and the build's shortcut for yargs's string widths agrees with string-width itself.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { NARROW } from "../../bin/build.js";
import { DIST, ROOT } from "../../bin/fresh.js";
import { compileFront } from "../../bin/front.js";

const LOADS = pathToFileURL(resolve(import.meta.dirname, "loads.mjs")).href;

/** Every module a `node …args` process loads (tests/bin/loads.mjs), repository-relative where it can be. */
function loadsOf(args: string[]): { status: number | null; loads: string[]; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-loads-"));
  try {
    const file = join(dir, "loads");
    const r = spawnSync(process.execPath, ["--import", LOADS, ...args], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, TINYLAB_LOADS: file },
    });
    const here = pathToFileURL(ROOT).href;
    const loads = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.replace(`esm ${here}/`, "").replace(`cjs ${ROOT}/`, ""));
    return { status: r.status, loads: [...new Set(loads)].sort(), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("tinylab's start", () => {
  it("sees an engine load when there is one (the check below can fail)", () => {
    const r = loadsOf(["--input-type=module", "-e", 'await import("@tensorflow/tfjs-core")']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.loads.some((l) => l.includes("node_modules/@tensorflow/tfjs-core/"))).toBe(true);
  });

  it.each(["--help", "train --help", "sweep --help"])(
    "tinylab %s loads only the launcher: the engine, the recipes and the packages stay unread",
    (args) => {
      const r = loadsOf([join(ROOT, "bin/tinylab.js"), ...args.split(" ")]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.loads.filter((l) => !l.startsWith("tests/bin/"))).toEqual(["bin/fresh.js", "bin/front.js", "bin/tinylab.js"]);
    },
  );

  it("loads the engine's packages through require, never as ES modules (whose export scan of their whole source costs more than loading them)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tinylab-loads-"));
    try {
      const file = join(dir, "loads");
      const r = spawnSync(process.execPath, ["--import", LOADS, join(ROOT, "bin/tinylab.js"), "gradcheck", "--config", "micro"], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, TINYLAB_LOADS: file },
      });
      expect(r.status, r.stderr).toBe(0);
      const lines = readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.includes("/node_modules/@tensorflow/"));
      for (const pkg of [
        "tfjs-core/dist/tf-core.node.js",
        "tfjs-backend-cpu/dist/tf-backend-cpu.node.js",
        "tfjs-backend-wasm/dist/tf-backend-wasm.node.js",
      ]) {
        expect(lines).toContain(`cjs ${join(ROOT, "node_modules/@tensorflow", pkg)}`);
      }
      expect(lines.filter((l) => l.startsWith("esm "))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the front from a code cache V8 accepts", () => {
    const front = compileFront(DIST);
    expect(front).toBeDefined();
    expect(front!.script.cachedDataRejected).toBe(false);
  });
});

describe("NARROW (the build's shortcut for string widths)", () => {
  // the copies the build wrapped, as esbuild names each wrapper in the bundle
  const widths = [...readFileSync(join(DIST, "vendor/yargs.js"), "utf8").matchAll(/^\/\/ narrow-width:(\S+)$/gm)].map((m) => m[1]!);

  it("holds only characters every string-width copy yargs bundles counts one column, that join into no grapheme", async () => {
    const narrow: string[] = [];
    for (let c = 0; c <= 0xffff; c++) if (NARROW.test(String.fromCharCode(c))) narrow.push(String.fromCharCode(c));
    expect(narrow.length).toBeGreaterThan(95); // printable ASCII and more
    expect(widths.length).toBe(3); // cliui's, wrap-ansi's and yargs's own
    for (const file of widths) {
      const width = (await import(pathToFileURL(file).href)).default as (s: string) => number;
      expect(
        narrow.filter((ch) => width(ch) !== 1),
        file,
      ).toEqual([]);
      expect(width(narrow.join("")), file).toBe(narrow.length);
    }
  });

  it("leaves a wide character, an emoji and a soft hyphen to string-width", () => {
    for (const s of ["日本", "ok 🙂", "soft\u00adhyphen", "©"]) expect(NARROW.test(s), s).toBe(false);
  });
});

describe("dist/vendor/yargs.js", () => {
  it("lays out a help with wide, narrow and plain descriptions as the yargs package does", async () => {
    const vendored = (await import(pathToFileURL(join(DIST, "vendor/yargs.js")).href)).default;
    const original = (await import("yargs")).default;
    const help = async (y: typeof original) => {
      let text = "";
      await y([])
        .scriptName("t")
        .wrap(60)
        .exitProcess(false)
        .option("plain", { describe: "an ASCII description long enough to wrap across two lines of help" })
        .option("greek", { describe: "λ·σ ≥ 0 × 2 − 1, long enough to wrap across the line" })
        .option("wide", { describe: "日本語の説明 🙂 with emoji and wide characters that wrap" })
        .parseAsync(["--help"], {}, (_e: unknown, _a: unknown, out: string) => {
          text = out;
        });
      return text;
    };
    const [a, b] = [await help(vendored), await help(original)];
    expect(a).toContain("日本語");
    expect(a).toBe(b);
  });
});
