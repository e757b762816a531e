// Contracts of the atomic writer (all-or-nothing replacement, no leftovers) and the SHA-256 helpers.
// Durability across a power cut (the fsyncs) cannot be observed from a test and is not claimed here.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotRegularFileError, sha256Bytes, sha256File, writeFileAtomic } from "../../src/node/atomic.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinylab-atomic-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeFileAtomic", () => {
  it("writes bytes and UTF-8 strings, replacing an existing file, and leaves only the target", () => {
    const path = join(dir, "out.bin");
    writeFileAtomic(path, new Uint8Array([0, 1, 2, 255]));
    expect([...readFileSync(path)]).toEqual([0, 1, 2, 255]);
    writeFileAtomic(path, "héllo ✓");
    expect(readFileSync(path, "utf8")).toBe("héllo ✓");
    expect(readdirSync(dir)).toEqual(["out.bin"]);
  });

  it("keeps the previous file intact and removes the temp file when a write fails midway", () => {
    const path = join(dir, "ckpt.safetensors");
    writeFileSync(path, "previous contents");
    // A real partial write (half the bytes reach the temp file) followed by a failure, like ENOSPC.
    const failHalfway = (fd: number, bytes: Uint8Array): void => {
      writeSync(fd, bytes, 0, bytes.length >> 1);
      throw new Error("ENOSPC: no space left on device");
    };
    const attempt = () => writeFileAtomic(path, new Uint8Array(4096).fill(7), failHalfway);
    expect(attempt).toThrow(/ckpt\.safetensors.*ENOSPC/);
    expect(readFileSync(path, "utf8")).toBe("previous contents");
    expect(readdirSync(dir)).toEqual(["ckpt.safetensors"]);
  });

  it("names the path when the directory does not exist", () => {
    const path = join(dir, "missing", "out.bin");
    expect(() => writeFileAtomic(path, "x")).toThrow(path);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("writeFileAtomic replaces only a regular file", () => {
  // rename() would put a regular file where the device, FIFO or directory was; each is refused before any byte is written
  const fifo = () => {
    const p = join(dir, "pipe");
    execFileSync("mkfifo", [p]);
    return p;
  };
  const cases: [string, () => string, string][] = [
    ["/dev/full", () => "/dev/full", "a character device"],
    ["a FIFO", fifo, "a FIFO"],
    [
      "a directory",
      () => {
        const p = join(dir, "d");
        mkdirSync(p);
        return p;
      },
      "a directory",
    ],
    [
      "a link to /dev/full",
      () => {
        const p = join(dir, "link");
        symlinkSync("/dev/full", p);
        return p;
      },
      "a character device",
    ],
    [
      "a dangling link",
      () => {
        const p = join(dir, "dangling");
        symlinkSync(join(dir, "nowhere"), p);
        return p;
      },
      "a dangling symbolic link",
    ],
  ];
  it.each(cases)("refuses %s in one line, leaving it as it was and no temp file", (_, make, what) => {
    const path = make();
    const before = statSync(path, { throwIfNoEntry: false });
    const entries = readdirSync(dir).sort();
    expect(() => writeFileAtomic(path, "model bytes")).toThrow(NotRegularFileError);
    expect(() => writeFileAtomic(path, "model bytes")).toThrow(
      `${path} is ${what}, not a regular file; refusing to replace it (give a file path)`,
    );
    const after = statSync(path, { throwIfNoEntry: false });
    expect([after?.mode, after?.rdev, after?.ino]).toEqual([before?.mode, before?.rdev, before?.ino]);
    expect(readdirSync(dir).sort()).toEqual(entries);
  });

  it("replaces a link to a regular file (the link, not the file it points at)", () => {
    const target = join(dir, "real.bin");
    writeFileSync(target, "old");
    const link = join(dir, "model.safetensors");
    symlinkSync(target, link);
    writeFileAtomic(link, "new");
    expect(readFileSync(link, "utf8")).toBe("new");
    expect(readFileSync(target, "utf8")).toBe("old");
  });
});

describe("sha256", () => {
  it("matches the published FIPS 180-2 digests of 'abc' and of the empty string", () => {
    expect(sha256Bytes(new TextEncoder().encode("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Bytes(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("hashes only the bytes a view covers, not its whole buffer", () => {
    const big = new TextEncoder().encode("xabcx");
    expect(sha256Bytes(big.subarray(1, 4))).toBe(sha256Bytes(new TextEncoder().encode("abc")));
  });

  it("hashes a file read in chunks exactly as the whole bytes (file spans several 1 MiB chunks)", () => {
    const bytes = new Uint8Array(3 * (1 << 20) + 5).map((_, i) => (i * 31 + 7) & 0xff);
    const path = join(dir, "big.bin");
    writeFileSync(path, bytes);
    const whole = createHash("sha256").update(bytes).digest("hex");
    expect(sha256File(path)).toBe(whole);
    expect(sha256Bytes(bytes)).toBe(whole);
  });
});
