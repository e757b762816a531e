// --lm-eval-out on evaluate and choice: every metric of the results file recomputed from the samples file with
// lm-evaluation-harness's formulas (written out here, from lm_eval/api/metrics.py and lm_eval/api/task.py), the
// samples' loglikelihoods summed against tinylab's own NLL sum of the same targets, and both files checked against
// the harness's schema (lm_eval/result_schema.py: EvalResults, _TaskMetrics, _SampleCount, SampleResult).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { tinylabHere } from "./in_process.ts";

const MODEL = "tests/fixtures/seed39-format2.safetensors"; // byte-level, context 8: ids = UTF-8 bytes + 2, BOS 0
const dir = mkdtempSync(join(tmpdir(), "tinylab-lm-eval-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// longer than the context (several windows), one with multi-byte characters and a tab, one of a single word
const DOCS = [
  { id: "t1", split: "train", text: "aab aab abab aaab" },
  { id: "t2", split: "train", text: "ba" },
  // Python's str \s takes U+0085 and U+001F and leaves U+FEFF: re.split(r"\s+") gives 4 words, JavaScript's \s 3
  { id: "t3", split: "train", text: "ab\u0085ba\ufeffaab ab\u001fb" },
  { id: "v1", split: "validation", text: "abaa baa\tabab ba aab" },
  { id: "v2", split: "validation", text: "héé aé  b" },
  { id: "x1", split: "test", text: "aaab abab" },
];
// Python's re \s on str, listed from `/usr/bin/python3 -c` over every code point (none above the BMP): \t-\r, U+001C-U+0020,
// U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000; JavaScript's \s differs (U+FEFF, not U+001C-U+001F or U+0085)
const PY_SPACES = /[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
const bytes = (s: string) => [...new TextEncoder().encode(s)];
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** The files a run wrote into `out`: the results object and each task's sample lines. */
function read(out: string) {
  const names = readdirSync(out).sort();
  const resultsName = names.find((n) => n.startsWith("results_"))!;
  const date = /^results_(.+)\.json$/.exec(resultsName)![1];
  expect(date).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}$/); // datetime.now().isoformat() with ":" → "-"
  const results = JSON.parse(readFileSync(join(out, resultsName), "utf8"));
  const samples: Record<string, Record<string, any>[]> = {};
  for (const task of Object.keys(results.results)) {
    expect(names).toContain(`samples_${task}_${date}.jsonl`);
    samples[task] = readFileSync(join(out, `samples_${task}_${date}.jsonl`), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
  }
  expect(names.length).toBe(1 + Object.keys(results.results).length);
  return { results, samples };
}

// ---- lm_eval/result_schema.py, key by key ----
const isStr = (v: unknown) => typeof v === "string";
const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isInt = (v: unknown) => Number.isInteger(v);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
function checkResults(r: Record<string, any>, samples: Record<string, Record<string, any>[]>) {
  const EVAL_RESULTS: Record<string, (v: any) => boolean> = {
    results: (v) => isObj(v) && Object.values(v).every(taskMetrics),
    groups: (v) => isObj(v) && Object.values(v).every(taskMetrics),
    group_subtasks: (v) => isObj(v) && Object.values(v).every((l) => Array.isArray(l) && l.every(isStr)),
    configs: (v) => isObj(v) && Object.values(v).every(isObj),
    versions: (v) => isObj(v) && Object.values(v).every((x) => isStr(x) || isNum(x) || x === null),
    "n-shot": (v) => isObj(v) && Object.values(v).every(isInt),
    higher_is_better: (v) =>
      isObj(v) && Object.values(v).every((m) => isObj(m) && Object.values(m).every((b) => typeof b === "boolean" || b === null)),
    "n-samples": (v) =>
      isObj(v) &&
      Object.values(v).every(
        (c) => isObj(c) && Object.keys(c).sort().join() === "effective,original" && isInt(c.original) && isInt(c.effective),
      ),
    config: (v) =>
      isObj(v) &&
      isStr(v.model) &&
      isInt(v.model_num_parameters) &&
      isStr(v.model_sha) &&
      Array.isArray(v.batch_sizes) &&
      isInt(v.bootstrap_iters),
    git_hash: (v) => isStr(v) || v === null,
    date: isNum,
    pretty_env_info: isStr,
    transformers_version: isStr,
    lm_eval_version: isStr,
    upper_git_hash: (v) => isStr(v) || v === null,
    tokenizer_pad_token: (v) => Array.isArray(v) && v.every(isStr),
    tokenizer_eos_token: (v) => Array.isArray(v) && v.every(isStr),
    tokenizer_bos_token: (v) => Array.isArray(v) && v.every(isStr),
    eot_token_id: (v) => isInt(v) || v === null,
    max_length: (v) => isInt(v) || v === null,
    model_source: isStr,
    model_name: isStr,
    model_name_sanitized: isStr,
    system_instruction: (v) => isStr(v) || v === null,
    system_instruction_sha: (v) => isStr(v) || v === null,
    fewshot_as_multiturn: (v) => typeof v === "boolean" || v === null,
    chat_template: (v) => isStr(v) || v === null,
    chat_template_sha: (v) => isStr(v) || v === null,
    task_hashes: (v) => isObj(v) && Object.values(v).every(isStr),
    total_evaluation_time_seconds: isStr,
  };
  function taskMetrics(m: unknown) {
    if (!isObj(m) || !isStr(m.name) || !isStr(m.alias) || !isInt(m.sample_len)) return false;
    // the rest are "metric,filter" keys: a number, or "N/A" for a stderr the harness has no formula for
    return Object.entries(m).every(
      ([k, v]) => ["name", "alias", "sample_len"].includes(k) || (k.includes(",") && (isNum(v) || (k.includes("_stderr,") && v === "N/A"))),
    );
  }
  for (const [k, v] of Object.entries(r)) {
    expect(EVAL_RESULTS[k], `results file key ${k}`).toBeDefined();
    expect(EVAL_RESULTS[k](v), `results file key ${k}: ${JSON.stringify(v).slice(0, 200)}`).toBe(true);
  }
  const tasks = Object.keys(r.results);
  for (const k of ["configs", "versions", "n-shot", "higher_is_better", "n-samples", "task_hashes"])
    expect(Object.keys(r[k]).sort()).toEqual([...tasks].sort());
  for (const t of tasks) {
    expect(r["n-samples"][t]).toEqual({ original: samples[t].length, effective: samples[t].length });
    // lm_eval/loggers/evaluation_tracker.py: the task hash is hash_string of each sample's doc_hash + prompt_hash + target_hash, joined
    expect(r.task_hashes[t]).toBe(sha256(samples[t].map((s) => s.doc_hash + s.prompt_hash + s.target_hash).join("")));
  }
  expect(r.samples).toBeUndefined(); // the CLI pops the samples before saving the results file
}
function checkSample(s: Record<string, any>, i: number) {
  const FIXED: Record<string, (v: any) => boolean> = {
    doc_id: isInt,
    doc: isObj,
    target: isStr,
    filter: isStr,
    doc_hash: isStr,
    prompt_hash: isStr,
    target_hash: isStr,
    arguments: (v) =>
      isObj(v) &&
      Object.entries(v).every(([k, a], j) => k === `gen_args_${j}` && isObj(a) && Object.keys(a).every((n, q) => n === `arg_${q}`)),
    resps: (v) => Array.isArray(v) && v.every((x) => Array.isArray(x)),
    filtered_resps: Array.isArray,
    metrics: (v) => Array.isArray(v) && v.every(isStr),
  };
  expect(s.doc_id).toBe(i);
  for (const [k, check] of Object.entries(FIXED)) expect(check(s[k]), `sample ${i} key ${k}`).toBe(true);
  // every other key is a metric named in "metrics"
  expect(
    Object.keys(s)
      .filter((k) => !(k in FIXED))
      .sort(),
  ).toEqual([...s.metrics].sort());
  // lm_eval/utils.py hash_string: sha256 of json.dumps(doc, indent=2, ensure_ascii=False) and of the prompt and target
  expect(s.doc_hash).toBe(sha256(JSON.stringify(s.doc, null, 2)));
  expect(s.target_hash).toBe(sha256(s.target));
  expect(s.prompt_hash).toBe(sha256(s.arguments.gen_args_0.arg_0));
}

// ---- lm_eval/api/metrics.py ----
const weighted_mean = (items: [number, number][]) => items.reduce((s, [a]) => s + a, 0) / items.reduce((s, [, b]) => s + b, 0);
const weighted_perplexity = (items: [number, number][]) => Math.exp(-weighted_mean(items));
const bits_per_byte = (items: [number, number][]) => -weighted_mean(items) / Math.log(2);
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sample_stddev = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
const mean_stderr = (xs: number[]) => sample_stddev(xs) / Math.sqrt(xs.length);

describe("evaluate --lm-eval-out", () => {
  it("writes one loglikelihood_rolling task per split whose every metric the samples give by the harness's formulas", async () => {
    writeFileSync(join(dir, "docs.jsonl"), jsonl(DOCS));
    const out = join(dir, "rolling");
    const r = await tinylabHere([
      "evaluate",
      "--model",
      MODEL,
      "--data",
      join(dir, "docs.jsonl"),
      "--split",
      "all",
      "--final-test",
      "--batch-rows",
      "2",
      "--lm-eval-out",
      out,
    ]);
    expect(r.code, r.output).toBe(0);
    const { results, samples } = read(out);
    expect(Object.keys(results.results)).toEqual(["docs_train", "docs_validation", "docs_test"]);
    checkResults(results, samples);
    for (const [task, lines] of Object.entries(samples)) {
      lines.forEach(checkSample);
      const split = task.replace("docs_", "");
      expect(lines.map((s) => s.doc.text)).toEqual(DOCS.filter((d) => d.split === split).map((d) => d.text));
      for (const s of lines) {
        // lm_eval/api/task.py process_results for loglikelihood_rolling: (loglikelihood, words) and (loglikelihood, bytes) per document
        const ll = Number(s.filtered_resps[0]);
        expect(s.resps).toEqual([[s.filtered_resps[0]]]);
        expect(s.word_perplexity).toEqual([ll, s.target.split(PY_SPACES).length]); // len(re.split(r"\s+", doc))
        expect(s.byte_perplexity).toEqual([ll, Buffer.byteLength(s.target, "utf8")]);
        expect(s.bits_per_byte).toEqual([ll, Buffer.byteLength(s.target, "utf8")]);
        expect(s.arguments).toEqual({ gen_args_0: { arg_0: s.target } });
      }
      const m = results.results[task];
      expect(m["word_perplexity,none"]).toBe(weighted_perplexity(lines.map((s) => s.word_perplexity)));
      expect(m["byte_perplexity,none"]).toBe(weighted_perplexity(lines.map((s) => s.byte_perplexity)));
      expect(m["bits_per_byte,none"]).toBe(bits_per_byte(lines.map((s) => s.bits_per_byte)));
      for (const k of ["word_perplexity", "byte_perplexity", "bits_per_byte"]) expect(m[`${k}_stderr,none`]).toBe("N/A");
      expect(results.higher_is_better[task]).toEqual({ word_perplexity: false, byte_perplexity: false, bits_per_byte: false });
    }
    expect(samples.docs_validation[1].word_perplexity[1]).toBe(3); // "héé aé  b": re.split(r"\s+") gives 3 words
    expect(samples.docs_validation[1].byte_perplexity[1]).toBe(12); // é is 2 UTF-8 bytes
    expect(samples.docs_train[2].word_perplexity[1]).toBe(4); // "ab\x85ba\ufeffaab ab\x1fb": re.split(r"\s+") gives 4 words

    // the same targets as tinylab documents given as ids exactly as scored (BOS, the text's bytes + 2, no EOS):
    // evaluate's own NLL sum is minus the samples' loglikelihood sum, split by split
    writeFileSync(
      join(dir, "ids.jsonl"),
      jsonl(DOCS.map((d) => ({ id: d.id, split: d.split, ids: [0, ...bytes(d.text).map((b) => b + 2)] }))),
    );
    const own = await tinylabHere([
      "evaluate",
      "--model",
      MODEL,
      "--data",
      join(dir, "ids.jsonl"),
      "--split",
      "all",
      "--final-test",
      "--json",
    ]);
    expect(own.code, own.output).toBe(0);
    const splits = JSON.parse(own.stdout).splits;
    for (const split of ["train", "validation", "test"]) {
      const lines = samples[`docs_${split}`];
      const sum = lines.reduce((s, l) => s + l.bits_per_byte[0], 0);
      expect(splits[split].targets).toBe(lines.reduce((n, l) => n + l.byte_perplexity[1], 0)); // one byte, one token
      expect(-sum).toBeCloseTo(splits[split].total_nll, 9);
    }
  });

  it("leaves the test split out without --final-test, and refuses an output path that is a file", async () => {
    const out = join(dir, "no-test");
    const r = await tinylabHere(["evaluate", "--model", MODEL, "--data", join(dir, "docs.jsonl"), "--lm-eval-out", out]);
    expect(r.code, r.output).toBe(0);
    expect(Object.keys(read(out).results.results)).toEqual(["docs_train", "docs_validation"]);
    const bad = await tinylabHere(["evaluate", "--model", MODEL, "--lm-eval-out", join(dir, "docs.jsonl", "x")]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--lm-eval-out");
  });
});

describe("choice --lm-eval-out", () => {
  it("writes a multiple_choice task: acc and acc_norm by the harness's rules and stderr, tinylab's Wilson interval beside them", async () => {
    const rows = [
      { id: "q1", question: "aa", candidates: ["b", "a"], answer: 0 },
      { id: "q2", question: "a", candidates: ["ab", "bb", "ba"], answer: 0 },
      { question: "b", candidates: ["aa", "b"], answer: 0 },
      { id: "q4", question: "aab", candidates: ["aab", "é"], answer: 1 },
    ];
    writeFileSync(join(dir, "quiz.jsonl"), jsonl(rows));
    const out = join(dir, "choice");
    const r = await tinylabHere(["choice", "--model", MODEL, "--data", join(dir, "quiz.jsonl"), "--json", "--lm-eval-out", out]);
    expect(r.code, r.output).toBe(0);
    const own = JSON.parse(r.stdout);
    const { results, samples } = read(out);
    checkResults(results, samples);
    const lines = samples.quiz_choice;
    lines.forEach(checkSample);
    const acc: number[] = [],
      accNorm: number[] = [];
    lines.forEach((s, i) => {
      expect(s.arguments).toEqual(
        Object.fromEntries(rows[i].candidates.map((c, j) => [`gen_args_${j}`, { arg_0: rows[i].question, arg_1: c }])),
      );
      expect(s.resps).toEqual(s.filtered_resps.map((p: string[]) => [p]));
      // lm_eval/api/task.py process_results for multiple_choice: argmax of the log-likelihoods, and of them over len(choice) characters
      const lls = s.filtered_resps.map(([ll]: string[]) => Number(ll));
      const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
      const gold = Number(s.target);
      acc.push(argmax(lls) === gold ? 1 : 0);
      accNorm.push(argmax(lls.map((l: number, j: number) => l / [...rows[i].candidates[j]].length)) === gold ? 1 : 0);
      expect([s.acc, s.acc_norm]).toEqual([acc[i], accNorm[i]]);
      expect(lls).toEqual(own.items[i].sum_log_lik);
      for (const [, greedy] of s.filtered_resps) expect(["True", "False"]).toContain(greedy);
    });
    const m = results.results.quiz_choice;
    expect(m["acc,none"]).toBe(mean(acc));
    expect(m["acc_stderr,none"]).toBe(mean_stderr(acc));
    expect(m["acc_norm,none"]).toBe(mean(accNorm));
    expect(m["acc_norm_stderr,none"]).toBe(mean_stderr(accNorm));
    expect(m["acc,none"]).toBe(own.acc.value); // summed log-likelihoods: the harness's acc is tinylab's
    // 4 questions: fewer than MIN_INTERVAL_DOCUMENTS, so no Wilson interval here or in choice's own JSON, and the same reason,
    // in the task's config (the interval's numbers from 10 questions: tests/eval/loggers/lm_eval.test.ts)
    expect(Object.keys(m).filter((k) => k.includes("wilson"))).toEqual([]);
    expect(own.acc.wilson).toBeNull();
    expect(results.configs.quiz_choice.tinylab_wilson95_reason).toBe(own.acc.wilson_reason);
    expect(results.higher_is_better.quiz_choice).toEqual({ acc: true, acc_norm: true });
  });
});

// A results file the harness wrote and its maintainers published (docs/examples/lm-eval-published/README.md says
// where from): read with the reader used on tinylab's, its keys set beside the ones tinylab writes.
describe("next to a published results file", () => {
  const PUBLISHED = "docs/examples/lm-eval-published/results_2025-02-25T02-50-33.665339.json";
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  // what the published file has and tinylab has no value for (docs/formats.md names them)
  const ONLY_PUBLISHED = ["end_time", "pretty_env_info", "start_time", "transformers_version", "upper_git_hash"];
  const ONLY_PUBLISHED_CONFIG = ["fewshot_seed", "model_revision", "numpy_seed", "random_seed", "torch_seed"];

  it("holds every key of the published file but the named few, each shared key with the same kind of value", async () => {
    const published = JSON.parse(readFileSync(PUBLISHED, "utf8"));
    expect(createHash("sha256").update(readFileSync(PUBLISHED)).digest("hex")).toBe(
      "d138e0670ac78cb43d9526662932b6391e60b815035729fd9e8ed6614397ebbf",
    );
    const out = join(dir, "beside-published");
    writeFileSync(join(dir, "beside.jsonl"), jsonl(DOCS));
    const r = await tinylabHere(["evaluate", "--model", MODEL, "--data", join(dir, "beside.jsonl"), "--lm-eval-out", out]);
    expect(r.code, r.output).toBe(0);
    const { results: ours } = read(out);
    expect(
      Object.keys(published)
        .filter((k) => !(k in ours))
        .sort(),
    ).toEqual(ONLY_PUBLISHED);
    expect(
      Object.keys(published.config)
        .filter((k) => !(k in ours.config))
        .sort(),
    ).toEqual(ONLY_PUBLISHED_CONFIG);
    for (const k of Object.keys(published).filter((k) => k in ours)) expect(kind(ours[k]), k).toBe(kind(published[k]));
    // a null in the published config is a value the harness leaves unset (device, limit, …); tinylab may set it
    for (const k of Object.keys(published.config).filter((k) => k in ours.config && published.config[k] !== null)) {
      expect(kind(ours.config[k]), `config.${k}`).toBe(kind(published.config[k]));
    }
    // the per-task tables: "metric,filter" keys with numbers, stderrs a number or "N/A", an alias; the counts alike
    for (const table of [published, ours]) {
      for (const [task, m] of Object.entries<Record<string, unknown>>(table.results)) {
        expect(m.alias).toBe(task);
        for (const [k, v] of Object.entries(m))
          if (k.includes(",")) expect(isNum(v) || (k.includes("_stderr,") && v === "N/A"), `${task} ${k}`).toBe(true);
        expect(Object.keys(table["n-samples"][task]).sort()).toEqual(["effective", "original"]);
        expect(kind(table.versions[task])).toBe("number");
        expect(kind(table["n-shot"][task])).toBe("number");
      }
    }
  });
});
