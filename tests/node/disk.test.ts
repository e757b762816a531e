// Output paths checked before anything is created: a file in the way, /proc and /sys (where Node 20's recursive
// mkdir hangs), and an unwritable directory (through an injected probe: CI runs as root, which chmod does not stop).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkOutputDir, checkOutputFile, ensureDir, type FsProbe } from "../../src/node/writable.ts";
import { tinylabHere } from "../cli/in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-disk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "a-file");
writeFileSync(file, "x");

describe("output paths", () => {
  it("takes a writable place and creates nothing", () => {
    checkOutputDir(join(dir, "new", "deeper"), "--out");
    checkOutputDir(dir, "--out");
    checkOutputFile(join(dir, "new", "model.safetensors"), "--save-model");
    expect(existsSync(join(dir, "new"))).toBe(false);
  });

  it.each<[string, () => void, string]>([
    ["a file where the directory goes", () => checkOutputDir(file, "--out"), `--out ${file}: ${file} is a file, not a directory`],
    [
      "a file on the way",
      () => checkOutputDir(join(file, "sub", "dir"), "--out"),
      `--out ${join(file, "sub", "dir")}: ${file} is a file, not a directory`,
    ],
    ["a directory given as a file", () => checkOutputFile(dir, "--save-model"), `--save-model ${dir}: is a directory; give a file name`],
    [
      "a file under a file",
      () => checkOutputFile(join(file, "m.safetensors"), "--save-model"),
      `--save-model ${join(file, "m.safetensors")}: ${file} is a file, not a directory`,
    ],
    [
      "/proc",
      () => checkOutputDir("/proc/tinylab/out", "--out"),
      "--out /proc/tinylab/out: /proc is a kernel pseudo-filesystem; nothing can be written there",
    ],
    [
      "/sys",
      () => checkOutputFile("/sys/m.safetensors", "--save-model"),
      "--save-model /sys/m.safetensors: /sys is a kernel pseudo-filesystem; nothing can be written there",
    ],
  ])("refuses %s by the option's name", (_, check, message) => {
    expect(check).toThrow(message);
  });

  it("follows links to /proc (/dev/fd is /proc/self/fd)", () => {
    if (!existsSync("/dev/fd")) return;
    expect(() => checkOutputDir("/dev/fd/tinylab", "--out")).toThrow(
      /^--out \/dev\/fd\/tinylab: \/dev\/fd is on \/proc, which is a kernel pseudo-filesystem/,
    );
  });

  it("refuses an unwritable ancestor with the OS reason (injected: a read-only mount)", () => {
    const readOnly: FsProbe = {
      isDirectory: (p) => (p === "/data" || p === "/" ? true : undefined),
      canWrite: (p) => {
        throw Object.assign(new Error(`EROFS: read-only file system, access '${p}'`), { code: "EROFS" });
      },
      realpath: (p) => p,
    };
    expect(() => checkOutputDir("/data/run/out", "--out", readOnly)).toThrow(
      "--out /data/run/out: cannot write into /data (EROFS: read-only file system)",
    );
    expect(() => checkOutputFile("/data/m.safetensors", "--save-model", readOnly)).toThrow(
      "--save-model /data/m.safetensors: cannot write into /data (EROFS: read-only file system)",
    );
  });

  it("ensureDir under /proc refuses at once instead of hanging", () => {
    expect(() => ensureDir("/proc/tinylab-none/out")).toThrow(
      /^output directory \/proc\/tinylab-none\/out: \/proc is a kernel pseudo-filesystem/,
    );
  });
});

// Through the CLI's own code, run in this process (tests/cli/in_process.ts): refused by name before any training
// (nothing on stdout), in one line.
describe("output paths through the CLI", () => {
  it.each<[string[], string]>([
    [["overfit", "--out", join(file, "results")], `--out ${join(file, "results")}: ${file} is a file, not a directory`],
    [
      ["overfit", "--save-model", "/proc/tinylab/m.safetensors", "--out", join(dir, "o")],
      "--save-model /proc/tinylab/m.safetensors: /proc is a kernel pseudo-filesystem; nothing can be written there",
    ],
    [["train", "--out", file], `--out ${file}: ${file} is a file, not a directory`],
    [["train", "--save-model", dir], `--save-model ${dir}: is a directory; give a file name`],
    [["cyclic", "--out", "/sys/tinylab"], "--out /sys/tinylab: /sys is a kernel pseudo-filesystem; nothing can be written there"],
    [["baselines", "--data", file, "--out", "/proc/x"], "--out /proc/x: /proc is a kernel pseudo-filesystem; nothing can be written there"],
    [["brown", "--out", join(file, "b")], `--out ${join(file, "b")}: ${file} is a file, not a directory`],
    [["report", "--model", file, "--out", "/proc/x"], "--out /proc/x: /proc is a kernel pseudo-filesystem; nothing can be written there"],
  ])("tinylab %j", async (args, message) => {
    const r = await tinylabHere(args);
    expect(r.stderr).toBe(`tinylab: error: ${message}\n`);
    expect([r.code, r.stdout]).toEqual([1, ""]);
  });
});
