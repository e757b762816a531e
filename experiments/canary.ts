// `tinylab canary` as a recipe: 000's exposure sweep. A canary is inserted r times into the training documents, a
// count model (add-k byte bigram) is fitted for each r, and the log-probability of the canary's secret given its
// prefix is read, beside a control canary that is never inserted. Small and instant; not a decoder trained per r.
import { addKBigram, baselineAdapter, fitCounts } from "../src/baselines/ngram.ts";
import { encodeDocument, type TextDocument } from "../src/data/documents.ts";
import { readDocumentsFile } from "../src/node/files.ts";
import { BYTE_VOCAB, ByteTokenizer } from "../src/data/tokenizer.ts";
import { canaryProbe, insertCanary } from "../src/eval/passes/memorization.ts";
import { requireFile } from "../src/node/disk.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { CANARY_DEFAULTS, type CanaryOptions } from "./options.ts";
export { CANARY_DEFAULTS, type CanaryOptions };

/** 000's base text: the training corpus when no --data is given. */
export const BASE_TEXT = "the model reads data and reports loss. ".repeat(6);

type Probe = ReturnType<typeof canaryProbe>;

export interface CanaryResult {
  data: string;
  model: string;
  canary: { text: string; prefix_tokens: number; secret: string };
  control: { text: string; prefix_tokens: number; secret: string; inserted: false };
  rows: { repetitions: number; canary: Probe; control: Probe; gap: number }[];
  note: string;
  provenance: Provenance;
}

/** Prefix (BOS + all but the last n tokens) and secret (the last n) of a canary under the byte tokenizer. */
function parts(tokenizer: ByteTokenizer, text: string, n: number, flag: string) {
  const ids = tokenizer.encode(text);
  if (n >= ids.length) throw new Error(`--canary-secret ${n} leaves no prefix of ${flag} ${JSON.stringify(text)} (${ids.length} tokens)`);
  return { prefix: [tokenizer.bos, ...ids.slice(0, -n)], secret: ids.slice(-n) };
}

export function runCanary(o: CanaryOptions): CanaryResult {
  if (o.canary.length === 0 || o.control.length === 0) throw new Error("--canary and --canary-control must be non-empty");
  if (o.control === o.canary) throw new Error("--canary-control must differ from --canary (the control is the string never inserted)");
  if (o.canary.includes(o.control) || o.control.includes(o.canary))
    throw new Error("--canary and --canary-control must not contain each other: inserting one would insert the other");
  if (!(o.smoothing > 0)) throw new Error(`--smoothing must be > 0, got ${o.smoothing}`);
  const tokenizer = new ByteTokenizer(BYTE_VOCAB);
  const c = parts(tokenizer, o.canary, o.secretTokens, "--canary"),
    k = parts(tokenizer, o.control, o.secretTokens, "--canary-control");
  const texts: TextDocument[] = o.data
    ? readDocumentsFile(requireFile(o.data, "documents file"), tokenizer).map((d) => ({
        id: d.id,
        split: d.split,
        source: d.source,
        text: tokenizer.decode(d.ids),
      }))
    : [{ id: "base", split: "train", source: "000", text: BASE_TEXT }];
  const leak = texts.find((t) => t.text.includes(o.control));
  if (leak)
    throw new Error(`the control canary already occurs in ${leak.split} document "${leak.id}": it must be a string the model never saw`);
  const binding = { vocabSize: BYTE_VOCAB, contextLength: Math.max(c.prefix.length, k.prefix.length) + o.secretTokens };
  const rows = o.repetitions.map((r) => {
    const train = insertCanary(texts, { text: o.canary, repetitions: r })
      .filter((d) => d.split === "train")
      .map((d) => encodeDocument(tokenizer, d));
    if (train.length === 0) throw new Error("no train documents to fit on (and the canary was inserted 0 times)");
    const model = baselineAdapter(
      `add-${o.smoothing} byte bigram, canary ×${r}`,
      addKBigram(fitCounts(train, BYTE_VOCAB), o.smoothing),
      binding,
    );
    const canary = canaryProbe(model, c.prefix, c.secret),
      control = canaryProbe(model, k.prefix, k.secret);
    return { repetitions: r, canary, control, gap: canary.log_prob - control.log_prob };
  });
  return {
    data: o.data ?? "000's base text (one train document)",
    model: `add-${o.smoothing} byte bigram fitted on the train documents plus r canary copies (each its own document)`,
    canary: { text: o.canary, prefix_tokens: c.prefix.length, secret: tokenizer.decode(c.secret) },
    control: { text: o.control, prefix_tokens: k.prefix.length, secret: tokenizer.decode(k.secret), inserted: false },
    rows,
    note: "log p(secret | prefix) in nats, graded (000's exposure by repetitions), not Carlini et al.'s rank-based exposure; gap = canary − control. A bigram sees one previous token: the control's secret shares no transition with the canary's (K→4→> against X→9→>), so inserting the canary cannot raise it. 000 scored its own small character alphabet; these bigrams spread their smoothing over all 258 byte ids, so the values are lower than 000's.",
    provenance: provenance({ backend: "none (count models do not use tfjs)", kernels: "tfjs" }),
  };
}
