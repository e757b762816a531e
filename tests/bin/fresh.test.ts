// The compiled copy is run only when it matches the sources: bin/fresh.js on a scratch tree (an edit, a touch,
// an added and a removed file), and the launcher's two paths printing the same help.
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isFresh, stampOf } from "../../bin/fresh.js";
import { ok, tinylab } from "../cli/spawn.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A tree with every input bin/fresh.js expects, stamped as if just built. */
function stampedTree(): string {
  const root = mkdtempSync(join(tmpdir(), "tinylab-fresh-"));
  dirs.push(root);
  for (const d of ["src/util", "experiments", "native", "bin", "dist"]) mkdirSync(join(root, d), { recursive: true });
  for (const f of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "bin/build.js",
    "bin/fresh.js",
    "bin/front.js",
    "experiments/a.ts",
    "native/c.c",
  ])
    writeFileSync(join(root, f), `${f}\n`);
  writeFileSync(join(root, "src/util/b.ts"), "export const b = 1;\n");
  writeFileSync(join(root, "dist/stamp.json"), JSON.stringify(stampOf(root)));
  return root;
}

describe("isFresh", () => {
  it("holds for the tree as stamped, and after a touch that leaves the bytes", () => {
    const root = stampedTree();
    expect(isFresh(root)).toBe(true);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, "src/util/b.ts"), later, later);
    expect(isFresh(root)).toBe(true);
  });

  it("fails after an edit of the same size", () => {
    const root = stampedTree();
    writeFileSync(join(root, "src/util/b.ts"), "export const b = 2;\n");
    expect(isFresh(root)).toBe(false);
  });

  it("fails when a source file is added or removed, and when a compiler input or the addon's source changes", () => {
    const added = stampedTree();
    writeFileSync(join(added, "src/util/c.ts"), "export const c = 1;\n");
    expect(isFresh(added)).toBe(false);
    const removed = stampedTree();
    unlinkSync(join(removed, "experiments/a.ts"));
    expect(isFresh(removed)).toBe(false);
    const config = stampedTree();
    writeFileSync(join(config, "tsconfig.build.json"), "{}\n");
    expect(isFresh(config)).toBe(false);
    const addon = stampedTree(); // the addon's C source is an input too (bin/build.js compiles it)
    writeFileSync(join(addon, "native/c.c"), "native/c.d\n");
    expect(isFresh(addon)).toBe(false);
  });

  it("fails without a build", () => {
    const root = stampedTree();
    rmSync(join(root, "dist"), { recursive: true });
    expect(isFresh(root)).toBe(false);
  });

  it("holds for this checkout after the global setup's build, so the spawned CLIs run compiled", () => {
    expect(isFresh()).toBe(true);
  });
});

describe("bin/tinylab.js", () => {
  it("prints the same help compiled and from the sources", async () => {
    const compiled = ok(await tinylab(["--help"]));
    process.env.TINYLAB_FROM_SOURCE = "1";
    try {
      const source = ok(await tinylab(["--help"]));
      expect(compiled.stdout).toBe(source.stdout);
    } finally {
      delete process.env.TINYLAB_FROM_SOURCE;
    }
  });
});
