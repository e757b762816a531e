// Multiple-choice files: JSONL, one question per line, parsed from text already read (no file access here) and
// encoded with a fixed tokenizer. Not scoring (src/eval/metrics/multiple_choice.ts).
//
// Each non-blank line is one JSON object with these keys:
//   {"id": "q1", "question": "The sky is", "candidates": [" blue", " green", " loud"], "answer": 0}
// `id` is optional (default "line N"). The question becomes BOS + its tokens, the shared context; each candidate is
// encoded alone as its continuation (so put the separating space in the candidate, as above); `answer` is the index
// of the correct candidate. Every candidate must encode to at least one token, and there must be at least two.
import type { Tokenizer } from "./tokenizer.ts";

const KEYS = new Set(["id", "question", "candidates", "answer"]);

export interface ChoiceQuestion {
  readonly id: string;
  readonly prompt: number[];
  readonly candidates: number[][];
  readonly gold: number;
  /** The line's question and candidates as written (what lm-evaluation-harness's files record). */
  readonly text: { readonly question: string; readonly candidates: readonly string[] };
}

/** Parse and encode every question, refusing a bad line by its number and the key at fault. */
export function parseChoiceJsonl(text: string, tokenizer: Pick<Tokenizer, "bos" | "encode">, where: string): ChoiceQuestion[] {
  const out: ChoiceQuestion[] = [];
  const ids = new Set<string>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line.length === 0) return;
    const at = `${where} line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new Error(
        `${at}: not JSON (${(err as Error).message}); a choice file has one {"question", "candidates", "answer"} object per line`,
      );
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) throw new Error(`${at}: must be a JSON object`);
    const r = row as Record<string, unknown>;
    const extra = Object.keys(r).find((k) => !KEYS.has(k));
    if (extra !== undefined) throw new Error(`${at}: unknown key "${extra}" (keys: id, question, candidates, answer)`);
    if (typeof r.question !== "string") throw new Error(`${at}: "question" must be a string`);
    if (!Array.isArray(r.candidates) || r.candidates.length < 2 || !r.candidates.every((c) => typeof c === "string"))
      throw new Error(`${at}: "candidates" must be an array of at least 2 strings`);
    const k = r.candidates.length;
    if (!Number.isInteger(r.answer) || (r.answer as number) < 0 || (r.answer as number) >= k)
      throw new Error(
        `${at}: "answer" must be an integer in [0, ${k - 1}] (the index of the correct candidate), got ${JSON.stringify(r.answer)}`,
      );
    const id =
      r.id === undefined
        ? `line ${i + 1}`
        : typeof r.id === "string" && r.id.length > 0
          ? r.id
          : (() => {
              throw new Error(`${at}: "id" must be a non-empty string`);
            })();
    if (ids.has(id)) throw new Error(`${at}: id "${id}" appears twice`);
    ids.add(id);
    const candidates = (r.candidates as string[]).map((c, j) => {
      const enc = tokenizer.encode(c);
      if (enc.length === 0) throw new Error(`${at}: candidate ${j} (${JSON.stringify(c)}) encodes to no tokens`);
      return enc;
    });
    out.push({
      id,
      prompt: [tokenizer.bos, ...tokenizer.encode(r.question)],
      candidates,
      gold: r.answer as number,
      text: { question: r.question, candidates: r.candidates as string[] },
    });
  });
  if (out.length === 0) throw new Error(`${where}: no questions`);
  return out;
}
