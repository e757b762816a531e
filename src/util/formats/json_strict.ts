// JSON as the lab's own files are read: JSON.parse's grammar, but a key given twice in one object is refused
// (JSON.parse silently keeps the last), and a number whose literal its value does not print back (266.0, 1e3,
// 1e999) keeps that literal, so a schema (schema.ts) can refuse an integer written as a float and quote it as typed.
// Not a schema and not a writer (json.ts).

/** A file that is not JSON, or repeats a key; the message names the file and where. */
export class JsonError extends Error {
  override name = "JsonError";
}

export interface StrictJson {
  value: unknown;
  /** The literal of the number at `path` when it differs from the value's own printing (266.0, 1e999, -0). */
  literal: (path: string) => string | undefined;
}

/** Deeper nesting than any file the lab writes; bounds the parser's recursion. */
export const MAX_JSON_DEPTH = 64;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path` extended by an object key: `a.b`, or `a["b c"]` when the key is not an identifier. */
export const keyPath = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;

/**
 * Parse `text` (named `file` in errors): refuses what JSON.parse refuses, a repeated key and nesting past
 * MAX_JSON_DEPTH. `root` is the value's own path when it sits inside another (a metadata entry `config`).
 */
export function parseStrictJson(text: string, file: string, root = ""): StrictJson {
  const literals = new Map<string, string>();
  let i = 0;
  const fail = (what: string): never => {
    const before = text.slice(0, i);
    const line = before.split("\n").length,
      column = i - before.lastIndexOf("\n");
    throw new JsonError(`${file}: ${root === "" ? "" : `${root}: `}not valid JSON: ${what} at line ${line}, column ${column}`);
  };
  const space = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const token = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (m) i += m[0].length;
    return m?.[0];
  };
  const string = (): string => {
    const raw = token(STRING) ?? fail(text[i] === '"' ? "a malformed string" : `expected a string, found ${found()}`);
    return raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  };
  const found = () => (i >= text.length ? "the end of the text" : JSON.stringify(text[i]));
  const expect = (c: string) => {
    space();
    if (text[i] !== c) fail(`expected ${JSON.stringify(c)}, found ${found()}`);
    i++;
  };
  const value = (path: string, depth: number): unknown => {
    space();
    if (depth > MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const c = text[i];
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      space();
      if (text[i] === "}") return (i++, out);
      for (;;) {
        space();
        const at = i;
        const key = string();
        const p = keyPath(path, key);
        if (Object.hasOwn(out, key)) {
          i = at; // the message points at the repeat
          fail(`key ${JSON.stringify(key)} is given twice (${p})`);
        }
        expect(":");
        // defineProperty, so a key "__proto__" is a field like any other
        Object.defineProperty(out, key, { value: value(p, depth + 1), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === ",") i++;
        else return (expect("}"), out);
      }
    }
    if (c === "[") {
      i++;
      const out: unknown[] = [];
      space();
      if (text[i] === "]") return (i++, out);
      for (;;) {
        out.push(value(`${path}[${out.length}]`, depth + 1));
        space();
        if (text[i] === ",") i++;
        else return (expect("]"), out);
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) return ((i += word.length), v);
    }
    const raw = token(NUMBER) ?? fail(`unexpected ${found()}`);
    const n = Number(raw);
    if (String(n) !== raw) literals.set(path, raw);
    return n;
  };
  const out = value(root, 0);
  space();
  if (i < text.length) fail(`unexpected ${found()} after the JSON value`);
  return { value: out, literal: (path) => literals.get(path) };
}
