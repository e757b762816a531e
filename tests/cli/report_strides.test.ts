// `tinylab report --strides`: perplexity at each stride scores the same targets with different windows, and a
// stride beyond the model's context is refused by option name (through the CLI's own code in this process:
// tests/cli/in_process.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-strides-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tinylab report --strides", () => {
  it("scores every target once per stride; a document longer than the context gets more windows at a smaller stride", async () => {
    const data = join(dir, "docs.jsonl");
    // 11 characters: 12 targets (with EOS) in a context of 8
    writeFileSync(
      data,
      [
        { id: "t", split: "train", source: "c", text: "aaab" },
        { id: "v", split: "validation", source: "c", text: "aaabaabaaab" },
      ]
        .map((d) => JSON.stringify(d))
        .join("\n"),
    );
    const r = await tinylab(["report", "--model", FIXTURE, "--data", data, "--strides", "2,8", "--out", join(dir, "out"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout).perplexity_by_stride.strides;
    expect(s.map((x: { stride: number }) => x.stride)).toEqual([2, 8]);
    const validation = s.map((x: { groups: { split: string; targets: number; windows: number; nll: number }[] }) =>
      x.groups.find((g) => g.split === "validation")!,
    );
    expect(validation.map((g: { targets: number }) => g.targets)).toEqual([12, 12]);
    // stride 8: windows ending at targets 8 and 12 → 2; stride 2: ending at 8, 10, 12 → 3
    expect(validation.map((g: { windows: number }) => g.windows)).toEqual([3, 2]);
    expect(validation[0].nll).not.toBe(validation[1].nll); // the last targets see more context at stride 2
  });

  it("refuses a stride beyond the context by option name", async () => {
    const r = await tinylabHere(["report", "--model", FIXTURE, "--strides", "4,9", "--out", join(dir, "out2")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--strides: stride 9 is outside \[1, 8\] \(the model's context\)/);
  });
});
