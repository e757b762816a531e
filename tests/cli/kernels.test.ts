// --kernels on the command line: onnxruntime (and auto, where it loads) is named in the output (a training run's
// label saying whether its steps ran as the training graph) and recorded in the result's provenance; tfjs records
// tfjs; an unknown name, onnxruntime off the wasm backend, or onnxruntime where it is not installed, is refused in
// one line (and auto there runs on tfjs's kernels).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ok, start, tinylab, type Finished } from "./spawn.ts";
import { OPTION_GROUPS } from "../../experiments/option_catalogue.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** `tinylab ARGS` from a tree of links to this one (its compiled dist/ included) whose node_modules lacks onnxruntime-node. */
function withoutOnnxruntime(args: string[]): Finished {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-no-ort-"));
  try {
    for (const f of ["bin", "dist", "src", "experiments", "package.json", "tsconfig.json", "tsconfig.build.json"])
      symlinkSync(join(ROOT, f), join(dir, f));
    mkdirSync(join(dir, "node_modules"));
    for (const p of readdirSync(join(ROOT, "node_modules")))
      if (p !== "onnxruntime-node") symlinkSync(join(ROOT, "node_modules", p), join(dir, "node_modules", p));
    // links resolved as links, so imports look in this node_modules and not the real one
    const r = spawnSync(process.execPath, ["--preserve-symlinks", "--preserve-symlinks-main", join(dir, "bin/tinylab.js"), ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, TINYLAB_BACKEND: "wasm", TINYLAB_KERNELS: "tfjs" },
    });
    return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A --json run: exit 0 (its wall-time line goes to stderr, so ok() does not apply). */
const passed = (r: Finished): Finished => (expect(r.code, r.stderr).toBe(0), r);

describe("tinylab --kernels", () => {
  it.each(["onnxruntime", "auto"])("%s: gradcheck names onnxruntime-node and records it in its JSON", async (kernels) => {
    const text = ok(await tinylab(["gradcheck", "--config", "micro", "--kernels", kernels]));
    expect(text.stdout).toContain("gradcheck micro on wasm (training steps and scoring as whole graphs on onnxruntime-node 1.30.0):");
    const json = JSON.parse(passed(await tinylab(["gradcheck", "--config", "micro", "--kernels", kernels, "--json"])).stdout);
    expect(json.provenance).toMatchObject({ backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" });
  });

  it("a training run names what it ran on onnxruntime: its steps as the training graph, or autograd under dropout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinylab-kernels-train-"));
    try {
      const train = (...args: string[]) =>
        tinylab(["train", "--updates", "2", "--kernels", "onnxruntime", "--out", join(dir, String(args.length)), ...args]);
      const [graph, dropout] = await Promise.all([train(), train("--dropout", "0.1")]);
      expect(ok(graph).stdout).toContain(
        "dropout 0, backend wasm (training steps and scoring as whole graphs on onnxruntime-node 1.30.0), workers 1",
      );
      expect(ok(dropout).stdout).toContain(
        "dropout 0.1, backend wasm (matrix products and scoring on onnxruntime-node 1.30.0; with dropout, gradients by tfjs autograd), workers 1",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tfjs: the output names tfjs's own kernels and the provenance says tfjs", async () => {
    const r = passed(await tinylab(["gradcheck", "--config", "micro", "--kernels", "tfjs", "--json"]));
    expect(JSON.parse(r.stdout).provenance).toMatchObject({ backend: "wasm", kernels: "tfjs" });
  });

  it("TINYLAB_KERNELS replaces the command's default and an explicit --kernels wins over it, as --help says", async () => {
    const kernelsOf = async (args: string[]) =>
      JSON.parse(
        passed(await start(["gradcheck", "--config", "micro", "--json", ...args], undefined, { TINYLAB_KERNELS: "onnxruntime" }).done)
          .stdout,
      ).provenance.kernels;
    const [byVariable, byFlag] = await Promise.all([kernelsOf([]), kernelsOf(["--kernels", "tfjs"])]);
    expect([byVariable, byFlag]).toEqual(["onnxruntime", "tfjs"]);
    expect(OPTION_GROUPS["Engine:"].kernels.describe).toContain(
      "the environment variable TINYLAB_KERNELS, when set, replaces the command's default, and an explicit --kernels wins over it",
    );
  });

  it.each([
    [["--kernels", "bogus"], 'tinylab: error: --kernels must be one of auto, onnxruntime, tfjs, got "bogus"'],
    [
      ["--backend", "cpu", "--kernels", "onnxruntime"],
      "tinylab: error: --kernels onnxruntime runs under --backend wasm, and the backend is cpu",
    ],
  ])("refuses %j in one line", async (args, line) => {
    const r = await tinylab(["gradcheck", "--config", "micro", ...args]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(line);
  });

  it("without onnxruntime-node: auto runs on tfjs's kernels, and onnxruntime is refused naming what to install", () => {
    const auto = ok(withoutOnnxruntime(["gradcheck", "--config", "micro", "--kernels", "auto"]));
    expect(auto.stdout).toContain("gradcheck micro on wasm (matrix products on tfjs's own wasm kernels): 212 coordinates");
    const asked = withoutOnnxruntime(["gradcheck", "--config", "micro", "--kernels", "onnxruntime"]);
    expect(asked.code).not.toBe(0);
    expect(asked.stderr.trim()).toBe(
      "tinylab: error: --kernels onnxruntime: onnxruntime-node is not installed; install it with npm ci (onnxruntime-node 1.30.0 is a dependency; package.json's allowScripts keeps its CUDA download off), or --kernels tfjs",
    );
  });
});
