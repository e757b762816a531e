// Byte-level BPE: merges learned over the UTF-8 bytes of pre-split chunks, ids stacked on ByteTokenizer's.
// Not document framing (BOS/EOS placement belongs to the caller) and not a loader (see load_tokenizer.ts).
import type { Rng } from "../util/primitives/rng.ts";
import { BOS, EOS, BYTE_OFFSET, BYTE_VOCAB, type Tokenizer, type TokenizerJSON } from "./tokenizer.ts";

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });
const EMPTY = new Uint8Array(0);
/** Chunks kept in the encode cache before it is cleared (bounds memory on very diverse text). */
const CACHE_LIMIT = 100_000;
/**
 * Bytes one token may expand to. Merges apply within a pre-split chunk (a word, a number, a run of spaces), so a
 * trained token is never longer than a chunk seen at least twice; a file whose merges each double the last would
 * otherwise make a table of gigabytes from kilobytes of JSON.
 */
export const MAX_TOKEN_BYTES = 4096;
/** Bytes all tokens together may expand to (the decode table), checked before it is built. */
export const MAX_TOKENIZER_BYTES = 64 * 2 ** 20;

/**
 * GPT-2's pre-split pattern: an English contraction suffix, letters with an optional leading space,
 * digits likewise, other symbols likewise, then whitespace (a run leaves its last space to the next
 * word). BPE runs inside one chunk only, so no token spans a word/number/punctuation boundary and
 * " the" is one token rather than "e t"-style fragments glued across words.
 */
export const CHUNK_RE = /'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Splits `text` into the chunks BPE works within; their concatenation is always `text`. */
export function splitChunks(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(CHUNK_RE)) {
    // The alternatives cover every code point, but a gap would silently drop text, so keep it.
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function bytesToIds(s: string): number[] {
  return Array.from(utf8.encode(s), (b) => b + BYTE_OFFSET);
}

/** Replaces non-overlapping (a, b) left to right with `id` (so "aaa" with (a,a) gives [aa, a]). */
function mergePair(ids: readonly number[], a: number, b: number, id: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) {
      out.push(id);
      i++;
    } else out.push(ids[i]);
  }
  return out;
}

function checkVocabSize(vocabSize: number): void {
  if (!Number.isInteger(vocabSize) || vocabSize < BYTE_VOCAB) {
    throw new Error(`bpe vocabSize must be an integer ≥ ${BYTE_VOCAB}, got ${vocabSize}`);
  }
}

/**
 * Refuse merges that are not pairs of earlier ids, or whose tokens would expand past MAX_TOKEN_BYTES each or
 * MAX_TOKENIZER_BYTES in all: lengths are counted, nothing is allocated, before the table is built.
 */
function checkExpansion(merges: readonly (readonly [number, number])[]): void {
  const length = (id: number) => (id < BYTE_VOCAB ? 1 : lengths[id - BYTE_VOCAB]);
  const lengths: number[] = [];
  let total = BYTE_VOCAB;
  merges.forEach((m, r) => {
    const id = BYTE_VOCAB + r;
    if (!Array.isArray(m) || m.length !== 2) throw new Error(`bpe merge ${r}: expected a pair [a, b], got ${JSON.stringify(m)}`);
    for (const x of m) {
      if (!Number.isInteger(x) || x < BYTE_OFFSET || x >= id) {
        throw new Error(
          `bpe merge ${r} (${JSON.stringify(m)}): id ${x} is not a byte or an earlier merge (need ${BYTE_OFFSET} ≤ id < ${id})`,
        );
      }
    }
    const n = length(m[0]) + length(m[1]);
    if (n > MAX_TOKEN_BYTES)
      throw new Error(
        `bpe merge ${r} (${JSON.stringify(m)}) expands to ${n} bytes, more than the ${MAX_TOKEN_BYTES} a token may (MAX_TOKEN_BYTES)`,
      );
    total += n;
    if (total > MAX_TOKENIZER_BYTES)
      throw new Error(
        `bpe merges 0..${r} expand to ${total} bytes in all, more than the ${MAX_TOKENIZER_BYTES} (64 MiB) a tokenizer may (MAX_TOKENIZER_BYTES)`,
      );
    lengths.push(n);
  });
}

/** Byte-level BPE tokenizer: BOS 0, EOS 1, byte b → b + 2, merge r → 258 + r. */
export class BpeTokenizer implements Tokenizer {
  readonly kind = "bpe" as const;
  readonly bos = BOS;
  readonly eos = EOS;
  readonly vocabSize: number;
  private readonly merges: readonly (readonly [number, number])[];
  private readonly ranks = new Map<number, number>(); // pair key a·vocabSize + b → merge rank
  private readonly table: Uint8Array[]; // id → its UTF-8 bytes
  private readonly cache = new Map<string, number[]>();

  /** Merge r joins ids (a, b) into id 258 + r; both must be defined before it. Throws on a bad list. */
  constructor(merges: readonly (readonly [number, number])[]) {
    this.vocabSize = BYTE_VOCAB + merges.length;
    this.table = Array.from({ length: this.vocabSize }, (_, id) =>
      id >= BYTE_OFFSET && id < BYTE_VOCAB ? Uint8Array.of(id - BYTE_OFFSET) : EMPTY,
    );
    checkExpansion(merges);
    merges.forEach((m, r) => {
      const id = BYTE_VOCAB + r;
      const key = m[0] * this.vocabSize + m[1];
      const prior = this.ranks.get(key);
      if (prior !== undefined) throw new Error(`bpe merge ${r} (${JSON.stringify(m)}) repeats merge ${prior}`);
      this.ranks.set(key, r);
      const [a, b] = [this.table[m[0]], this.table[m[1]]];
      const joined = new Uint8Array(a.length + b.length);
      joined.set(a);
      joined.set(b, a.length);
      this.table[id] = joined;
    });
    this.merges = merges.map(([a, b]) => [a, b] as const);
  }

  static fromJSON(json: unknown): BpeTokenizer {
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("bpe tokenizer JSON must be an object");
    const { kind, vocabSize, merges } = json as Record<string, unknown>;
    if (kind !== "bpe") throw new Error(`bpe tokenizer JSON must have kind "bpe", got ${JSON.stringify(kind)}`);
    checkVocabSize(vocabSize as number);
    if (!Array.isArray(merges)) throw new Error("bpe tokenizer JSON: merges must be an array of [a, b] pairs");
    if (merges.length !== (vocabSize as number) - BYTE_VOCAB) {
      throw new Error(
        `bpe tokenizer JSON: vocabSize ${vocabSize} needs ${(vocabSize as number) - BYTE_VOCAB} merges, got ${merges.length}`,
      );
    }
    return new BpeTokenizer(merges as [number, number][]);
  }

  toJSON(): TokenizerJSON {
    return { kind: "bpe", vocabSize: this.vocabSize, merges: this.merges.map(([a, b]) => [a, b]) };
  }

  /** The learned merges in rank order (a copy). */
  mergeList(): [number, number][] {
    return this.merges.map(([a, b]) => [a, b]);
  }

  encode(text: string): number[] {
    const out: number[] = [];
    for (const chunk of splitChunks(text)) {
      let ids = this.cache.get(chunk);
      if (ids === undefined) {
        ids = this.encodeChunk(chunk);
        if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
        this.cache.set(chunk, ids);
      }
      for (const id of ids) out.push(id);
    }
    return out;
  }

  /** Applies the lowest-ranked merge present until none applies: the order training learned them in. */
  private encodeChunk(chunk: string): number[] {
    let ids = bytesToIds(chunk);
    while (ids.length >= 2) {
      let best = Infinity;
      for (let i = 0; i + 1 < ids.length; i++) {
        const r = this.ranks.get(ids[i] * this.vocabSize + ids[i + 1]);
        if (r !== undefined && r < best) best = r;
      }
      if (best === Infinity) break;
      const [a, b] = this.merges[best];
      ids = mergePair(ids, a, b, BYTE_VOCAB + best);
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    const parts = ids.map((id) => this.bytesOf(id));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return utf8Decoder.decode(bytes);
  }

  bytesOf(id: number): Uint8Array {
    return Number.isInteger(id) && id >= 0 && id < this.vocabSize ? this.table[id] : EMPTY;
  }
}

/**
 * Train text above this many characters (UTF-16 units) is sampled before BPE learns on it, as sentencepiece samples
 * `input_sentence_size` sentences: merge counts settle long before, and the learning's memory is then bounded by the
 * sample, not by the text. Far above every example in the docs (the largest trains on a few MB), so their merges are
 * learned on all of their text.
 */
export const BPE_SAMPLE_CHARS = 32 * 2 ** 20;

/**
 * The texts BPE learns on: all of them up to `budget` characters in total; above it, whole documents in the order
 * of a seeded shuffle (`rng`, passed in: the caller's seed decides, never a global) until the budget is reached,
 * the last cut to what remains, returned in their input order. The sample draws only on the train split's texts,
 * so its seed moves no document between splits.
 */
export function bpeSample(texts: readonly string[], rng: Rng, budget = BPE_SAMPLE_CHARS): { texts: string[]; chars: number; of: number } {
  const of = texts.reduce((n, t) => n + t.length, 0);
  if (of <= budget) return { texts: [...texts], chars: of, of };
  const take = new Map<number, string>();
  let chars = 0;
  for (const i of rng.shuffle(texts.map((_, i) => i))) {
    // a cut never leaves half of a surrogate pair
    const t = texts[i].length <= budget - chars ? texts[i] : texts[i].slice(0, budget - chars).replace(/[\ud800-\udbff]$/, "");
    take.set(i, t);
    chars += t.length;
    if (chars >= budget - 1) break;
  }
  return { texts: [...take.keys()].sort((a, b) => a - b).map((i) => take.get(i)!), chars, of };
}

/** Options for `trainBpe`. */
export interface TrainBpeOptions {
  /** Pairs seen fewer times than this are never merged; running out of pairs first is an error. Default 2. */
  minCount?: number;
  /** Called after each merge with the merges learned so far (of vocabSize − BYTE_VOCAB), e.g. to tick a progress line. */
  onMerge?: (merges: number) => void;
  /** Called after each text's chunks are counted, before the first merge (the texts counted so far). */
  onCount?: (texts: number) => void;
}

/** Max-heap of (count, pair key): highest count first, ties to the lowest key, i.e. lowest (a, b). */
class PairHeap {
  private readonly counts: number[] = [];
  private readonly keys: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  private above(i: number, j: number): boolean {
    return this.counts[i] > this.counts[j] || (this.counts[i] === this.counts[j] && this.keys[i] < this.keys[j]);
  }
  private swap(i: number, j: number): void {
    [this.counts[i], this.counts[j]] = [this.counts[j], this.counts[i]];
    [this.keys[i], this.keys[j]] = [this.keys[j], this.keys[i]];
  }
  push(count: number, key: number): void {
    this.counts.push(count);
    this.keys.push(key);
    for (let i = this.keys.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!this.above(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): [number, number] {
    const top: [number, number] = [this.counts[0], this.keys[0]];
    const last = this.keys.length - 1;
    this.swap(0, last);
    this.counts.pop();
    this.keys.pop();
    for (let i = 0; ;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let m = i;
      if (l < last && this.above(l, m)) m = l;
      if (r < last && this.above(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
}

/** The training text cannot fill the asked vocabulary: `atMost` ids is what it supports (a caller names its own flag). */
export class BpeVocabError extends Error {
  constructor(
    message: string,
    readonly atMost: number,
  ) {
    super(message);
  }
}

/**
 * Learns `vocabSize - 258` merges from `texts` (training text only). Each step merges the most
 * frequent adjacent pair (ties: lowest first id, then lowest second id) inside chunks of
 * `splitChunks`. Counts are kept incrementally over unique chunks, so a step touches only the
 * chunks containing the merged pair; stale heap entries are skipped on pop.
 */
export function trainBpe(texts: readonly string[], vocabSize: number, opts: TrainBpeOptions = {}): BpeTokenizer {
  checkVocabSize(vocabSize);
  const minCount = opts.minCount ?? 2;
  const freq = new Map<string, number>();
  texts.forEach((t, i) => {
    for (const c of splitChunks(t)) freq.set(c, (freq.get(c) ?? 0) + 1);
    opts.onCount?.(i + 1);
  });
  const words: number[][] = [];
  const weights: number[] = [];
  for (const [chunk, n] of freq) {
    words.push(bytesToIds(chunk));
    weights.push(n);
  }

  const K = vocabSize; // pair key = a·K + b; every id is < K
  const pairCount = new Map<number, number>();
  const where = new Map<number, Set<number>>(); // pair key → chunks that contained it (may be stale)
  const count = (w: number, sign: 1 | -1, touched: Set<number>): void => {
    const ids = words[w];
    for (let i = 0; i + 1 < ids.length; i++) {
      const key = ids[i] * K + ids[i + 1];
      const n = (pairCount.get(key) ?? 0) + sign * weights[w];
      if (n === 0) pairCount.delete(key);
      else pairCount.set(key, n);
      if (sign > 0) {
        let s = where.get(key);
        if (s === undefined) where.set(key, (s = new Set()));
        s.add(w);
      }
      touched.add(key);
    }
  };
  const heap = new PairHeap();
  const refresh = (touched: Set<number>): void => {
    for (const key of touched) {
      const n = pairCount.get(key);
      if (n !== undefined) heap.push(n, key);
    }
  };
  const initial = new Set<number>();
  for (let w = 0; w < words.length; w++) count(w, 1, initial);
  refresh(initial);

  const merges: [number, number][] = [];
  while (merges.length < vocabSize - BYTE_VOCAB) {
    let top: [number, number] | undefined;
    while (heap.size > 0) {
      const [n, key] = heap.pop();
      if (pairCount.get(key) === n) {
        top = [n, key];
        break;
      }
    }
    if (top === undefined || top[0] < minCount) {
      throw new BpeVocabError(
        `trainBpe: only ${merges.length} pairs occur ≥ ${minCount} times in the training text; ` +
          `vocabSize ${vocabSize} is too large for it (at most ${BYTE_VOCAB + merges.length})`,
        BYTE_VOCAB + merges.length,
      );
    }
    const key = top[1];
    const [a, b] = [Math.floor(key / K), key % K];
    const id = BYTE_VOCAB + merges.length;
    merges.push([a, b]);
    opts.onMerge?.(merges.length);
    const touched = new Set<number>();
    for (const w of where.get(key) ?? []) {
      const ids = words[w];
      let has = false;
      for (let i = 0; i + 1 < ids.length && !has; i++) has = ids[i] === a && ids[i + 1] === b;
      if (!has) continue;
      count(w, -1, touched);
      words[w] = mergePair(ids, a, b, id);
      count(w, 1, touched);
    }
    where.delete(key);
    refresh(touched);
  }
  return new BpeTokenizer(merges);
}
