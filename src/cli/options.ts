// Every command-line option, added to a command with its defaults (the recipes' default objects, read from the
// catalogue); the catalogue itself (names, types, descriptions, parsers, defaults) is experiments/option_catalogue.ts. Parsing refuses a
// bad value by name before any work starts. Loads no engine: `tinylab --help` imports only this, the command list
// and the recipes' defaults.
import type { Argv, Options } from "yargs";
import type { FieldNames } from "../model/config.ts";
import { TEXT_DEFAULTS } from "../../experiments/train_options.ts";
import { MODEL_DIR_DEFAULTS } from "../../experiments/options.ts";
import {
  findOption,
  optionKey,
  OPTION_GROUPS,
  type OptionKey,
  type OptionName,
  type OptionValue,
} from "../../experiments/option_catalogue.ts";
import { fail, oneOf, type Spec } from "../../experiments/option_checks.ts";

export { isOptionName, optionKey, OPTION_GROUPS, type OptionName } from "../../experiments/option_catalogue.ts";
export { MAX_REPLICATES, typed } from "../../experiments/option_checks.ts";
export { nearestOption, parseOptionText } from "../../experiments/option_catalogue.ts";

/**
 * A command's options, declared once: each option it takes with its default (`undefined`: none). `withOptions`
 * adds them to the command; `optionValues` reads them back typed; the sweep reads which options a recipe takes.
 */
export type OptionTable = Partial<Record<OptionName, unknown>>;

/** A table's mark for an option the command cannot run without: it has no default, and yargs demands it. */
export const REQUIRED = Symbol("required");

/**
 * A command's parsed option values by recipe key, typed from the catalogue's parsers: an option without a default
 * may be absent; a boolean is false unless given.
 */
export type OptionValues<D extends OptionTable> = {
  [N in keyof D & OptionName as OptionKey<N>]: OptionValue<N> extends boolean
    ? boolean
    : D[N] extends typeof REQUIRED
      ? OptionValue<N>
      : undefined extends D[N]
        ? OptionValue<N> | undefined
        : D[N] extends TextDefault
          ? OptionValue<N> | undefined
          : OptionValue<N>;
};

/** The values of a command's options, by recipe key (parsing has checked each one's type and range). */
export function optionValues<D extends OptionTable>(argv: Record<string, unknown>, table: D): OptionValues<D> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(table)) out[optionKey(name)] = argv[name];
  return out as OptionValues<D>;
}

/** A positional argument (a file name), as typed; undefined when left out, unless the command's usage demands it (`<a>`). */
export function positional(argv: Record<string, unknown>, name: string): string | undefined;
export function positional(argv: Record<string, unknown>, name: string, demanded: "required"): string;
export function positional(argv: Record<string, unknown>, name: string, demanded?: "required"): string | undefined {
  const v = argv[name];
  if (v === undefined && demanded) throw new Error(`missing the argument <${name}>`);
  return v === undefined ? undefined : String(v);
}

/**
 * Add options from the catalogue with this command's defaults (`undefined`: no default; REQUIRED: demanded). `extra` replaces a
 * description where the command needs to say more (e.g. what --out holds).
 */
export function withOptions<T>(
  y: Argv<T>,
  defaults: OptionTable,
  extra: Partial<Record<OptionName, string>> = {},
  narrowed: Partial<Record<OptionName, readonly string[]>> = {},
): Argv<T> {
  const byGroup = new Map<string, string[]>();
  for (const [name, given] of Object.entries(defaults)) {
    const def = isEnvDefault(given) ? envValue(given) : isTextDefault(given) ? undefined : given;
    const [group, found] = findOption(name);
    // a command that takes only some of an option's choices offers (and accepts) only those
    const only = narrowed[name as OptionName];
    const spec: Spec = only ? { ...found, choices: found.choices?.filter((c) => only.includes(c)) } : found;
    const describe = `${extra[name as OptionName] ?? spec.describe}${isTextDefault(given) ? ` (default: ${given.fixture}; with --text ${given.text})` : ""}`;
    // a number option reaches its parser as typed (`string`; --help still says [number]): yargs's Number() would
    // read "0x10" as 16 and 2^53 + 1 as 2^53 before the parser could refuse them
    const o: Options = { type: spec.type, string: spec.type === "number", describe, requiresArg: spec.type !== "boolean" };
    if (def === REQUIRED) o.demandOption = true;
    else if (def !== undefined) o.default = def;
    else if (spec.type === "boolean") o.default = false;
    if (spec.choices) o.choices = [...spec.choices];
    // choices are refused here too (as one line naming the option, like every other value), not only by yargs;
    // a default is left to its owner (e.g. TINYLAB_BACKEND is refused by the backend parser, not on --help)
    const check = spec.choices ? oneOf(spec.choices, def === REQUIRED ? undefined : def) : spec.check;
    if (check) o.coerce = (v: unknown) => (v === undefined ? v : check(v, name));
    y = y.option(name, o) as Argv<T>;
    byGroup.set(group, [...(byGroup.get(group) ?? []), name]);
  }
  for (const [group, names] of byGroup) y = y.group(names, group) as Argv<T>;
  return y;
}

/**
 * The value of an option whose choices the command narrowed (withOptions' `narrowed`), typed as one of them: the
 * parser already refused the others, and this check says so again in the same words rather than cast.
 */
export function narrowedTo<C extends string>(choices: readonly C[], v: string, flag: OptionName): C {
  return choices.find((c) => c === v) ?? fail(flag, `one of ${choices.join(", ")}`, v);
}

/** Flags that were renamed, with the flag that replaced each: one name per idea, so the old name is refused, never aliased. */
export const RENAMED_OPTIONS = { "checkpoint-dir": "out", "checkpoint-every": "save-every" } as const;

/** Refuse the renamed flags a command once took, in one line naming the flag that replaced each (hidden from --help). */
export function refuseRenamed<T>(y: Argv<T>, names: readonly (keyof typeof RENAMED_OPTIONS)[]): Argv<T> {
  for (const name of names) {
    const now = RENAMED_OPTIONS[name];
    y = y.option(name, {
      type: "string",
      hidden: true,
      requiresArg: true,
      coerce: () => {
        throw new Error(`--${name} is now --${now}: pass --${now} instead`);
      },
    }) as Argv<T>;
  }
  return y;
}

/**
 * The data options of every scorer (evaluate, report, compare): a run directory, or a text with the split options
 * of train --text (the same defaults), or a JSONL documents file; none of them = the overfit fixture.
 * src/cli/common.ts scoringText reads them.
 */
export const SCORING_DATA = {
  run: undefined,
  text: undefined,
  "one-per-line": false,
  "split-seed": undefined,
  "validation-fraction": undefined,
  "test-fraction": undefined,
  data: undefined,
} satisfies OptionTable;
/** What scoringText reads: the scoring-data options by recipe key. */
export type ScoringDataValues = OptionValues<typeof SCORING_DATA>;
export const SCORING_DATA_HELP: Partial<Record<OptionName, string>> = {
  text: "score this text's split: the UTF-8 file or .txt directory train --text was given, split by --split-seed and the fractions as train does (with --run: where the run's text is now)",
  "one-per-line": "with --text: one document per non-blank line (with --run: read from its manifest)",
  "split-seed": `with --text and no --run (whose manifest fixes the split): the split seed train --text used (default ${TEXT_DEFAULTS.splitSeed})`,
  "validation-fraction": `with --text and no --run: the validation fraction train --text used (default ${TEXT_DEFAULTS.validationFraction})`,
  "test-fraction": `with --text and no --run: the test fraction train --text used (default ${TEXT_DEFAULTS.testFraction})`,
  data: "JSONL documents file, one {id, split, source, text|ids} per line (default: --run/--text, else the built-in overfit fixture)",
};

/** What a command that scores or samples with --model adds for a model directory (docs/any-model.md); ignored for a model file. */
export const MODEL_DIR = {
  convention: MODEL_DIR_DEFAULTS.convention,
  graph: undefined,
  "allow-non-float32": MODEL_DIR_DEFAULTS.allowNonFloat32,
} satisfies OptionTable;

/**
 * Who computes the products, by what a command computes, the one rule (docs/native-kernels.md "Which engine"):
 * a command on the user's data (train, brown, evaluate, report, compare, sample, choice, a sweep's train runs) takes
 * the fastest exact engine, auto = onnxruntime where it loads, else tfjs-wasm's own; the fixed teaching experiments
 * (overfit, cyclic, gradcheck) take tfjs, whose digits the browser lab reproduces bit for bit, and on whose tiny
 * models the native engine saves no time worth those digits.
 */
export const KERNELS_BY_USE = { data: "auto", teaching: "tfjs" } as const;

/**
 * A default that depends on --text (train's two default sets, experiments/train_options.ts trainSettings): --help
 * states both after the option's description; the option itself has no yargs default, so the recipe sees it unset.
 */
export interface TextDefault {
  readonly fixture: unknown;
  readonly text: unknown;
}
const isTextDefault = (v: unknown): v is TextDefault => typeof v === "object" && v !== null && "fixture" in v && "text" in v;
export const byText = (fixture: unknown, text: unknown): TextDefault => ({ fixture, text });

/** A default the environment may replace: read (envValue) each time a command's options are built, so an explicit flag wins over it. */
export interface EnvDefault {
  readonly variable: "TINYLAB_BACKEND" | "TINYLAB_KERNELS";
  readonly value: string;
}
const isEnvDefault = (v: unknown): v is EnvDefault => typeof v === "object" && v !== null && "variable" in v;
/** The one place an environment default is read. */
export const envValue = (d: EnvDefault): string => process.env[d.variable] ?? d.value;

/** --backend's default: TINYLAB_BACKEND when set, else auto. */
export const BACKEND_DEFAULT: EnvDefault = { variable: "TINYLAB_BACKEND", value: "auto" };

/**
 * The engine group, written once: --backend, --kernels by what the command computes (KERNELS_BY_USE; TINYLAB_KERNELS
 * replaces it when set, an explicit --kernels wins over both) and --workers. The run gets the engine they open
 * (src/cli/common.ts startEngine) and the workers' count.
 */
export const engineOptions = (use: keyof typeof KERNELS_BY_USE) =>
  ({
    backend: BACKEND_DEFAULT,
    kernels: { variable: "TINYLAB_KERNELS", value: KERNELS_BY_USE[use] } as EnvDefault,
    workers: undefined,
  }) satisfies OptionTable;

/** The engine group of a command that computes on one thread: --backend and --kernels. */
export function oneThreadEngineOptions(use: keyof typeof KERNELS_BY_USE) {
  const { workers: _, ...group } = engineOptions(use);
  return group;
}

/** Model-shape flags and their config keys; --model-config may set any other key, never one of these. */
const SHAPE_FLAGS = {
  vocab: "vocabSize",
  context: "contextLength",
  layers: "nLayers",
  "d-model": "dModel",
  heads: "nHeads",
  "d-ff": "dFF",
  dropout: "dropout",
} as const;
type ShapeValues = OptionValues<{ [F in keyof typeof SHAPE_FLAGS]: undefined } & { "model-config": undefined }>;

/** How a shape refusal names each field: by its flag, or by its key where --model-config set it (as typed there). */
export function shapeNames(modelConfig: Record<string, unknown> | undefined): FieldNames {
  return Object.fromEntries(
    Object.entries(SHAPE_FLAGS)
      .filter(([, key]) => !Object.hasOwn(modelConfig ?? {}, key))
      .map(([flag, key]) => [key, `--${flag}`]),
  );
}

/** The model-config overrides the shape flags and --model-config give (checked against the config's keys later). */
export function modelOverrides(v: Partial<ShapeValues>): Record<string, unknown> {
  const json = v.modelConfig ?? {};
  const out: Record<string, unknown> = { ...json };
  for (const [flag, key] of Object.entries(SHAPE_FLAGS)) {
    const given = v[optionKey(flag) as keyof ShapeValues];
    if (given === undefined) continue;
    if (Object.hasOwn(json, key)) throw new Error(`--model-config sets "${key}", which --${flag} sets; give it once, as --${flag}`);
    out[key] = given;
  }
  return out;
}

/**
 * Each option at most once. yargs makes a repeated value option an array (then refused as, say, "--updates must be
 * a positive integer, got 6", naming the wrong value) and keeps the last of a repeated boolean without a word. Scans
 * the arguments as typed, up to a bare `--` (what follows belongs to another command); camel-case and `--no-`
 * spellings count as the option they spell.
 */
export function refuseRepeatedOptions(args: readonly string[]): void {
  const specs = new Map(Object.values(OPTION_GROUPS).flatMap((g) => Object.entries(g as Record<string, Spec>)));
  const seen = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    let name = a.slice(2, eq === -1 ? undefined : eq).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (!specs.has(name) && name.startsWith("no-") && specs.get(name.slice(3))?.type === "boolean") name = name.slice(3);
    const spec = specs.get(name);
    if (!spec) continue; // not an option of the catalogue: yargs refuses it if it is unknown
    const typedAs = spec.type === "boolean" || eq !== -1 || i + 1 >= args.length ? a : `${a} ${args[i + 1]}`;
    const first = seen.get(name);
    if (first !== undefined) throw new Error(`--${name} is given twice (${first}, then ${typedAs}): give it once`);
    seen.set(name, typedAs);
  }
}
