// --workers across processes: `train` writes the same model sha256 with 1 and 2 workers (dropout and shuffling on,
// three microbatches per update, and a resume that switches the count); `evaluate` and `report` give the same
// scores with 1 and 2; bad counts are refused in one line naming the option. The 1-worker runs and the refusals go
// through the CLI's own code in this process (tests/cli/in_process.ts), the 2-worker runs and the resume are processes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sha256File } from "../../src/node/atomic.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { ok, start, tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// dropout, shuffling and three microbatches per update: masks, cursor and the split across workers all matter
const train = (updates: number, logEvery = 1000) => [
  "train",
  "--updates",
  String(updates),
  "--dropout",
  "0.1",
  "--shuffle",
  "--microbatches",
  "3",
  "--log-every",
  String(logEvery),
];
const TRAIN = train(20);

/** Documents enough for several scoring batches per split (random letters from a fixed stream). */
function documents(): string {
  const rng = Rng.fromSeed("workers test documents");
  const text = () => Array.from({ length: 3 + rng.int(5) }, () => "abc"[rng.int(3)]).join("");
  const line = (i: number, split: string) => JSON.stringify({ id: `${split}-${i}`, split, source: "test", text: text() });
  return (
    [...Array.from({ length: 20 }, (_, i) => line(i, "train")), ...Array.from({ length: 40 }, (_, i) => line(i, "validation"))].join("\n") +
    "\n"
  );
}

describe("tinylab --workers", () => {
  it("train writes the same model sha256 with 1 and 2 workers, and a 2-worker checkpoint resumed with 1 lands on it too", async () => {
    const ckpt = join(dir, "ckpt");
    const others = Promise.all([
      tinylab([...TRAIN, "--workers", "2", "--save-model", join(dir, "w2.safetensors")]),
      tinylab([...train(10), "--workers", "2", "--out", ckpt]),
    ]);
    const one = await tinylabHere([...TRAIN, "--workers", "1", "--save-model", join(dir, "w1.safetensors")]);
    const [two, half] = await others;
    expect(ok(one).stdout).toContain("backend wasm (matrix products on tfjs's own wasm kernels), workers 1");
    expect(ok(two).stdout).toContain("backend wasm (matrix products on tfjs's own wasm kernels), workers 2");
    ok(half);
    const resumed = ok(
      await tinylab([...TRAIN, "--workers", "1", "--out", ckpt, "--resume", "--save-model", join(dir, "resumed.safetensors")]),
    );
    const sha = sha256File(join(dir, "w1.safetensors"));
    expect(sha256File(join(dir, "w2.safetensors"))).toBe(sha);
    expect(sha256File(join(dir, "resumed.safetensors"))).toBe(sha);
    expect(resumed.stdout).toContain(`model_sha256 ${sha}`);
  });

  it("evaluate and report score the same with 1 and 2 workers", async () => {
    const model = join(dir, "w1.safetensors");
    const data = join(dir, "docs.jsonl");
    writeFileSync(data, documents());
    const twos = Promise.all([
      tinylab(["evaluate", "--model", model, "--data", data, "--batch-rows", "4", "--json", "--workers", "2"]),
      tinylab(["report", "--model", model, "--data", data, "--replicates", "20", "--out", join(dir, "r2"), "--json", "--workers", "2"]),
    ]);
    const e1 = await tinylabHere(["evaluate", "--model", model, "--data", data, "--batch-rows", "4", "--json", "--workers", "1"]);
    const r1 = await tinylabHere([
      "report",
      "--model",
      model,
      "--data",
      data,
      "--replicates",
      "20",
      "--out",
      join(dir, "r1"),
      "--json",
      "--workers",
      "1",
    ]);
    const [e2, r2] = await twos;
    for (const r of [e1, e2, r1, r2]) expect(r.code, r.stderr).toBe(0);
    const [a, b] = [e1, e2].map((r) => JSON.parse(r.stdout));
    expect([a.provenance.workers, b.provenance.workers]).toEqual([1, 2]);
    expect(b.splits.validation.batches).toBe(10); // 40 documents, 4 rows each: both workers had batches to score
    expect(b.splits).toEqual(a.splits);
    const [x, y] = ["r1", "r2"].map((d) => JSON.parse(readFileSync(join(dir, d, "report.json"), "utf8")));
    expect([x.provenance.workers, y.provenance.workers]).toEqual([1, 2]);
    const scores = (r: Record<string, unknown>) => ({ ...r, provenance: undefined, outputs: undefined });
    expect(scores(y)).toEqual(scores(x));
  });

  it("stops on SIGINT with 2 workers after the update in progress, saves it and exits (no thread left running)", async () => {
    const ckpt = join(dir, "sigint");
    const p = start([...train(100_000, 10), "--workers", "2", "--out", ckpt]);
    await p.waitFor(/update\s+20 /);
    p.child.kill("SIGINT");
    const r = await p.done; // resolves only once the process has exited
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /^tinylab: interrupt: stopping after the current update.*\ntinylab: interrupted at update \d+; training state saved → /,
    );
  });

  it.each(["0", "-1", "1.5", "two", "17", "1e9"])("refuses --workers %s in one line naming the option and its limit", async (n) => {
    const r = await tinylabHere(["train", "--updates", "1", "--workers", n]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(
      `--workers must be an integer in [1, 16] (MAX_WORKERS: each is an engine and a model copy; past the cores they only wait), got ${n === "two" ? "two" : n}`,
    );
  });
});
