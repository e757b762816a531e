// A small lexer for our own sources, shared by the tests that read code rather than run it: the layering test
// (imports, from words, punctuation and strings) and the comment test (the comments themselves). Not a parser:
// it knows strings, templates, regex literals and comments well enough that none is mistaken for another.

/** Tokens of TypeScript source that matter for imports: words, punctuation and string literals (comments dropped). */
export type Token = { t: "word" | "punct"; v: string } | { t: "string"; v: string };

/** One comment: the 1-based line it starts on and its text, markers included. */
export interface Comment {
  line: number;
  text: string;
}

const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await",
]);

/** The line of each offset, through the offsets where lines start. */
function lineOf(src: string): (i: number) => number {
  const starts = [0];
  for (let i = 0; i < src.length; i++) if (src[i] === "\n") starts.push(i + 1);
  return (i) => {
    let lo = 0,
      hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** TypeScript or JavaScript source as tokens and comments (comments inside a template's `${ }` included). */
export function lexScript(src: string): { tokens: Token[]; comments: Comment[] } {
  const out: Token[] = [],
    comments: Comment[] = [],
    line = lineOf(src);
  let i = 0;
  const regexAllowed = () => {
    const p = out[out.length - 1];
    if (!p) return true;
    if (p.t === "string") return false;
    if (p.t === "word") return REGEX_AFTER_WORD.has(p.v);
    return ![")", "]", "}"].includes(p.v);
  };
  const lexTemplate = (): void => {
    // i is just past the opening backtick; expressions inside ${ } are lexed as code
    while (i < src.length && src[i] !== "`") {
      if (src[i] === "\\") i += 2;
      else if (src[i] === "$" && src[i + 1] === "{") {
        i += 2;
        lexCode("}");
        i++;
      } else i++;
    }
    i++;
  };
  const lexCode = (until?: string): void => {
    let depth = 0;
    while (i < src.length) {
      const c = src[i];
      if (until && c === until && depth === 0) return;
      if (c === "/" && src[i + 1] === "/") {
        const s = i;
        while (i < src.length && src[i] !== "\n") i++;
        comments.push({ line: line(s), text: src.slice(s, i) });
        continue;
      }
      if (c === "/" && src[i + 1] === "*") {
        const s = i,
          e = src.indexOf("*/", i + 2);
        i = e < 0 ? src.length : e + 2;
        comments.push({ line: line(s), text: src.slice(s, i) });
        continue;
      }
      if (c === "'" || c === '"') {
        let j = i + 1,
          v = "";
        while (j < src.length && src[j] !== c) {
          if (src[j] === "\\") {
            v += src[j + 1];
            j += 2;
          } else v += src[j++];
        }
        out.push({ t: "string", v });
        i = j + 1;
        continue;
      }
      if (c === "`") {
        i++;
        lexTemplate();
        out.push({ t: "string", v: "`template`" });
        continue;
      }
      if (c === "/" && regexAllowed()) {
        // regex literal: skip to its closing slash, honouring classes and escapes
        let j = i + 1,
          cls = false;
        while (j < src.length && (cls || src[j] !== "/") && src[j] !== "\n") {
          if (src[j] === "\\") j++;
          else if (src[j] === "[") cls = true;
          else if (src[j] === "]") cls = false;
          j++;
        }
        i = j + 1;
        while (/[a-z]/i.test(src[i] ?? "")) i++;
        out.push({ t: "punct", v: "regex" });
        continue;
      }
      if (/[A-Za-z_$]/.test(c)) {
        let j = i;
        while (j < src.length && /[\w$]/.test(src[j])) j++;
        out.push({ t: "word", v: src.slice(i, j) });
        i = j;
        continue;
      }
      if (/\s/.test(c)) {
        i++;
        continue;
      }
      if (c === "{") depth++;
      if (c === "}") depth--;
      out.push({ t: "punct", v: c });
      i++;
    }
  };
  lexCode();
  return { tokens: out, comments };
}

/** `#` comments of Python or shell source, and Python's docstrings (a triple-quoted string opening a line). */
export function hashComments(src: string, lang: "python" | "shell"): Comment[] {
  const comments: Comment[] = [],
    line = lineOf(src);
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "#" && (lang === "python" || i === 0 || /[\s;|&(]/.test(src[i - 1]))) {
      const s = i;
      while (i < src.length && src[i] !== "\n") i++;
      comments.push({ line: line(s), text: src.slice(s, i) });
      continue;
    }
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const triple = lang === "python" && src.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c,
        s = i;
      let j = i + close.length;
      while (j < src.length && !src.startsWith(close, j)) j += src[j] === "\\" && !(lang === "shell" && c === "'") ? 2 : 1;
      i = j + close.length;
      const opensLine = /(^|\n)[ \t]*$/.test(src.slice(Math.max(0, s - 200), s));
      if (triple && opensLine) comments.push({ line: line(s), text: src.slice(s, i) });
      continue;
    }
    i++;
  }
  return comments;
}

/** `<!-- -->` comments of an HTML page. */
export function htmlComments(src: string): Comment[] {
  const line = lineOf(src);
  return [...src.matchAll(/<!--[\s\S]*?-->/g)].map((m) => ({ line: line(m.index), text: m[0] }));
}
