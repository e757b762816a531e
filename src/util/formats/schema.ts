// One small way to describe a file format the lab reads and refuse what breaks it: fields, types, ranges, nulls,
// unknown keys and duplicates, each refusal one line `<file>: <field path>: <what is wrong> (got <value>)`.
// Hand-written (a few combinators) rather than a dependency: the messages, the integer-literal rule and the
// strict parser (json_strict.ts) are the point, and a validator library would need all three added. Not a parser.
import { JsonError, keyPath, parseStrictJson, type StrictJson } from "./json_strict.ts";

/** A value that breaks its file's schema; the message names the file and the field. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** Where a value sits: the file's name, and the literals the parser kept (to quote numbers as written). */
export interface Context {
  file: string;
  literal?: StrictJson["literal"];
}

/** Check `v` at `path`, returning it typed, or throw a SchemaError naming `cx.file` and `path`. */
export type Schema<T> = (v: unknown, path: string, cx: Context) => T;
export type Infer<S> = S extends Schema<infer T> ? T : never;

const kind = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;

/** The value as the file has it, shortened to stay on one line. */
function shown(v: unknown, path: string, cx: Context): string {
  const raw = (typeof v === "number" ? cx.literal?.(path) : undefined) ?? (v === undefined ? "nothing" : (JSON.stringify(v) ?? String(v)));
  return raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
}

/** Throw the one-line refusal of `v` at `path`. */
export function refuse(cx: Context, path: string, what: string, v: unknown): never {
  throw new SchemaError(`${cx.file}: ${path === "" ? "the whole file" : path}: ${what} (got ${shown(v, path, cx)})`);
}

const typeIs = (want: string, test: (v: unknown) => boolean) => (v: unknown, path: string, cx: Context) => {
  if (!test(v)) refuse(cx, path, `must be ${want}, not ${kind(v)}`, v);
};

/** An integer in [min, max], written as an integer (266.0 and 2.66e2 are refused, as Python's json and serde refuse them). */
export const int =
  (o: { min?: number; max?: number } = {}): Schema<number> =>
  (v, path, cx) => {
    typeIs("an integer", (x) => typeof x === "number")(v, path, cx);
    const lit = cx.literal?.(path);
    if (lit !== undefined && !/^-?[0-9]+$/.test(lit)) refuse(cx, path, "must be an integer, written without a fraction or exponent", v);
    if (!Number.isSafeInteger(v)) refuse(cx, path, "must be an integer of at most 2^53 − 1 in size", v);
    return inRange(v as number, o, path, cx);
  };

/** A finite number in the range (`above`: strictly greater; `below`: strictly less). */
export const num =
  (o: { min?: number; max?: number; above?: number; below?: number } = {}): Schema<number> =>
  (v, path, cx) => {
    typeIs("a number", (x) => typeof x === "number")(v, path, cx);
    if (!Number.isFinite(v)) refuse(cx, path, "must be a finite number", v);
    const n = v as number;
    if (o.above !== undefined && !(n > o.above)) refuse(cx, path, `must be > ${o.above}`, v);
    if (o.below !== undefined && !(n < o.below)) refuse(cx, path, `must be < ${o.below}`, v);
    return inRange(n, o, path, cx);
  };

function inRange(n: number, o: { min?: number; max?: number }, path: string, cx: Context): number {
  if (o.min !== undefined && o.max !== undefined && !(n >= o.min && n <= o.max)) refuse(cx, path, `must be in [${o.min}, ${o.max}]`, n);
  if (o.min !== undefined && !(n >= o.min)) refuse(cx, path, `must be ≥ ${o.min}`, n);
  if (o.max !== undefined && !(n <= o.max)) refuse(cx, path, `must be ≤ ${o.max}`, n);
  return n;
}

/** A string; `pattern` (with `says` naming it) and `oneLine` (no control characters: it may be printed) restrict it. */
export const str =
  (o: { pattern?: RegExp; says?: string; oneLine?: boolean; nonEmpty?: boolean } = {}): Schema<string> =>
  (v, path, cx) => {
    typeIs("a string", (x) => typeof x === "string")(v, path, cx);
    const s = v as string;
    if (o.nonEmpty && s.length === 0) refuse(cx, path, "must not be empty", v);
    // eslint-disable-next-line no-control-regex
    if (o.oneLine && /[\u0000-\u001f\u007f\u2028\u2029]/.test(s)) refuse(cx, path, "must be one line of text (no control characters)", v);
    if (o.pattern && !o.pattern.test(s)) refuse(cx, path, `must be ${o.says ?? `a string matching ${o.pattern}`}`, v);
    return s;
  };

export const bool: Schema<boolean> = (v, path, cx) => (typeIs("a boolean", (x) => typeof x === "boolean")(v, path, cx), v as boolean);

/** Exactly one of the listed values. */
export const oneOf =
  <T extends string | number | boolean>(values: readonly T[]): Schema<T> =>
  (v, path, cx) =>
    values.includes(v as T)
      ? (v as T)
      : refuse(
          cx,
          path,
          `must be ${values.length === 1 ? JSON.stringify(values[0]) : `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`}`,
          v,
        );

export const nullable =
  <T>(s: Schema<T>): Schema<T | null> =>
  (v, path, cx) =>
    v === null ? null : s(v, path, cx);

const OPTIONAL = Symbol("optional");
/** A field an object may lack (read as undefined); present, it must pass `s`. */
export const optional = <T>(s: Schema<T>): Schema<T | undefined> =>
  Object.assign((v: unknown, path: string, cx: Context) => (v === undefined ? undefined : s(v, path, cx)), { [OPTIONAL]: true });

/** An object with exactly these fields (`open`: other fields are allowed and dropped from the result). */
export function obj<S extends Record<string, Schema<unknown>>>(
  shape: S,
  o: { open?: boolean } = {},
): Schema<{ [K in keyof S]: Infer<S[K]> }> {
  return (v, path, cx) => {
    typeIs("an object", (x) => typeof x === "object" && x !== null && !Array.isArray(x))(v, path, cx);
    const rec = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(shape)) {
      if (!Object.hasOwn(rec, k)) {
        if (OPTIONAL in s) continue;
        refuse(cx, keyPath(path, k), "is missing", undefined);
      }
      out[k] = s(rec[k], keyPath(path, k), cx);
    }
    if (!o.open) {
      const extra = Object.keys(rec).find((k) => !Object.hasOwn(shape, k));
      if (extra !== undefined)
        refuse(cx, keyPath(path, extra), `is not a field here (the fields are ${Object.keys(shape).join(", ")})`, rec[extra]);
    }
    return out as { [K in keyof S]: Infer<S[K]> };
  };
}

/** An array of items; `unique` names the field (or "" for the item itself) that no two items may share. */
export const arr =
  <T>(item: Schema<T>, o: { min?: number; max?: number; unique?: string } = {}): Schema<T[]> =>
  (v, path, cx) => {
    typeIs("an array", Array.isArray)(v, path, cx);
    const a = v as unknown[];
    if (o.min !== undefined && a.length < o.min) refuse(cx, path, `must hold at least ${o.min} item${o.min === 1 ? "" : "s"}`, v);
    if (o.max !== undefined && a.length > o.max) refuse(cx, path, `must hold at most ${o.max} items`, `${a.length} items`);
    const out = a.map((x, i) => item(x, `${path}[${i}]`, cx));
    if (o.unique !== undefined) {
      const field = o.unique;
      const seen = new Map<string, number>();
      out.forEach((x, i) => {
        const key = JSON.stringify(field === "" ? x : (x as Record<string, unknown>)[field]);
        const first = seen.get(key);
        const at = field === "" ? `${path}[${i}]` : keyPath(`${path}[${i}]`, field);
        if (first !== undefined) refuse(cx, at, `is given twice (also at ${path}[${first}])`, JSON.parse(key));
        seen.set(key, i);
      });
    }
    return out;
  };

/** An object used as a map: any keys, every value by `s`. */
export const record =
  <T>(s: Schema<T>): Schema<Record<string, T>> =>
  (v, path, cx) => {
    typeIs("an object", (x) => typeof x === "object" && x !== null && !Array.isArray(x))(v, path, cx);
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, s(x, keyPath(path, k), cx)]));
  };

/** `s`, then a check across its fields: `problem` returns [field path below this one, what is wrong] or nothing. */
export const refine =
  <T>(s: Schema<T>, problem: (t: T) => [string, string, unknown] | undefined): Schema<T> =>
  (v, path, cx) => {
    const t = s(v, path, cx);
    const p = problem(t);
    if (p) refuse(cx, p[0] === "" ? path : keyPath(path, p[0]), p[1], p[2]);
    return t;
  };

/** Parse `text` strictly and check it against `s`; every refusal (JSON or schema) names `file`. */
export function parseJsonFile<T>(text: string, s: Schema<T>, file: string, path = ""): T {
  const { value, literal } = parseStrictJson(text, file, path);
  return s(value, path, { file, literal });
}

/** True for the errors a reader raises for bad contents (not for a bug in the reader). */
export const isFileError = (err: unknown): err is Error => err instanceof SchemaError || err instanceof JsonError;
