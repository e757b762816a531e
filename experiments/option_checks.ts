// The parsers of option values: each checks and converts what yargs gives (or a form field's text gives) and
// refuses a bad value in one line naming the flag and the value as typed. The catalogue (option_catalogue.ts)
// gives every option one of them.
import { MODEL_CONFIG_FIELDS } from "../src/model/config.ts";
import { parseStrictJson } from "../src/util/json_strict.ts";

/** An option's parser: the value as yargs gives it, checked and converted, or a one-line error naming the flag. */
export type Check<T = unknown> = (v: unknown, flag: string) => T;

/**
 * The value as the user typed it: yargs has already converted numbers (`NaN` or `abc` arrive as NaN, `1e14` as
 * 100000000000000), so the last `--flag V` or `--flag=V` in process.argv is quoted when it is there; otherwise
 * (a default, a camel-case spelling, a test parsing its own array) the value itself.
 */
export function typed(flag: string, v: unknown, argv: readonly string[] = typeof process === "undefined" ? [] : process.argv.slice(2)): string {
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
export const positiveInt: Check<number> = (v, f) => (typeof v === "number" && Number.isInteger(v) && v >= 1 ? v : fail(f, "a positive integer", v));
export const nonNegativeInt: Check<number> = (v, f) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fail(f, "a non-negative integer", v));
export const safeInt: Check<number> = (v, f) => (typeof v === "number" && Number.isSafeInteger(v) ? v : fail(f, "a safe integer (|n| ≤ 2^53 − 1)", v));
export const positive: Check<number> = (v, f) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : fail(f, "a finite number > 0", v));
export const nonNegative: Check<number> = (v, f) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : fail(f, "a finite number ≥ 0", v));
export const probability: Check<number> = (v, f) => (typeof v === "number" && v >= 0 && v < 1 ? v : fail(f, "a number in [0, 1)", v));
export const nonEmpty: Check<string> = (v, f) => (typeof v === "string" && v.length > 0 ? v : fail(f, "a non-empty string (the option needs a value)", v));

/** One of the listed values (`def`, the command's default, is passed through). */
export const oneOf = (choices: readonly string[], def: unknown): Check => (v, f) =>
  v === def || (typeof v === "string" && choices.includes(v)) ? v : fail(f, `one of ${choices.join(", ")}`, v);

/** An integer in [min, max], the bound stated in the message. */
export const intIn = (min: number, max: number, why = ""): Check<number> => (v, f) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : fail(f, `an integer in [${min}, ${max}]${why}`, v);

/**
 * Most bootstrap replicates a report takes. Each replicate costs a pass over the documents and 8 bytes per
 * statistic, so 1e9 exhausts the heap (V8 aborts); at 100,000 the Monte-Carlo error of a 95% percentile bound
 * is far below the sampling error it describes, so more buys nothing.
 */
export const MAX_REPLICATES = 100_000;
export const REPLICATES_WHY = " (fewer give no interval; more add no precision and exhaust memory)";

/** A comma-separated list of safe integers, e.g. `39,40,41`; `min` bounds each, `unique` refuses repeats. */
export const intList = ({ min = -Number.MAX_SAFE_INTEGER, unique = false } = {}): Check<number[]> => (v, f) => {
  const parts = String(v).split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  if (parts.length === 0) fail(f, "a comma-separated list of integers", v);
  const seen = new Set<number>();
  return parts.map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n)) throw new Error(`--${f}: "${p}" is not an integer`);
    if (!Number.isSafeInteger(n)) throw new Error(`--${f}: "${p}" is not a safe integer (|n| ≤ 2^53 − 1: beyond it, distinct integers round to one double)`);
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
export const jsonObject: Check<Record<string, unknown>> = (v, f) => {
  const { value, literal } = parseStrictJson(String(v), `--${f}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`--${f} must be a JSON object`);
  const fields = MODEL_CONFIG_FIELDS as Record<string, (v: unknown, path: string, cx: { file: string; literal: typeof literal }) => unknown>;
  for (const [k, x] of Object.entries(value)) if (Object.hasOwn(fields, k)) fields[k](x, k, { file: `--${f}`, literal });
  return value as Record<string, unknown>;
};

export interface Spec {
  type: "number" | "string" | "boolean";
  describe: string;
  check?: Check;
  choices?: readonly string[];
  /** The recipe's name for the value, where it is not the flag in camel case (--clip is clipNorm). */
  key?: string;
}

/** sbatch options the sweep sets itself (the array, where its output goes, where it runs, how it reports): refused in --sbatch. */
const SBATCH_OWN = ["array", "output", "error", "chdir", "parsable", "wrap", "wait"];

/**
 * --sbatch: the site's own sbatch options as `name=value` words without their dashes (`partition=cpu time=0:30:00`; a
 * value starting with - would read as another option of ours), each given to sbatch as `--name=value`.
 */
export const sbatchOptions: Check<string[]> = (v, f) => {
  const words = typeof v === "string" ? v.trim().split(/\s+/).filter((w) => w !== "") : [];
  if (words.length === 0) return fail(f, "sbatch's long options without their dashes, e.g. 'partition=cpu time=0:30:00'", v);
  return words.map((w) => {
    const m = /^(?:--)?([a-z][a-z-]*)(=.+)?$/.exec(w);
    if (!m) return fail(f, `sbatch's long options as name=value words ('partition=cpu time=0:30:00'), and ${JSON.stringify(w)} is not one`, v);
    if (SBATCH_OWN.includes(m[1])) return fail(f, `the site's own options only (the sweep sets ${SBATCH_OWN.join(", ")} itself)`, v);
    return `--${m[1]}${m[2] ?? ""}`;
  });
};
/** --task: a plan entry (0-based), or `env` for the array index a scheduler sets. */
export const taskIndex: Check<number | "env"> = (v, f) => {
  if (v === "env") return v;
  const t = String(v);
  return /^\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : fail(f, "a plan entry (0, 1, …) or env ($SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)", v);
};
