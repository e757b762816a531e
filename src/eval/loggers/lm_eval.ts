// lm-evaluation-harness's output files built from tinylab's scores: the results file (lm_eval/result_schema.py
// EvalResults) and one samples file per task (SampleResult per line), with the harness's per-document metrics and
// its aggregations (lm_eval/api/metrics.py). Pure: the caller writes the files. Not a task runner.
import { sha256Hex } from "../../util/primitives/sha256.ts";
import { proportion } from "../metrics/aggregate.ts";

// ---- lm_eval/api/metrics.py, one function each ----
export const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** sample_stddev / √n (mean_stderr): the standard error the harness prints for a mean metric. */
export const meanStderr = (xs: readonly number[]) =>
  Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1)) / Math.sqrt(xs.length);
const weightedMean = (items: readonly (readonly [number, number])[]) =>
  items.reduce((s, [a]) => s + a, 0) / items.reduce((s, [, b]) => s + b, 0);
export const weightedPerplexity = (items: readonly (readonly [number, number])[]) => Math.exp(-weightedMean(items));
export const bitsPerByte = (items: readonly (readonly [number, number])[]) => -weightedMean(items) / Math.LN2;

/** Python's str() of a float (repr: shortest round trip, scientific below 1e-4 and from 1e16), as sanitize_list writes responses. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, e] = x.toExponential().split("e");
  const exp = Number(e);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const fixed = x.toFixed(Math.max(0, (mantissa.split(".")[1]?.length ?? 0) - exp));
  return fixed.includes(".") ? fixed : `${fixed}.0`;
}

/** A task's name from its data's name: the file's stem in lower case, runs of other characters as "_" ("overfit fixture" → overfit_fixture). */
export const lmEvalDataName = (source: string) =>
  (source.split("/").pop() ?? source)
    .replace(/\.[^.]*$/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "") || "data";

/** lm_eval/utils.py sanitize_model_name: characters a path cannot hold become "__". */
export const sanitizeModelName = (name: string) => name.replace(/["<>:/|\\?*[\]]+/g, "__");

/** The harness's hashes (lm_eval/utils.py hash_string: sha256 hex of UTF-8); a doc is hashed as json.dumps(doc, indent=2). */
const hashes = (doc: Record<string, unknown>, prompt: string, target: string) => ({
  doc_hash: sha256Hex(JSON.stringify(doc, null, 2)),
  prompt_hash: sha256Hex(prompt),
  target_hash: sha256Hex(target),
});

/** One task's part of the results file, and its samples file's lines. */
export interface LmEvalTask {
  name: string;
  results: Record<string, string | number>;
  config: Record<string, unknown>;
  higherIsBetter: Record<string, boolean>;
  samples: Record<string, unknown>[];
}

/** A loglikelihood_rolling document: its text (what the harness's doc_to_target gives) and its score. */
export interface RollingDoc {
  doc: Record<string, unknown>;
  text: string;
  loglikelihood: number;
}

// Python's re `\s` on str (none above the BMP), which the harness's word count splits on. JavaScript's `\s` is not it:
// it takes U+FEFF and leaves U+001C-U+001F and U+0085, so a text holding those would count other words.
const PYTHON_SPACES = /[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

const ROLLING_METRICS = ["word_perplexity", "byte_perplexity", "bits_per_byte"] as const;

/** A perplexity task as the harness's loglikelihood_rolling tasks (wikitext) write it: words and UTF-8 bytes per document. */
export function rollingTask(name: string, docs: readonly RollingDoc[], config: Record<string, unknown>): LmEvalTask {
  const items = docs.map((d) => {
    const words = d.text.split(PYTHON_SPACES).length; // len(re.split(r"\s+", text))
    const bytes = new TextEncoder().encode(d.text).length;
    return {
      word_perplexity: [d.loglikelihood, words] as const,
      byte_perplexity: [d.loglikelihood, bytes] as const,
      bits_per_byte: [d.loglikelihood, bytes] as const,
    };
  });
  const results: Record<string, string | number> = { name, alias: name, sample_len: docs.length };
  for (const m of ROLLING_METRICS) {
    const xs = items.map((i) => i[m]);
    results[`${m},none`] = m === "bits_per_byte" ? bitsPerByte(xs) : weightedPerplexity(xs);
    results[`${m}_stderr,none`] = "N/A"; // stderr_for_metric has no formula for these aggregations
  }
  const samples = docs.map((d, i) => ({
    doc_id: i,
    doc: d.doc,
    target: d.text,
    arguments: { gen_args_0: { arg_0: d.text } },
    resps: [[pyFloat(d.loglikelihood)]],
    filtered_resps: [pyFloat(d.loglikelihood)],
    filter: "none",
    metrics: [...ROLLING_METRICS],
    ...hashes(d.doc, d.text, d.text),
    ...items[i],
  }));
  return {
    name,
    results,
    samples,
    higherIsBetter: Object.fromEntries(ROLLING_METRICS.map((m) => [m, false])),
    config: {
      task: name,
      output_type: "loglikelihood_rolling",
      doc_to_text: "",
      doc_to_target: "text",
      metric_list: ROLLING_METRICS.map((metric) => ({ metric })),
      num_fewshot: 0,
      ...config,
    },
  };
}

/** A multiple-choice question: context, choices (continuations as given), gold index, and each choice's summed log-likelihood and greediness. */
export interface ChoiceDoc {
  doc: Record<string, unknown>;
  context: string;
  choices: readonly string[];
  gold: number;
  loglikelihoods: readonly number[];
  greedy: readonly boolean[];
}

// np.argmax: the first of equal maxima
const argmax = (xs: readonly number[]) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);

/** A multiple_choice task: acc (argmax of log-likelihoods) and acc_norm (of log-likelihood per character of the choice), each with mean_stderr and, under keys naming it, tinylab's 95% Wilson interval. */
export function choiceTask(name: string, docs: readonly ChoiceDoc[], config: Record<string, unknown>): LmEvalTask {
  const scored = docs.map((d) => {
    const chars = d.choices.map((c) => [...c].length); // Python's len(): code points
    return {
      acc: argmax(d.loglikelihoods) === d.gold ? 1 : 0,
      acc_norm: argmax(d.loglikelihoods.map((l, j) => l / chars[j])) === d.gold ? 1 : 0,
    };
  });
  const results: Record<string, string | number> = { name, alias: name, sample_len: docs.length };
  let wilsonReason: string | undefined;
  for (const m of ["acc", "acc_norm"] as const) {
    const xs = scored.map((s) => s[m]);
    results[`${m},none`] = mean(xs);
    results[`${m}_stderr,none`] = xs.length > 1 ? meanStderr(xs) : "N/A";
    // under MIN_INTERVAL_DOCUMENTS questions no interval: its keys left out (a results value is a number) and the reason in the task's config
    const w = proportion(xs);
    if (w.interval) {
      results[`${m}_tinylab_wilson95_lower,none`] = w.interval.lo;
      results[`${m}_tinylab_wilson95_upper,none`] = w.interval.hi;
    } else wilsonReason = w.interval_reason;
  }
  const samples = docs.map((d, i) => {
    const pairs = d.loglikelihoods.map((l, j) => [pyFloat(l), d.greedy[j] ? "True" : "False"]);
    return {
      doc_id: i,
      doc: d.doc,
      target: String(d.gold),
      arguments: Object.fromEntries(d.choices.map((c, j) => [`gen_args_${j}`, { arg_0: d.context, arg_1: c }])),
      resps: pairs.map((p) => [p]),
      filtered_resps: pairs,
      filter: "none",
      metrics: ["acc", "acc_norm"],
      ...hashes(d.doc, d.context, String(d.gold)),
      ...scored[i],
    };
  });
  return {
    name,
    results,
    samples,
    higherIsBetter: { acc: true, acc_norm: true },
    config: {
      task: name,
      output_type: "multiple_choice",
      doc_to_text: "question",
      doc_to_choice: "candidates",
      doc_to_target: "answer",
      target_delimiter: "",
      metric_list: [{ metric: "acc" }, { metric: "acc_norm" }],
      num_fewshot: 0,
      ...config,
      ...(wilsonReason ? { tinylab_wilson95_reason: wilsonReason } : {}),
    },
  };
}

/** The model as the results file names it: its file, identity, size, context, special ids and where its weights come from. */
export interface LmEvalModel {
  path: string;
  sha256: string;
  parameters: number;
  contextLength: number;
  bos: number;
  eos: number;
  /** The training seed and update the weights come from (the model file's provenance). */
  seed: number;
  update: number;
}

/** What the results file says of the run beyond its tasks (lm_eval/evaluator.py simple_evaluate, lm_eval/loggers/evaluation_tracker.py). */
export interface LmEvalRun {
  model: LmEvalModel;
  batchSize: number;
  device: string;
  gitHash: string | null;
  /** UNIX seconds when the evaluation started, and its length in seconds. */
  start: number;
  seconds: number;
}

/** lm_eval/loggers/evaluation_tracker.py's file names: results_<date>.json, samples_<task>_<date>.jsonl, date = isoformat with ":" → "-". */
export function lmEvalDateId(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000`;
}

/** The files, by name: each task's samples (JSON Lines), then the results file (EvalResults with the tracker's fields, samples left out as the CLI does). */
export function lmEvalFiles(tasks: readonly LmEvalTask[], run: LmEvalRun, dateId: string): [string, string][] {
  const line = (s: Record<string, unknown>) => JSON.stringify(s, (_, v) => (typeof v === "number" && !Number.isFinite(v) ? fail(v) : v));
  const m = run.model;
  const byName = <T>(f: (t: LmEvalTask) => T) => Object.fromEntries(tasks.map((t) => [t.name, f(t)]));
  const results = {
    // group_subtasks names groups only (lm_eval/evaluator_utils.py), and these tasks are in none
    results: byName((t) => t.results),
    group_subtasks: {},
    configs: byName((t) => t.config),
    versions: byName(() => 1.0),
    "n-shot": byName(() => 0),
    higher_is_better: byName((t) => t.higherIsBetter),
    "n-samples": byName((t) => ({ original: t.samples.length, effective: t.samples.length })),
    config: {
      model: "tinylab",
      model_args: `pretrained=${m.path},sha256=${m.sha256},seed=${m.seed},update=${m.update}`,
      model_num_parameters: m.parameters,
      model_dtype: "float32",
      model_sha: m.sha256,
      batch_size: String(run.batchSize),
      batch_sizes: [],
      device: run.device,
      use_cache: null,
      limit: null,
      bootstrap_iters: 100000,
      gen_kwargs: null,
    },
    git_hash: run.gitHash,
    date: run.start,
    tokenizer_pad_token: ["", "-1"],
    tokenizer_eos_token: ["<eos>", String(m.eos)],
    tokenizer_bos_token: ["<bos>", String(m.bos)],
    eot_token_id: m.eos,
    max_length: m.contextLength,
    task_hashes: byName((t) => sha256Hex(t.samples.map((s) => `${s.doc_hash}${s.prompt_hash}${s.target_hash}`).join(""))),
    model_source: "tinylab",
    model_name: m.path,
    model_name_sanitized: sanitizeModelName(m.path),
    system_instruction: null,
    system_instruction_sha: null,
    fewshot_as_multiturn: false,
    chat_template: null,
    chat_template_sha: null,
    total_evaluation_time_seconds: String(run.seconds),
  };
  return [
    ...tasks.map((t): [string, string] => [`samples_${t.name}_${dateId}.jsonl`, t.samples.map((s) => line(s) + "\n").join("")]),
    [`results_${dateId}.json`, JSON.stringify(results, (_, v) => (typeof v === "number" && !Number.isFinite(v) ? fail(v) : v), 2)],
  ];
}

const fail = (v: number): never => {
  throw new Error(`lm-evaluation-harness output: refusing to write the non-finite value ${v}`);
};

/** The model's part of the results file from a loaded model file. */
export function lmEvalModel(
  path: string,
  loaded: {
    sha256: string;
    config: { contextLength: number };
    tokenizer: { bos: number; eos: number };
    provenance: { seed: number; update: number };
  },
  parameters: number,
): LmEvalModel {
  return {
    path,
    sha256: loaded.sha256,
    parameters,
    contextLength: loaded.config.contextLength,
    bos: loaded.tokenizer.bos,
    eos: loaded.tokenizer.eos,
    seed: loaded.provenance.seed,
    update: loaded.provenance.update,
  };
}
