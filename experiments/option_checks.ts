// The parsers of option values: each checks and converts what yargs gives (or a form field's text gives) and
// refuses a bad value in one line naming the flag and the value as typed. The catalogue (option_catalogue.ts)
// gives every option one of them.
import { MAX_CONTEXT_LENGTH, MODEL_CONFIG_FIELDS } from "../src/model/config.ts";
import { parseStrictJson } from "../src/util/formats/json_strict.ts";

/** An option's parser: the value as yargs gives it, checked and converted, or a one-line error naming the flag. */
export type Check<T = unknown> = (v: unknown, flag: string) => T;

/**
 * The value as the user typed it: yargs has already converted numbers (`NaN` or `abc` arrive as NaN, `1e14` as
 * 100000000000000), so the last `--flag V` or `--flag=V` in process.argv is quoted when it is there; otherwise
 * (a default, a camel-case spelling, a test parsing its own array) the value itself.
 */
export function typed(
  flag: string,
  v: unknown,
  argv: readonly string[] = typeof process === "undefined" ? [] : process.argv.slice(2),
): string {
  let raw: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${flag}` && i + 1 < argv.length) raw = argv[i + 1];
    else if (argv[i].startsWith(`--${flag}=`)) raw = argv[i].slice(flag.length + 3);
  }
  if (raw !== undefined && (typeof v !== "string" || v === raw)) return typeof v === "string" ? JSON.stringify(raw) : raw;
  return typeof v === "number" ? String(v) : (JSON.stringify(v) ?? String(v));
}

export const fail = (flag: string, what: string, v: unknown): never => {
  throw new Error(`--${flag} must be ${what}, got ${typed(flag, v)}`);
};
/**
 * A number option as typed: decimal digits with an optional fraction and exponent. Number() also reads hex, octal
 * and binary ("0x10" is 16), "Infinity" and blanks, none of which is a value anyone means for a count or a rate.
 */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** An integer as typed: digits, with at most a non-negative exponent (1e6); "25e-1" and "16.0" are integers only by rounding. */
const INTEGER = /^[+-]?\d+([eE]\+?\d+)?$/;

/**
 * The value of a number option: yargs hands the text as typed (src/cli/options.ts keeps number options as text), a
 * form field or a grid value its text, a default its number. Text that is not decimal is refused here, naming `what`.
 */
export const numberOf = (v: unknown, f: string, what: string): number => {
  if (typeof v !== "string") return typeof v === "number" ? v : fail(f, what, v);
  if (DECIMAL.test(v)) return Number(v);
  // quoted as typed and unquoted, as yargs's numbers were; a value Number() reads (0x10) is told why it is refused
  throw new Error(`--${f} must be ${what}${Number.isNaN(Number(v)) ? "" : ", written in decimal digits"}, got ${v}`);
};

/**
 * An integer option's value: decimal, integral as typed, and exact (past 2^53 − 1 distinct integers round to one
 * double, so 2^53 + 1 would silently become 2^53). `ok` is the option's own range, stated in `what`.
 */
const integerOf = (v: unknown, f: string, what: string, ok: (n: number) => boolean = () => true): number => {
  const n = numberOf(v, f, what);
  if (!Number.isInteger(n) || !ok(n)) return fail(f, what, n);
  if (!Number.isSafeInteger(n)) return fail(f, what.includes("2^53") ? what : `${what} of at most 2^53 − 1 in size`, n);
  if (typeof v === "string" && !INTEGER.test(v))
    throw new Error(`--${f} must be ${what}, written without a fraction or negative exponent, got ${v}`);
  return n;
};

/** A count: a positive integer, at most `max` (a named limit, its reason in `why`). */
export const countUpTo =
  (max: number, why: string): Check<number> =>
  (v, f) => {
    const n = positiveInt(v, f);
    return n <= max ? n : fail(f, `a positive integer ≤ ${max}${why}`, n);
  };
/** A count that may be 0, at most `max`. */
export const countFrom0UpTo =
  (max: number, why: string): Check<number> =>
  (v, f) => {
    const n = nonNegativeInt(v, f);
    return n <= max ? n : fail(f, `a non-negative integer ≤ ${max}${why}`, n);
  };
export const positiveInt: Check<number> = (v, f) => integerOf(v, f, "a positive integer", (n) => n >= 1);
export const nonNegativeInt: Check<number> = (v, f) => integerOf(v, f, "a non-negative integer", (n) => n >= 0);
export const safeInt: Check<number> = (v, f) => integerOf(v, f, "a safe integer (|n| ≤ 2^53 − 1)");
const finite = (f: string, v: unknown, what: string, ok: (n: number) => boolean): number => {
  const n = numberOf(v, f, what);
  return Number.isFinite(n) && ok(n) ? n : fail(f, what, n);
};
export const positive: Check<number> = (v, f) => finite(f, v, "a finite number > 0", (n) => n > 0);
export const nonNegative: Check<number> = (v, f) => finite(f, v, "a finite number ≥ 0", (n) => n >= 0);
export const probability: Check<number> = (v, f) => finite(f, v, "a number in [0, 1)", (n) => n >= 0 && n < 1);
/** A number in [0, 1]. */
export const unitInterval: Check<number> = (v, f) => finite(f, v, "a number in [0, 1]", (n) => n >= 0 && n <= 1);
export const nonEmpty: Check<string> = (v, f) =>
  typeof v === "string" && v.length > 0 ? v : fail(f, "a non-empty string (the option needs a value)", v);

/**
 * Text given on the command line, which must be UTF-8 as --text's files must: Node decodes the arguments with
 * U+FFFD in place of bytes that are not, so that character stands for invalid bytes and is refused (a prompt
 * would otherwise be continued from characters the user never typed).
 */
export const utf8Text: Check<string> = (v, f) => {
  if (typeof v !== "string") return fail(f, "a string (the option needs a value)", v);
  const at = v.indexOf("\uFFFD");
  if (at !== -1)
    throw new Error(
      `--${f}: not valid UTF-8 (character ${at + 1} is U+FFFD, which stands for bytes that decode to no character; the text must be UTF-8, as --text's files must)`,
    );
  return v;
};

/** One of the listed values (`def`, the command's default, is passed through). */
export const oneOf =
  (choices: readonly string[], def: unknown): Check =>
  (v, f) =>
    v === def || (typeof v === "string" && choices.includes(v)) ? v : fail(f, `one of ${choices.join(", ")}`, v);

/** An integer in [min, max], the bound stated in the message. */
export const intIn =
  (min: number, max: number, why = ""): Check<number> =>
  (v, f) =>
    integerOf(v, f, `an integer in [${min}, ${max}]${why}`, (n) => n >= min && n <= max);

/**
 * Most bootstrap replicates a report takes. Each replicate costs a pass over the documents and 8 bytes per
 * statistic, so 1e9 exhausts the heap (V8 aborts); at 100,000 the Monte-Carlo error of a 95% percentile bound
 * is far below the sampling error it describes, so more buys nothing.
 */
export const MAX_REPLICATES = 100_000;
export const REPLICATES_WHY = " (fewer give no interval; more add no precision and exhaust memory)";

/*
 * The named limits of the count options, each stated in its refusal. A count past one is a slip or a runaway (a
 * command that would run until killed or exhaust memory), never a run this lab can finish on one machine; the
 * model's own limits (MAX_VOCAB_SIZE, MAX_CONTEXT_LENGTH, MAX_PARAMETERS) and the training memory estimate
 * (src/lab/memory.ts) bound the shapes further.
 */
/** Updates, and every interval counted in updates: 10^8 updates of even the smallest model is more than a day of work. */
export const MAX_UPDATES = 100_000_000;
export const UPDATES_WHY = " (MAX_UPDATES: more is more than a day of updates)";
/** Microbatches per update: each is a forward and a backward pass of a batch, so 4096 is hours per update. */
export const MAX_MICROBATCHES = 4096;
/** Rows of a batch as parsed; the training memory estimate refuses far fewer for any model but the smallest. */
export const MAX_BATCH_ROWS = 2 ** 20;
/** Blocks of a model as parsed (MAX_PARAMETERS refuses a real width far sooner); each is a layer of kernels. */
export const MAX_LAYERS = 1024;
/** A width (--d-model, --d-ff, --heads) as parsed: one row of a 2^16-wide matrix is already past MAX_PARAMETERS' share. */
export const MAX_WIDTH = 2 ** 16;
/** Continuations of one sample command: each is a whole generation, and a table of 1000 is already more than anyone reads. */
export const MAX_SAMPLES = 1000;
/** Tokens generated per continuation: the longest context a model has (MAX_CONTEXT_LENGTH); past a model's own context generation only slides its window. */
export const MAX_NEW_TOKENS = MAX_CONTEXT_LENGTH;
/** Canary copies inserted into the training documents: each copy is a document; 10^5 of them is a corpus of canaries. */
export const MAX_REPETITIONS = 100_000;

/** A comma-separated list of safe integers, e.g. `39,40,41`; `min` bounds each, `unique` refuses repeats. */
export const intList =
  ({ min = -Number.MAX_SAFE_INTEGER, unique = false } = {}): Check<number[]> =>
  (v, f) => {
    const parts = String(v)
      .split(",")
      .map((s) => s.trim());
    if (parts.every((p) => p.length === 0)) fail(f, "a comma-separated list of integers", v);
    // an empty element ("1,,2", "1,2,") is a slip, not a value: dropping it would run a list the user did not write
    const empty = parts.findIndex((p) => p.length === 0);
    if (empty !== -1)
      throw new Error(
        `--${f}: element ${empty + 1} of ${JSON.stringify(String(v))} is empty; give each integer once, separated by single commas`,
      );
    const seen = new Set<number>();
    return parts.map((p) => {
      const n = INTEGER.test(p) ? Number(p) : NaN;
      if (!Number.isInteger(n)) throw new Error(`--${f}: "${p}" is not an integer`);
      if (!Number.isSafeInteger(n))
        throw new Error(`--${f}: "${p}" is not a safe integer (|n| ≤ 2^53 − 1: beyond it, distinct integers round to one double)`);
      if (n < min) throw new Error(`--${f}: "${p}" is below ${min}`);
      if (unique && seen.has(n)) throw new Error(`--${f}: "${p}" is given twice (each one run; a repeat would count one run as two)`);
      seen.add(n);
      return n;
    });
  };

/**
 * A JSON object of model-config overrides: a key given twice is refused (JSON.parse keeps the last), and each known
 * key is checked by the config's own field schema as typed (266.0 is not an integer); unknown keys are refused by
 * resolveModelConfig.
 */
/** Keys of Object.prototype's machinery, which no option's JSON may hold. */
const FORBIDDEN_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

export const jsonObject: Check<Record<string, unknown>> = (v, f) => {
  const { value, literal } = parseStrictJson(String(v), `--${f}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`--${f} must be a JSON object`);
  const fields = MODEL_CONFIG_FIELDS as Record<
    string,
    (v: unknown, path: string, cx: { file: string; literal: typeof literal }) => unknown
  >;
  for (const [k, x] of Object.entries(value)) {
    // a key that names an object's machinery would be taken for it by a spread or a lookup downstream (a
    // "__proto__" key was silently dropped): refused here, as the model-file reader's schema refuses it
    if (FORBIDDEN_KEYS.includes(k))
      throw new Error(`--${f}: key ${JSON.stringify(k)} is not a model-config field (the fields: ${Object.keys(fields).join(", ")})`);
    if (Object.hasOwn(fields, k)) fields[k](x, k, { file: `--${f}`, literal });
  }
  return value as Record<string, unknown>;
};

export interface Spec {
  type: "number" | "string" | "boolean";
  describe: string;
  check?: Check;
  choices?: readonly string[];
  /** The recipe's name for the value, where it is not the flag in camel case (--clip is clipNorm). */
  key?: string;
  /** The option's default in each recipe that has one, by recipe (option_catalogue.ts defaultOf reads it). */
  default?: Readonly<Record<string, unknown>>;
}

/** sbatch options the sweep sets itself (the array, where its output goes, where it runs, how it reports): refused in --sbatch. */
const SBATCH_OWN = ["array", "output", "error", "chdir", "parsable", "wrap", "wait"];

/**
 * --sbatch: the site's own sbatch options as `name=value` words without their dashes (`partition=cpu time=0:30:00`; a
 * value starting with - would read as another option of ours), each given to sbatch as `--name=value`.
 */
export const sbatchOptions: Check<string[]> = (v, f) => {
  const words =
    typeof v === "string"
      ? v
          .trim()
          .split(/\s+/)
          .filter((w) => w !== "")
      : [];
  if (words.length === 0) return fail(f, "sbatch's long options without their dashes, e.g. 'partition=cpu time=0:30:00'", v);
  return words.map((w) => {
    const m = /^(?:--)?([a-z][a-z-]*)(=.+)?$/.exec(w);
    if (!m)
      return fail(f, `sbatch's long options as name=value words ('partition=cpu time=0:30:00'), and ${JSON.stringify(w)} is not one`, v);
    if (SBATCH_OWN.includes(m[1])) return fail(f, `the site's own options only (the sweep sets ${SBATCH_OWN.join(", ")} itself)`, v);
    return `--${m[1]}${m[2] ?? ""}`;
  });
};
/** --task: a plan entry (0-based), or `env` for the array index a scheduler sets. */
export const taskIndex: Check<number | "env"> = (v, f) => {
  if (v === "env") return v;
  const t = String(v);
  return /^\d+$/.test(t) && Number.isSafeInteger(Number(t))
    ? Number(t)
    : fail(f, "a plan entry (0, 1, …) or env ($SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)", v);
};
