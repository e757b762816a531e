// A Hugging Face tokenizer.json read back: byte-level BPE (the GPT-2 family) with its ByteLevel pre-tokenizer, its
// added tokens and its post-processor, encoding as transformers.js's AutoTokenizer does, id for id. Pure (parsed
// JSON in, ids out). Not tinylab's own tokenizers (tokenizer.ts, bpe.ts) and not a trainer: anything else a
// tokenizer.json may hold (a normalizer, another model or pre-tokenizer type) is refused by name, never guessed.

/** GPT-2's reversible byte → printable character map (bytes_to_unicode in openai/gpt-2's encoder.py). */
export function bytesToUnicode(): string[] {
  const keep = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let next = 256;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(keep(b) ? b : next++));
}

/** The GPT-2 pre-split (openai/gpt-2's encoder.py), as the ByteLevel pre-tokenizer applies it with use_regex. */
const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

interface AddedToken {
  id: number;
  content: string;
  special: boolean;
}

/** What a post-processor puts around the text's ids: ids before and after (TemplateProcessing's single form, or none). */
export interface Template {
  before: number[];
  after: number[];
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });

/** Why tokenizer.json cannot be read as byte-level BPE, in one line naming the file and the field. */
export class TokenizerRefusal extends Error {}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Byte-level BPE read from tokenizer.json; `encode` is the text's ids without what the post-processor adds. */
export class HfTokenizer {
  private readonly vocab = new Map<string, number>();
  private readonly tokens: string[] = [];
  private readonly ranks = new Map<string, number>();
  private readonly added: AddedToken[];
  private readonly addedBy = new Map<string, AddedToken>();
  private readonly cache = new Map<string, string[]>();
  private readonly byteOf = new Map<string, number>();
  private readonly chars = bytesToUnicode();
  /** Vocab entries that stand for no bytes (markSpecial), besides special added tokens. */
  private readonly special = new Set<number>();
  readonly addPrefixSpace: boolean;
  readonly useRegex: boolean;
  /** Ids the post-processor adds around a single text (what AutoTokenizer(text) returns beyond `encode`). */
  readonly template: Template;
  readonly vocabSize: number;

  constructor(
    json: unknown,
    private readonly where = "tokenizer.json",
  ) {
    const t = obj(json);
    if (!t) throw this.refuse("is not a JSON object");
    if (t.normalizer !== null && t.normalizer !== undefined)
      throw this.refuse(
        `normalizer ${JSON.stringify(obj(t.normalizer)?.type ?? t.normalizer)} is not implemented (byte-level BPE of the GPT-2 family has none)`,
      );
    const model = obj(t.model);
    if (model?.type !== "BPE")
      throw this.refuse(`model type ${JSON.stringify(model?.type)} is not implemented; tinylab reads byte-level BPE (the GPT-2 family)`);
    for (const [k, ok] of [
      ["dropout", null],
      ["byte_fallback", false],
      ["ignore_merges", false],
      ["continuing_subword_prefix", ""],
      ["end_of_word_suffix", ""],
    ] as const) {
      const v = model[k];
      if (v !== undefined && v !== null && v !== ok) throw this.refuse(`model.${k} ${JSON.stringify(v)} is not implemented`);
    }
    const pre = obj(t.pre_tokenizer);
    if (pre?.type !== "ByteLevel")
      throw this.refuse(
        `pre-tokenizer ${JSON.stringify(pre?.type ?? null)} is not implemented; tinylab reads the ByteLevel pre-tokenizer (the GPT-2 family)`,
      );
    // the small parts first, so a refusal comes before the vocabulary and merges are read
    this.added = this.addedTokens(t.added_tokens);
    for (const a of this.added) this.addedBy.set(a.content, a);
    this.template = this.postProcessor(t.post_processor);
    this.addPrefixSpace = pre.add_prefix_space === true;
    this.useRegex = pre.use_regex !== false;
    const vocab = obj(model.vocab);
    if (!vocab) throw this.refuse("model.vocab is not an object");
    for (const [s, id] of Object.entries(vocab)) {
      if (!Number.isInteger(id) || (id as number) < 0)
        throw this.refuse(`model.vocab[${JSON.stringify(s)}] is not a non-negative integer id`);
      this.vocab.set(s, id as number);
      this.tokens[id as number] = s;
    }
    this.chars.forEach((c, b) => this.byteOf.set(c, b));
    const missing = this.chars.findIndex((c) => !this.vocab.has(c));
    if (missing >= 0)
      throw this.refuse(
        `model.vocab has no entry for byte ${missing} (${JSON.stringify(this.chars[missing])}), so some text has no ids (byte-level BPE covers all 256)`,
      );
    if (!Array.isArray(model.merges)) throw this.refuse("model.merges is not an array");
    model.merges.forEach((m: unknown, rank) => {
      const pair = typeof m === "string" ? m.split(" ", 2) : m;
      if (!Array.isArray(pair) || pair.length !== 2 || pair.some((p) => typeof p !== "string"))
        throw this.refuse(`model.merges[${rank}] is not a pair of strings`);
      const key = `${pair[0]} ${pair[1]}`;
      if (!this.ranks.has(key)) this.ranks.set(key, rank);
    });
    this.vocabSize = Math.max(this.tokens.length, ...this.added.map((a) => a.id + 1));
  }

  private refuse(why: string): TokenizerRefusal {
    return new TokenizerRefusal(`${this.where}: ${why}`);
  }

  private addedTokens(list: unknown): AddedToken[] {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw this.refuse("added_tokens is not an array");
    return list.map((x, i) => {
      const a = obj(x);
      if (!a || typeof a.content !== "string" || a.content === "" || !Number.isInteger(a.id))
        throw this.refuse(`added_tokens[${i}] needs a non-empty "content" and an integer "id"`);
      for (const k of ["lstrip", "rstrip", "single_word"])
        if (a[k] === true) throw this.refuse(`added_tokens[${i}] (${JSON.stringify(a.content)}) sets ${k}, which is not implemented`);
      return { id: a.id as number, content: a.content, special: a.special === true };
    });
  }

  /** TemplateProcessing's single form, ByteLevel's (adds nothing), or none; anything else is refused. */
  private postProcessor(p: unknown): Template {
    const pp = obj(p);
    if (!pp || pp.type === "ByteLevel") return { before: [], after: [] };
    if (pp.type !== "TemplateProcessing" || !Array.isArray(pp.single))
      throw this.refuse(`post-processor ${JSON.stringify(pp.type)} is not implemented (TemplateProcessing and ByteLevel are)`);
    const specials = obj(pp.special_tokens) ?? {};
    const out: Template = { before: [], after: [] };
    let seen = false;
    for (const piece of pp.single) {
      const sp = obj(obj(piece)?.SpecialToken),
        seq = obj(obj(piece)?.Sequence);
      if (seq) {
        if (seen || seq.id !== "A") throw this.refuse("post-processor's single template must hold sequence A once");
        seen = true;
        continue;
      }
      const ids = obj(specials[String(sp?.id)])?.ids;
      if (!sp || !Array.isArray(ids) || ids.some((x) => !Number.isInteger(x)))
        throw this.refuse(`post-processor's special token ${JSON.stringify(sp?.id)} has no ids in special_tokens`);
      (seen ? out.after : out.before).push(...(ids as number[]));
    }
    return out;
  }

  /** The id of token string `s` (a vocab entry or an added token), or undefined. */
  idOf(s: string): number | undefined {
    return this.addedBy.get(s)?.id ?? this.vocab.get(s);
  }

  /** The text's ids, as AutoTokenizer gives them with add_special_tokens false: added tokens cut out first, then pre-split and BPE. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const section of this.splitAdded(text)) {
      const added = this.addedBy.get(section);
      if (added) {
        out.push(added.id);
        continue;
      }
      const prefixed = this.addPrefixSpace && !section.startsWith(" ") ? " " + section : section;
      const words = this.useRegex ? (prefixed.match(GPT2_SPLIT) ?? []) : [prefixed];
      for (const w of words) {
        for (const piece of this.bpe(Array.from(utf8.encode(w), (b) => this.chars[b]).join(""))) out.push(this.idOf(piece)!);
      }
    }
    return out;
  }

  /** AutoTokenizer(text).input_ids: the text's ids inside the post-processor's template. */
  encodeWithTemplate(text: string): number[] {
    return [...this.template.before, ...this.encode(text), ...this.template.after];
  }

  /** Longest added token first at each place, scanning left to right (transformers.js's DictionarySplitter). */
  private splitAdded(text: string): string[] {
    if (this.added.length === 0) return text === "" ? [] : [text];
    const sections: string[] = [];
    let start = 0;
    for (let i = 0; i < text.length;) {
      let match: string | undefined;
      for (const a of this.added) if (text.startsWith(a.content, i) && (!match || a.content.length > match.length)) match = a.content;
      if (!match) {
        i++;
        continue;
      }
      if (i > start) sections.push(text.slice(start, i));
      sections.push(match);
      i += match.length;
      start = i;
    }
    if (start < text.length) sections.push(text.slice(start));
    return sections;
  }

  /** GPT-2's BPE on one pre-split word: merge the adjacent pair of lowest rank (leftmost first) until none has one. */
  private bpe(word: string): string[] {
    const hit = this.cache.get(word);
    if (hit) return hit;
    let parts = Array.from(word);
    for (;;) {
      let best = -1,
        bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = this.ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    for (const p of parts)
      if (this.idOf(p) === undefined)
        throw this.refuse(`BPE produced ${JSON.stringify(p)}, which is not in model.vocab (a merge without its result)`);
    if (word.length < 256) this.cache.set(word, parts);
    return parts;
  }

  /**
   * Declare vocab entries special (tokenizer_config.json's bos_token, eos_token, additional_special_tokens): they
   * stand for no bytes, as tinylab's BOS and EOS, so an EOS target adds nothing to bits per byte.
   */
  markSpecial(ids: Iterable<number>): void {
    for (const id of ids) this.special.add(id);
  }
  /** UTF-8 bytes token `id` stands for: a vocab entry's bytes, a non-special added token's text, nothing for special tokens. */
  bytesOf(id: number): Uint8Array {
    if (this.special.has(id)) return new Uint8Array(0);
    const added = this.added.find((a) => a.id === id);
    if (added) return added.special ? new Uint8Array(0) : utf8.encode(added.content);
    const s = this.tokens[id];
    if (s === undefined) return new Uint8Array(0);
    const bytes = Array.from(s, (c) => this.byteOf.get(c));
    return bytes.some((b) => b === undefined) ? utf8.encode(s) : Uint8Array.from(bytes as number[]);
  }

  decode(ids: readonly number[]): string {
    const bytes: number[] = [];
    for (const id of ids) for (const b of this.bytesOf(id)) bytes.push(b);
    return utf8Decoder.decode(new Uint8Array(bytes));
  }

  /** The id of a special token named by its text (tokenizer_config.json's bos_token, …), or undefined. */
  specialId(token: unknown): number | undefined {
    const content = typeof token === "string" ? token : obj(token)?.content;
    return typeof content === "string" ? this.idOf(content) : undefined;
  }
}
