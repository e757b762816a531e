// Every option of every command, defined once: one name, one type, one description, one parser, one recipe key
// and its default in each recipe per idea, in groups (training, model shape, data, output, engine), and an option
// named in text looked up and parsed. Not yargs wiring (src/cli/options.ts adds these to a command); loads no engine and no node: module,
// so the lab page parses its form fields with it.
import { BACKEND_CHOICES, KERNELS_CHOICES } from "../src/util/backend_choice.ts";
import { SPLITS } from "../src/data/documents.ts";
import { TOKENIZER_KINDS } from "../src/data/tokenizer.ts";
import { MAX_CONTEXT_LENGTH, MAX_VOCAB_SIZE } from "../src/model/config.ts";
import { BIN_SCHEMES, MAX_BINS } from "../src/eval/metrics/calibration.ts";
import { MIN_REPLICATES } from "../src/eval/metrics/intervals.ts";
import { MAX_WORKERS } from "../src/train/pool.ts";
import { DIVERGENCE_POLICIES } from "../src/lab/divergence.ts";
import { CONVENTIONS } from "../src/eval/passes/convention.ts";
import {
  countFrom0UpTo,
  countUpTo,
  intIn,
  intList,
  jsonObject,
  MAX_BATCH_ROWS,
  MAX_LAYERS,
  MAX_MICROBATCHES,
  MAX_NEW_TOKENS,
  MAX_REPETITIONS,
  MAX_REPLICATES,
  MAX_SAMPLES,
  MAX_UPDATES,
  MAX_WIDTH,
  nonEmpty,
  nonNegative,
  oneOf,
  positive,
  probability,
  REPLICATES_WHY,
  safeInt,
  sbatchOptions,
  taskIndex,
  unitInterval,
  utf8Text,
  UPDATES_WHY,
  type Check,
  type Spec,
} from "./option_checks.ts";

/** The baselines `compare --baseline` accepts: the count baselines of src/baselines/ngram.ts at smoothing k = 1. */
export const COMPARE_BASELINES = ["uniform", "unigram-add1", "bigram-add1", "unigram-prior-bigram"] as const;
/** Where the sweep's runs go: this machine's processes, or one Slurm job array (src/node/sweep_slurm.ts). */
export const SWEEP_SCHEDULERS = ["local", "slurm"] as const;
/** What `tinylab export --format` writes (experiments/export.ts writes each). */
export const EXPORT_FORMATS = ["hf-gpt2", "onnx"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The catalogue, by group. The group's title heads its options in `--help`. */
export const OPTION_GROUPS = {
  // `default` is the option's default by recipe; train takes overfit's where it has none of its own, and with
  // --text brown's (experiments/train_options.ts), so those sets cannot drift apart
  "Training:": {
    seed: {
      type: "number",
      describe: "seed of the run: initialization, data order and dropout are named streams of it",
      check: safeInt,
      default: { cyclic: 1, brown: 1, compare: 0, sample: 0, gradcheck: 7 },
    },
    seeds: {
      type: "string",
      describe: "comma-separated seeds, one run each",
      check: intList({ unique: true }),
      default: { overfit: [39, 40, 41], sweep: [39, 40, 41] },
    },
    updates: {
      type: "number",
      describe: "optimizer updates in total (per seed)",
      check: countUpTo(MAX_UPDATES, UPDATES_WHY),
      default: { overfit: 80, cyclic: 300, text: 1000, brown: 4495 },
    },
    lr: {
      type: "number",
      describe: "learning rate (the peak, where a schedule warms up or decays)",
      check: positive,
      default: { overfit: 0.02, cyclic: 0.01, brown: 3e-3 },
    },
    warmup: {
      type: "number",
      describe: "linear warmup updates",
      check: countFrom0UpTo(MAX_UPDATES, UPDATES_WHY),
      default: { train: 0, brown: 30 },
    },
    "cosine-steps": {
      type: "number",
      check: countFrom0UpTo(MAX_UPDATES, UPDATES_WHY),
      default: { train: 0 },
      describe:
        "the schedule's length: cosine decay over this many updates (0 = constant after warmup); a run is extended by raising --updates with this unchanged",
    },
    "min-lr": { type: "number", describe: "floor of the cosine decay", check: nonNegative, default: { brown: 3e-4 } },
    clip: { type: "number", describe: "global gradient-norm clip", check: positive, key: "clipNorm" },
    "weight-decay": {
      type: "number",
      describe: "AdamW decoupled weight decay (matrices and embeddings only)",
      check: nonNegative,
      default: { train: 0, brown: 0.1 },
    },
    microbatches: {
      type: "number",
      describe: "microbatches accumulated per update (token-weighted)",
      check: countUpTo(MAX_MICROBATCHES, " (MAX_MICROBATCHES: each is a forward and backward pass)"),
      default: { train: 2, text: 2, brown: 2 },
    },
    "batch-rows": {
      type: "number",
      describe:
        "rows (documents or windows) per batch (refused when one batch's training memory, estimated from the model's shape, passes MAX_TRAINING_BYTES)",
      check: countUpTo(MAX_BATCH_ROWS, " (MAX_BATCH_ROWS)"),
      default: { train: 1, cyclic: 16, text: 8, brown: 16, evaluate: 1 },
    },
    shuffle: { type: "boolean", describe: "reshuffle the training microbatches every epoch (seeded)" },
    checkpoints: {
      type: "string",
      describe: "comma-separated updates at which the splits are scored (each in [0, --updates])",
      check: intList({ min: 0 }),
      default: { overfit: [0, 10, 20, 40, 80] },
    },
    "save-every": {
      type: "number",
      describe: "write the training state every N updates (and after the last)",
      check: countUpTo(MAX_UPDATES, UPDATES_WHY),
      default: { text: 100, brown: 100 },
    },
    resume: {
      type: "boolean",
      describe:
        "continue the run in the output directory from its training state (refused if any setting differs; a run stopped before its first state starts at update 0)",
    },
    overwrite: {
      type: "boolean",
      describe:
        "the directory holds a run: remove that run's files (only those) and start afresh; without it or --resume such a directory is refused",
    },
    patience: {
      type: "number",
      describe: "with --eval-every: stop early after N validation scorings in a row without a new lowest validation NLL",
      check: countUpTo(MAX_UPDATES, UPDATES_WHY),
    },
    "eval-every": {
      type: "number",
      describe: "score validation every N updates during training",
      check: countUpTo(MAX_UPDATES, UPDATES_WHY),
      default: { cyclic: 25, text: 100, brown: 1000 },
    },
    "on-divergence": {
      type: "string",
      describe: "a finite training loss above 3 × ln V: warn once, or stop the run before that update's state is saved",
      choices: DIVERGENCE_POLICIES,
      default: { train: "warn", brown: "warn" },
    },
    "log-every": {
      type: "number",
      describe: "print the training loss every N updates",
      check: countUpTo(MAX_UPDATES, UPDATES_WHY),
      default: { train: 10, text: 50 },
    },
  },
  "Model shape:": {
    layers: { type: "number", describe: "transformer blocks", check: countUpTo(MAX_LAYERS, " (MAX_LAYERS)"), default: { brown: 2 } },
    "d-model": { type: "number", describe: "embedding width", check: countUpTo(MAX_WIDTH, " (MAX_WIDTH)"), default: { brown: 128 } },
    heads: {
      type: "number",
      describe: "attention heads (must divide --d-model)",
      check: countUpTo(MAX_WIDTH, " (MAX_WIDTH)"),
      default: { brown: 4 },
    },
    "d-ff": { type: "number", describe: "feed-forward width", check: countUpTo(MAX_WIDTH, " (MAX_WIDTH)"), default: { brown: 512 } },
    context: { type: "number", describe: "context length in tokens", check: intIn(1, MAX_CONTEXT_LENGTH), default: { brown: 128 } },
    dropout: { type: "number", describe: "dropout rate in training", check: probability, default: { brown: 0 } },
    vocab: { type: "number", describe: "vocabulary size", check: intIn(1, MAX_VOCAB_SIZE), default: { brown: 512 } },
    config: {
      type: "string",
      describe: "named model configuration (preset)",
      choices: ["overfit", "micro"],
      default: { gradcheck: "overfit" },
    },
    "model-config": {
      type: "string",
      describe: "JSON overrides of the model config for any other key, e.g. '{\"tiedHead\": false}'",
      check: jsonObject,
    },
  },
  "Data:": {
    data: {
      type: "string",
      describe: "JSONL documents file, one {id, split, source, text|ids} per line (default: the built-in overfit fixture)",
      check: nonEmpty,
    },
    model: {
      type: "string",
      describe:
        "model file (.safetensors) written by --save-model, or a Hugging Face / transformers.js model directory (config.json, tokenizer.json, onnx/model.onnx or onnx/decoder_model_merged.onnx; docs/any-model.md)",
      check: nonEmpty,
    },
    convention: {
      type: "string",
      choices: CONVENTIONS,
      describe:
        "with a model directory: which ids surround each text; rolling = lm-evaluation-harness's loglikelihood_rolling (BOS, or EOS where there is no BOS, as prefix; the text's tokens are the targets; no EOS), tinylab = BOS + text + EOS with the EOS scored, as tinylab's own documents",
      default: { "model-dir": "rolling" },
    },
    graph: {
      type: "string",
      describe: "with a model directory: its ONNX graph's path inside it (default onnx/model.onnx, else onnx/decoder_model_merged.onnx)",
      check: nonEmpty,
    },
    "allow-non-float32": {
      type: "boolean",
      describe:
        "with a model directory: score or sample a graph whose weights or operators are not float32 (a quantized or float16 export), refused otherwise",
    },
    run: {
      type: "string",
      describe:
        "run directory of train --text: score the split it trained on, rebuilt from its manifest.json and its text (each document's sha256 checked); without --model, its model.safetensors",
      check: nonEmpty,
    },
    text: {
      type: "string",
      describe:
        "UTF-8 text file (documents separated by blank lines) or a directory of .txt files (one document each, the sub-directory as its source)",
      check: nonEmpty,
    },
    "one-per-line": { type: "boolean", describe: "with --text FILE: one document per non-blank line" },
    "validation-fraction": {
      type: "number",
      describe: "share of the documents (per source) held out for validation",
      check: probability,
      default: { text: 0.1 },
    },
    "test-fraction": {
      type: "number",
      describe: "share of the documents (per source) held out for test",
      check: probability,
      default: { text: 0.1 },
    },
    tokenizer: {
      type: "string",
      describe: "byte = UTF-8 bytes; bpe = byte-level BPE of --vocab ids learned on the train split only",
      choices: TOKENIZER_KINDS,
      default: { text: "bpe" },
    },
    "split-seed": {
      type: "number",
      describe: "seed of the train/validation/test split (its own stream: changing --seed moves no document)",
      check: safeInt,
      default: { cyclic: 1, text: 0, brown: 0 },
    },
    "split-file": {
      type: "string",
      describe: 'JSON {"train": [[ids]], "validation": [...], "test": [...]} used exactly instead of --split-seed',
      check: nonEmpty,
    },
    split: { type: "string", describe: "split to score", choices: [...SPLITS, "all"], default: { compare: "validation", evaluate: "all" } },
    stride: {
      type: "number",
      describe:
        "window stride, 1..context (default: the context: non-overlapping windows, a document that fits is one window, a longer one is scored in windows of the context, every target once)",
      check: intIn(1, MAX_CONTEXT_LENGTH, " (MAX_CONTEXT_LENGTH)"),
    },
    strides: {
      type: "string",
      describe: "comma-separated window strides (each 1..context), perplexity scored at each",
      check: intList({ min: 1, unique: true }),
    },
    "final-test": { type: "boolean", describe: "also score the test split: a final report, never for choosing anything" },
  },
  "Report:": {
    replicates: {
      type: "number",
      describe: `bootstrap replicates (${MIN_REPLICATES}..${MAX_REPLICATES})`,
      check: intIn(MIN_REPLICATES, MAX_REPLICATES, REPLICATES_WHY),
      default: { overfit: 2000, compare: 2000 },
    },
    canary: {
      type: "string",
      describe: "canary string to probe (its last --canary-secret tokens given the rest)",
      check: nonEmpty,
      default: { canary: "<Q7|zebra|X9>" },
    },
    "canary-secret": {
      type: "number",
      describe: "tokens of the canary treated as its secret",
      check: intIn(1, MAX_CONTEXT_LENGTH, " (MAX_CONTEXT_LENGTH)"),
      key: "secretTokens",
      default: { canary: 2 },
    },
    "canary-reference": {
      type: "string",
      describe: "model file fitted WITHOUT the canary, for the with/without comparison",
      check: nonEmpty,
    },
    "canary-control": {
      type: "string",
      describe: "control canary: never inserted, probed the same way, to show what an unseen string of the same shape gets",
      check: nonEmpty,
      key: "control",
      default: { canary: "<Q7|zebra|K4>" },
    },
    "canary-sweep": {
      type: "string",
      describe: "comma-separated repetition counts of the canary, one fitted model each (0 = never inserted)",
      check: intList({ min: 0, unique: true }),
      key: "repetitions",
      default: { canary: [0, 1, 3, 8] },
    },
    "canary-repetitions": {
      type: "number",
      describe: "copies of the canary inserted into the training documents",
      check: countFrom0UpTo(MAX_REPETITIONS, " (MAX_REPETITIONS)"),
      default: { brown: 8 },
    },
    baseline: {
      type: "string",
      describe: "count baseline fitted on the data's train split (smoothing k = 1) to compare against",
      choices: COMPARE_BASELINES,
    },
    "bits-per-byte": { type: "boolean", describe: "compare in bits per UTF-8 byte only (required when the two tokenizers differ)" },
    bins: {
      type: "number",
      describe: `calibration bins (reliability table and ECE; 1..${MAX_BINS})`,
      check: intIn(1, MAX_BINS, " (MAX_BINS: past it a bin holds next to nothing)"),
    },
    scheme: {
      type: "string",
      describe: "calibration binning: equal-width bins on [0, 1], or equal-mass (the same number of predictions each)",
      choices: BIN_SCHEMES,
    },
    smoothing: {
      type: "number",
      describe: "the count baselines' smoothing k: add-k bigram (C_uv + k)/(C_u + kV), and the unigram-prior bigram's kV pseudo-counts",
      check: positive,
      default: { canary: 0.05 },
    },
    lambda: {
      type: "number",
      describe:
        "unigram-prior bigram as the fixed mixture λ·add-k + (1 − λ)·unigram (0 = unigram, 1 = plain add-k); default: per-context weight C_u/(C_u + kV)",
      check: unitInterval,
    },
  },
  "Generation:": {
    prompt: {
      type: "string",
      describe: "text to continue (encoded after BOS with the model file's tokenizer); not empty",
      check: (v, f) => utf8Text(nonEmpty(v, f), f),
    },
    temperature: {
      type: "number",
      describe: "sampling temperature: 0 = greedy (top token, lowest id on ties), > 0 = sample from softmax(log p / T)",
      check: nonNegative,
      default: { sample: 0 },
    },
    "top-k": {
      type: "number",
      describe: "sample only among the k most probable tokens (1..vocabulary)",
      check: intIn(1, MAX_VOCAB_SIZE, " (MAX_VOCAB_SIZE)"),
    },
    "max-tokens": {
      type: "number",
      describe: `tokens to generate at most (stops early after EOS; 1..${MAX_NEW_TOKENS}, the longest context)`,
      check: intIn(1, MAX_NEW_TOKENS, " (MAX_NEW_TOKENS: the longest context a model has)"),
      default: { sample: 32 },
    },
    samples: {
      type: "number",
      describe: `continuations to draw (1..${MAX_SAMPLES}); sample i uses the seed's sampling stream i, so it does not depend on --samples`,
      check: intIn(1, MAX_SAMPLES, " (MAX_SAMPLES)"),
      default: { sample: 1 },
    },
  },
  "Output:": {
    out: {
      type: "string",
      describe: "output directory (results are written into it under fixed names)",
      check: nonEmpty,
      default: {
        overfit: "results",
        cyclic: "results",
        text: "results/train",
        brown: "results/brown",
        compare: "results/compare",
        report: "results/report",
        lab: "results/lab",
        sweep: "results/sweep",
      },
    },
    json: { type: "boolean", describe: "print the result as JSON instead of the table" },
    figures: { type: "boolean", describe: "write SVG figures beside the JSON (--no-figures to skip)" },
    "save-model": { type: "string", describe: "write the final model file (.safetensors) to this path", check: nonEmpty },
    tensorboard: {
      type: "boolean",
      describe:
        "also write the training history as a TensorBoard event file (events.out.tfevents.tinylab) into --out: loss, learning rate, gradient norm, validation NLL and tokens/s at history.json's updates",
    },
    "lm-eval-out": {
      type: "string",
      describe:
        "also write lm-evaluation-harness's files into this directory: results_<date>.json and samples_<task>_<date>.jsonl per task (docs/formats.md)",
      check: nonEmpty,
    },
    format: {
      type: "string",
      describe:
        "export format: hf-gpt2 = a Hugging Face GPT-2 directory (config.json, model.safetensors, tokenizer.json, onnx/model.onnx: what transformers.js loads); onnx = the ONNX graph alone (model.onnx)",
      choices: EXPORT_FORMATS,
    },
  },
  "Lab page:": {
    port: {
      type: "number",
      describe: "localhost port the lab page is served on (0 = any free port)",
      check: intIn(0, 65535),
      default: { lab: 8316 },
    },
    "build-only": { type: "boolean", describe: "build the page into --out and exit without serving it" },
  },
  "Sweep:": {
    jobs: {
      type: "number",
      describe: `runs at once, each its own process (default: the machine's cores; 1..${MAX_WORKERS})`,
      check: intIn(1, MAX_WORKERS, " (MAX_WORKERS: each run is a process with its own engine)"),
    },
    grid: {
      type: "string",
      describe: "a grid over one or two options, e.g. lr=1e-3,3e-3 or 'lr=1e-3,3e-3 batch-rows=4,8' (every combination, each over --seeds)",
      check: nonEmpty,
    },
    collect: {
      type: "string",
      describe: "merge the finished run directories under DIR into one table and JSON, running nothing",
      check: nonEmpty,
    },
    scheduler: {
      type: "string",
      describe:
        "where the runs go: local = this machine's processes, --jobs at a time; slurm = one Slurm job array of the unfinished runs (--jobs caps how many run at once), waited on, then read back into the same table",
      choices: SWEEP_SCHEDULERS,
      default: { sweep: "local" },
    },
    sbatch: {
      type: "string",
      describe:
        "with --scheduler slurm: the site's own sbatch options as name=value words, each passed as --name=value, e.g. 'partition=cpu time=0:30:00 account=lab mem=2G'",
      check: sbatchOptions,
    },
    plan: {
      type: "boolean",
      describe: "print the plan, one numbered entry per run (its folder and command line; with --json as JSON), and run nothing",
    },
    task: {
      type: "string",
      describe:
        "run entry I of the plan (0-based) exactly as the local sweep runs it, for a scheduler's array task; env = I from $SLURM_ARRAY_TASK_ID or a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX",
      check: taskIndex,
    },
  },
  "Engine:": {
    backend: {
      type: "string",
      describe: "tfjs backend: auto = tensorflow (tfjs-node) if installed, else wasm, else cpu (default from TINYLAB_BACKEND)",
      choices: BACKEND_CHOICES,
    },
    kernels: {
      type: "string",
      describe:
        "who computes the matrix products (and runs whole graphs) under the wasm backend: auto = onnxruntime-node where it loads, else tfjs-wasm's own (the default of every command on your data); tfjs = tfjs-wasm's own (the default of overfit, cyclic and gradcheck, whose digits the browser lab reproduces); onnxruntime = onnxruntime-node's MLAS or an error naming what to install; recorded with every result; the environment variable TINYLAB_KERNELS, when set, replaces the command's default, and an explicit --kernels wins over it",
      choices: KERNELS_CHOICES,
    },
    workers: {
      type: "number",
      check: intIn(1, MAX_WORKERS, " (MAX_WORKERS: each is an engine and a model copy; past the cores they only wait)"),
      describe:
        "threads that train and score, this one included (default: the cores, capped by the microbatches per update or the batches scored; 1 for a model too small to pay for a thread, as the overfit and cyclic models); results are bit-identical for any count",
    },
  },
} as const satisfies Record<string, Record<string, Spec>>;

type Catalogue = typeof OPTION_GROUPS;
export type OptionName = { [G in keyof Catalogue]: keyof Catalogue[G] }[keyof Catalogue] & string;
/** Every option's spec by name, the groups merged (each name is in one group). */
type Specs = { [G in keyof Catalogue]: (x: Catalogue[G]) => void }[keyof Catalogue] extends (x: infer I) => void ? I : never;
/** What an option's parser gives: one of its choices, its check's result, or a boolean. */
export type OptionValue<N extends OptionName> = Specs[N] extends { choices: readonly (infer C)[] }
  ? C
  : Specs[N] extends { check: Check<infer T> }
    ? T
    : boolean;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
/** The recipe's name for an option's value: its declared `key`, else the flag in camel case (batch-rows is batchRows). */
export type OptionKey<N extends OptionName> = Specs[N] extends { key: infer K extends string } ? K : Camel<N>;
/** A recipe's typed options for these catalogue options: each under its recipe key, of its parser's type. */
export type OptionsOf<N extends OptionName> = { [K in N as OptionKey<K>]: OptionValue<K> };
/** The recipes that hold a default for an option in its catalogue entry. */
export type RecipeWithDefault<N extends OptionName> = Specs[N] extends { default: infer D } ? keyof D & string : never;
/** An option's default in a recipe, typed as written there (a list as a mutable copy), so a recipe narrower than the option (compare's split) keeps its type. */
export type DefaultOf<N extends OptionName, R extends string> = Specs[N] extends { default: infer D }
  ? R extends keyof D
    ? D[R] extends readonly (infer E)[]
      ? E[]
      : D[R]
    : never
  : never;

/**
 * An option's default in a recipe, from its catalogue entry: the one place a default is written (train takes
 * overfit's where it has none of its own, and with --text brown's: experiments/train_options.ts).
 */
export function defaultOf<N extends OptionName, const R extends RecipeWithDefault<N>>(name: N, recipe: R): DefaultOf<N, R> {
  const d = findOption(name)[1].default;
  if (!d || !Object.hasOwn(d, recipe)) throw new Error(`no default of --${name} for ${recipe} in the catalogue`);
  const v = d[recipe];
  // a list is copied, so no recipe's default object shares (and could change) the catalogue's
  return (Array.isArray(v) ? [...v] : v) as DefaultOf<N, R>;
}
export const optionKey = (name: string): string => findOption(name)[1].key ?? name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Whether a name (say, a --grid axis) is an option of the catalogue. */
export const isOptionName = (name: string): name is OptionName => Object.values(OPTION_GROUPS).some((g) => Object.hasOwn(g, name));

export const findOption = (name: string): [string, Spec] => {
  for (const [group, specs] of Object.entries(OPTION_GROUPS))
    if (Object.hasOwn(specs, name)) return [group, (specs as Record<string, Spec>)[name]];
  throw new Error(`no option "${name}" in the catalogue`);
};

/** The option in the catalogue a mistyped name most likely means: its hyphen parts' initials (learning-rate → lr), or one edit away. */
export function nearestOption(name: string): string | undefined {
  const names = Object.values(OPTION_GROUPS).flatMap((g) => Object.keys(g));
  const initials = name
    .split(/[-_]/)
    .map((p) => p[0] ?? "")
    .join("");
  const oneEdit = (a: string, b: string) => {
    if (Math.abs(a.length - b.length) > 1) return false;
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return a.slice(i + 1) === b.slice(i + 1) || a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i);
  };
  return names.find((n) => n === initials && name.includes("-")) ?? names.find((n) => oneEdit(n, name));
}

/**
 * One option's value from the text of a form field, converted by its type and checked by the same parser as on
 * the command line (the lab's web page takes --seeds, --updates, --checkpoints and --lr this way).
 */
export function parseOptionText<N extends OptionName>(name: N, text: string): OptionValue<N> {
  const [, spec] = findOption(name);
  const t = text.trim();
  if (spec.type === "number" && (t === "" || !Number.isFinite(Number(t))))
    throw new Error(`--${name} must be a number, got ${JSON.stringify(text)}`);
  if (spec.type === "boolean" && t !== "true" && t !== "false")
    throw new Error(`--${name} must be true or false, got ${JSON.stringify(text)}`);
  // a number goes to its parser as text, as on the command line, so "0x10" and 2^53 + 1 are refused the same way
  const v = spec.type === "boolean" ? t === "true" : t;
  const check = spec.choices ? oneOf(spec.choices, undefined) : spec.check;
  return (check ? check(v, name) : v) as OptionValue<N>;
}

/**
 * A recipe's value of an option checked by the option's own parser, so a caller that is not the command line (the
 * lab page, a test) is refused in the command line's words.
 */
export function checkOption<N extends OptionName>(name: N, v: OptionValue<N>): OptionValue<N> {
  const [, spec] = findOption(name);
  const check = spec.choices ? oneOf(spec.choices, undefined) : spec.check;
  return (check ? check(v, name) : v) as OptionValue<N>;
}
