// Test helper, not a test: the console blocks of a markdown page (`$ command` lines, each followed by what it
// printed), their doctest markers, and the comparison of a printed output with a block's, line by line.

/** One `$ command` of a console block and the lines shown under it. */
export interface Command {
  command: string;
  expected: string[];
}

/** A fenced block with the doctest marker above it, if any (`<!-- doctest: … -->`). */
export interface Block {
  file: string;
  line: number;
  lang: string;
  body: string[];
  marker?: string;
}

const MARKER = /^<!-- doctest: (.*) -->$/;

/** Every fenced block of a page, each with the marker on the nearest non-blank line above it. */
export function blocks(file: string, text: string): Block[] {
  const lines = text.split("\n"),
    out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^```(\w*)\s*$/);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith("```")) end++;
    let above = i - 1;
    while (above >= 0 && lines[above].trim() === "") above--;
    const marker = above >= 0 ? lines[above].match(MARKER)?.[1] : undefined;
    out.push({ file, line: i + 1, lang: open[1], body: lines.slice(i + 1, end), marker });
    i = end;
  }
  return out;
}

/** The commands of a console block, each with the output lines shown after it. */
export function commands(block: Block): Command[] {
  const out: Command[] = [];
  for (const l of block.body) {
    if (l.startsWith("$ ")) out.push({ command: l.slice(2), expected: [] });
    else if (out.length > 0) out[out.length - 1].expected.push(l);
  }
  return out;
}

/**
 * Lines whose numbers depend on the machine or the moment, not on the computation: elapsed times, rates and
 * the order in which parallel runs finish. Their words are compared, their numbers masked, and a run of such
 * lines is compared as a set.
 */
const VOLATILE = [/^wall time [\d.]+ s \(/, /^sweep: \S+ done in [\d.]+ s$/];
/**
 * Progress lines (src/util/runtime/progress.ts: `label  done/total unit  percent%  …`, on stderr), printed as often as the
 * clock allows and not at all by a phase shorter than its quiet time: left out of both sides.
 */
const PROGRESS = /^\S+ {2}\d+\/\d+ \S+ {2}[\d.]+%/;

function normalize(lines: string[]): string[] {
  const kept = lines.map((l) => l.trimEnd()).filter((l) => !PROGRESS.test(l));
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  const out: string[] = [];
  for (let i = 0; i < kept.length; i++) {
    if (!VOLATILE.some((v) => v.test(kept[i]))) {
      out.push(kept[i]);
      continue;
    }
    const run: string[] = [];
    while (i < kept.length && VOLATILE.some((v) => v.test(kept[i]))) run.push(kept[i++].replace(/\d+(\.\d+)?/g, "#"));
    i--;
    out.push(...run.sort());
  }
  return out;
}

/**
 * Where the printed output first departs from the block's, or undefined when they agree. A line starting
 * with `…` in the block stands for any number of printed lines (the README elides repeated output that way).
 */
export function mismatch(expected: string[], printed: string[]): string | undefined {
  const e = normalize(expected),
    a = normalize(printed);
  const memo = new Map<string, boolean>();
  let deepest = { i: 0, j: 0 };
  const match = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const seen = memo.get(key);
    if (seen !== undefined) return seen;
    if (i > deepest.i || (i === deepest.i && j > deepest.j)) deepest = { i, j };
    let r: boolean;
    if (i === e.length) r = j === a.length;
    else if (e[i].startsWith("…")) r = match(i + 1, j) || (j < a.length && match(i, j + 1));
    else r = j < a.length && e[i] === a[j] && match(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  if (match(0, 0)) return undefined;
  const { i, j } = deepest;
  return `line ${i + 1} of the block:\n  shown:   ${e[i] ?? "(end of block)"}\n  printed: ${a[j] ?? "(end of output)"}\nprinted:\n${printed.join("\n")}`;
}

/**
 * The words of a `npx tinylab …` line that a shell would pass as they are (plain words and quoted ones), or
 * undefined for anything else a shell would interpret, and for --help (yargs ends the process after it).
 */
export function tinylabWords(command: string): string[] | undefined {
  const rest = command.match(/^npx tinylab (.*)$/)?.[1];
  if (rest === undefined) return undefined;
  const words: string[] = [];
  for (const m of rest.matchAll(/'([^']*)'|"([^"\\$`]*)"|([^\s'"]+)|(\S)/g)) {
    if (m[4] !== undefined || (m[3] !== undefined && /[|&;<>()$`\\*?[\]#~=%{}!]/.test(m[3].replace(/^--?[a-z-]+=?/, "")))) return undefined;
    words.push(m[1] ?? m[2] ?? m[3]);
  }
  return words.includes("--help") || words.includes("-h") ? undefined : words;
}
