// `tinylab compare` in a separate process: a model against itself is exactly 0 with p = 1; the seed-39 overfit
// model against the add-one bigram is the difference of the two published overfit-table NLLs; tokenizer and input
// refusals, through the CLI's own code in this process (tests/cli/in_process.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reencode } from "../lab/file_edits.ts";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-compare-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tinylab compare", () => {
  it("of a model against itself: difference exactly 0, no interval over 2 documents, no discordant targets; JSON and HTML written", async () => {
    const out = join(dir, "self");
    const r = await tinylab(["compare", FIXTURE, FIXTURE, "--json", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // two documents: the point estimate alone, no interval or p-value (MIN_INTERVAL_DOCUMENTS), said in the JSON
    for (const d of [j.nll.difference, j.bits_per_byte.difference]) {
      expect(d).toEqual({
        estimate: 0,
        lo: null,
        hi: null,
        p_one_sided: null,
        p_floor: null,
        interval_reason: "n too small for an interval: 2 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)",
      });
    }
    // nor a Wilson interval or McNemar p-value: the counts alone, and why
    const few = "n too small for an interval: 2 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)";
    expect(j.accuracy.mcnemar).toMatchObject({ a_only: 0, b_only: 0, p_two_sided: null, p_reason: few });
    for (const side of [j.accuracy.a, j.accuracy.b]) expect(side).toMatchObject({ wilson: null, wilson_reason: few });
    expect(JSON.parse(readFileSync(join(out, "compare.json"), "utf8")).nll.difference.estimate).toBe(0);
    const html = readFileSync(join(out, "compare.html"), "utf8");
    expect(html.match(/class="tok"/g)).toHaveLength(9); // one span per validation target (5 + 4)
    expect(html).toContain('title="target 1 b: A ');
    // compare.csv: one row per metric, the difference B − A beside A and B
    const csv = readFileSync(join(out, "compare.csv"), "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe("metric,a,b,difference_b_minus_a,difference_lo95,difference_hi95,p_one_sided,p_floor");
    // two documents are too few for an interval (the JSON says so): its cells are empty, never a made-up 0
    expect(csv.slice(1).map((l) => l.split(",").slice(0, 5))).toEqual([
      ["nll_nats_per_target", String(j.nll.a), String(j.nll.b), "0", ""],
      ["bits_per_byte", String(j.bits_per_byte.a), String(j.bits_per_byte.b), "0", ""],
      ["next_token_accuracy", String(j.accuracy.a.acc), String(j.accuracy.b.acc), "0", ""],
    ]);
  });

  it("of the seed-39 overfit model against the add-one bigram: 5.044970 − 4.364098 = 0.680872, as in the overfit table", async () => {
    const r = await tinylab(["compare", FIXTURE, "--baseline", "bigram-add1", "--out", join(dir, "bigram")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/NLL \(nats\/target\) +4\.364098 5\.044970/);
    expect(r.stdout).toMatch(/NLL \(nats\/target\) +B − A 0\.680872 {2}\(n too small for an interval: 2 documents, fewer than 10/);
    expect(r.stdout).toContain("2 documents, 9 targets");
    expect(r.stdout).toMatch(
      /McNemar, exact binomial \(two-sided\) on the discordant pairs: no p-value \(n too small for an interval: 2 documents, fewer than 10 \(MIN_INTERVAL_DOCUMENTS\)\)$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}next-token accuracy .*; n too small for an interval: 2 documents, fewer than 10 \(MIN_INTERVAL_DOCUMENTS\): no interval\)$/m,
    );
  });

  it("refuses different tokenizers unless --bits-per-byte, and then compares bits per byte only", async () => {
    // the same weights under a BPE tokenizer that merges "aa" (ids 99, 99): other targets, the same bytes
    const bpe = join(dir, "bpe.safetensors");
    writeFileSync(
      bpe,
      reencode(
        readFileSync(FIXTURE),
        (_t, m) => {
          m.tokenizer = JSON.stringify({ kind: "bpe", vocabSize: 259, merges: [[99, 99]] });
        },
        true,
      ),
    );
    const refused = await tinylabHere(["compare", FIXTURE, bpe, "--out", join(dir, "bpe")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/different tokenizers .*pass --bits-per-byte/);
    const bpb = await tinylab(["compare", FIXTURE, bpe, "--bits-per-byte", "--json", "--out", join(dir, "bpe")]);
    expect(bpb.code, bpb.stderr).toBe(0);
    const j = JSON.parse(bpb.stdout);
    expect([j.same_tokenizer, j.nll, j.accuracy, j.data.bytes]).toEqual([false, null, null, 7]);
    expect(j.nll_reason).toMatch(/different tokenizers/);
    expect(Number.isFinite(j.bits_per_byte.difference.estimate)).toBe(true);
  });

  it("refuses bad input by name before any scoring", async () => {
    const cases: [string[], RegExp][] = [
      [["compare", join(dir, "missing.safetensors"), "--baseline", "uniform"], /model file A not found/],
      [["compare", FIXTURE], /exactly one of a second model file \(B\) or --baseline/],
      [["compare", FIXTURE, "--baseline", "trigram"], /--baseline must be one of uniform, unigram-add1, bigram-add1, unigram-prior-bigram/],
      [["compare", FIXTURE, "--baseline", "uniform", "--split", "test"], /--final-test/],
    ];
    const results = [];
    for (const [args] of cases) results.push(await tinylabHere([...args, "--out", join(dir, "refused")]));
    results.forEach((r, i) => {
      expect(r.code, cases[i][0].join(" ")).not.toBe(0);
      expect(r.stderr, cases[i][0].join(" ")).toMatch(cases[i][1]);
    });
  });
});
