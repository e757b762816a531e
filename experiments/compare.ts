// `tinylab compare` as a recipe: two model files, or a model file and a count baseline, scored on the same targets
// of one split; per-document paired bootstrap of the NLL and bits-per-byte differences, McNemar on next-token hits.
import { allBaselines, DEFAULT_SMOOTHING_K } from "../src/baselines/ngram.ts";
import type { Binding } from "../src/data/batches.ts";
import { targetCount, type Document, type Split } from "../src/data/documents.ts";
import { readDocumentsBytes } from "../src/node/files.ts";
import type { Tokenizer } from "../src/data/tokenizer.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { scoredBytes } from "../src/eval/bpb.ts";
import { MIN_REPLICATES, wilsonInterval } from "../src/eval/intervals.ts";
import { mcnemarExact } from "../src/eval/mcnemar.ts";
import { multiBootstrapDifference, type Arm } from "../src/eval/multi_bootstrap.ts";
import { scoringStride, windowBatches } from "../src/eval/windows.ts";
import { ModelFileError, decodeModelFile, type LoadedModel } from "../src/lab/model_file.ts";
import { readSafetensorsBytes, requireFile } from "../src/node/disk.ts";
import { provenance, type Provenance } from "../src/util/provenance.ts";
import { Rng } from "../src/util/rng.ts";
import { COMPARE_DEFAULTS, COMPARE_BASELINES, type CompareOptions } from "./options.ts";
import { scoringDocuments } from "./scoring_data.ts";
export { COMPARE_DEFAULTS, COMPARE_BASELINES, type CompareOptions };

/** Per target of one document: −ln p (nats) and whether the model's top token (lowest id on ties) was the target. */
export interface TokenScores {
  readonly nll: Float64Array;
  readonly hit: Uint8Array;
}

/** Score every target of `doc` once, in strided windows (a document that fits the context is one window). */
export function scoreTokens(model: ScoringModel, doc: Document, stride: number): TokenScores {
  const binding: Binding = model.binding;
  const V = binding.vocabSize;
  const n = targetCount(doc);
  const nll = new Float64Array(n).fill(NaN), hit = new Uint8Array(n);
  const wb = windowBatches([doc], binding, stride, 1);
  wb.batches.forEach((batch, i) => {
    const w = wb.windows[i];
    const pos = model.positionNll(batch); // [cols]
    const lp = model.logProbs(batch.input); // [cols·V]
    for (let p = 0; p < batch.input.cols; p++) {
      if (batch.mask[p] === 0) continue;
      let best = 0;
      for (let v = 1; v < V; v++) if (lp[p * V + v] > lp[p * V + best]) best = v;
      nll[w.start + p] = pos[p]; // position p of the window predicts target w.start + p + 1, index w.start + p
      hit[w.start + p] = best === batch.targets[p] ? 1 : 0;
    }
  });
  const missing = nll.findIndex((x) => !Number.isFinite(x));
  if (missing >= 0) throw new Error(`compare: target ${missing + 1} of document "${doc.id}" was not scored exactly once by ${model.name}`);
  return { nll, hit };
}

interface Side {
  name: string;
  path: string | null;
  model_sha256: string | null;
  tokenizer: unknown;
  scorer: ScoringModel;
  docs: Document[];
  tokenizerObj: Tokenizer;
}

const load = (path: string, what: string): LoadedModel => decodeModelFile(readSafetensorsBytes(path, what, ModelFileError), path);
const sameJSON = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** The documents, encoded with the model's tokenizer (a run's text, a documents file or the fixture), and the note on whether it trained on them. */
function documentsOf(o: CompareOptions, model: string, loaded: LoadedModel): { docs: Document[]; source: string; note?: string } {
  return scoringDocuments(model, loaded, { text: o.text, documents: o.data ? { name: o.data, bytes: readDocumentsBytes(requireFile(o.data, "documents file")) } : undefined });
}

export interface CompareResult {
  a: { name: string; path: string | null; model_sha256: string | null; tokenizer: unknown };
  b: { name: string; path: string | null; model_sha256: string | null; tokenizer: unknown };
  /** `notes`: one line per model not trained on these documents (src/lab/trained_on.ts). */
  data: { source: string; split: Split; documents: number; targets: number | null; bytes: number; notes?: string[] };
  same_tokenizer: boolean;
  stride: number;
  /** A's context (the default stride). */
  context_length: number;
  bootstrap: { replicates: number; seed: number; level: number; resampled: string; note: string };
  /** Nats per target, B − A (positive: A predicts better); null when the tokenizers differ. */
  nll: null | { a: number; b: number; difference: ReturnType<typeof multiBootstrapDifference>["difference"] };
  nll_reason?: string;
  bits_per_byte: { a: number; b: number; difference: ReturnType<typeof multiBootstrapDifference>["difference"] };
  accuracy: null | {
    a: { hits: number; targets: number; acc: number; wilson: { lo: number; hi: number } };
    b: { hits: number; targets: number; acc: number; wilson: { lo: number; hi: number } };
    mcnemar: ReturnType<typeof mcnemarExact>;
  };
  accuracy_reason?: string;
  documents: { id: string; targets: number | null; bytes: number; a_total_nll: number; b_total_nll: number }[];
  provenance: Provenance;
}

/** Per token of each document, for the HTML page: the target ids and both NLLs (same tokenizer only). */
export interface CompareTokens {
  tokenizer: Tokenizer;
  documents: { id: string; ids: number[]; a: Float64Array; b: Float64Array }[];
}

function checkOptions(o: CompareOptions): void {
  if ((o.b === undefined) === (o.baseline === undefined)) throw new Error("compare needs exactly one of a second model file (B) or --baseline NAME");
  if (o.baseline !== undefined && !(COMPARE_BASELINES as readonly string[]).includes(o.baseline)) throw new Error(`--baseline must be one of ${COMPARE_BASELINES.join(", ")}, got ${JSON.stringify(o.baseline)}`);
  if (o.split === "test" && !o.finalTest) throw new Error("--split test scores the test split, which only a final report may do: add --final-test (and choose nothing on its numbers)");
  if (!Number.isInteger(o.replicates) || o.replicates < MIN_REPLICATES) throw new Error(`--replicates must be an integer ≥ ${MIN_REPLICATES}, got ${o.replicates}`);
}

/** Compare A with B (a model file or a baseline fitted on the data's train split); every model is disposed. */
export function runCompare(o: CompareOptions): { result: CompareResult; tokens: CompareTokens | null } {
  checkOptions(o);
  const loaded: LoadedModel[] = [];
  try {
    const la = load(o.a, "model file A");
    loaded.push(la);
    const binding: Binding = { vocabSize: la.config.vocabSize, contextLength: la.config.contextLength };
    const inA = documentsOf(o, o.a, la);
    const docsA = inA.docs;
    const notes = inA.note ? [inA.note] : [];
    const a: Side = { name: o.a, path: o.a, model_sha256: la.sha256, tokenizer: la.tokenizer.toJSON(), scorer: decoderAdapter(la.model, { name: o.a }), docs: docsA, tokenizerObj: la.tokenizer };
    let b: Side;
    if (o.b !== undefined) {
      const lb = load(o.b, "model file B");
      loaded.push(lb);
      const inB = documentsOf(o, o.b, lb);
      if (inB.note) notes.push(inB.note);
      b = { name: o.b, path: o.b, model_sha256: lb.sha256, tokenizer: lb.tokenizer.toJSON(), scorer: decoderAdapter(lb.model, { name: o.b }), docs: inB.docs, tokenizerObj: lb.tokenizer };
    } else {
      const train = docsA.filter((d) => d.split === "train");
      if (train.length === 0) throw new Error(`--baseline ${o.baseline}: no train documents in ${inA.source} to fit it on`);
      const scorer = allBaselines(train, binding, DEFAULT_SMOOTHING_K)[COMPARE_BASELINES.indexOf(o.baseline as (typeof COMPARE_BASELINES)[number])];
      b = { name: `${scorer.name}, fitted on ${train.length} train documents`, path: null, model_sha256: null, tokenizer: a.tokenizer, scorer, docs: docsA, tokenizerObj: la.tokenizer };
    }
    const same = sameJSON(a.tokenizer, b.tokenizer);
    if (!same && !o.bitsPerByte) {
      throw new Error(`A and B have different tokenizers (${JSON.stringify(a.tokenizer).slice(0, 60)} vs ${JSON.stringify(b.tokenizer).slice(0, 60)}): their per-target NLLs score different targets; pass --bits-per-byte to compare them per UTF-8 byte`);
    }
    const pick = (s: Side) => s.docs.filter((d) => d.split === o.split);
    const da = pick(a), db = pick(b);
    if (da.length === 0) throw new Error(`no ${o.split} documents in ${inA.source}`);
    const strideOf = (s: Side) => scoringStride(o.stride, s.scorer.binding.contextLength);
    const sa = da.map((d) => scoreTokens(a.scorer, d, strideOf(a)));
    const sb = db.map((d) => scoreTokens(b.scorer, d, strideOf(b)));
    const sum = (x: Float64Array) => x.reduce((s, v) => s + v, 0);
    const bytes = da.map((d, i) => {
      const n = scoredBytes(a.tokenizerObj, d.ids);
      const m = scoredBytes(b.tokenizerObj, db[i].ids);
      if (n !== m) throw new Error(`document "${d.id}" stands for ${n} bytes under A's tokenizer but ${m} under B's`);
      return n;
    });
    const totA = sa.map((s) => sum(s.nll)), totB = sb.map((s) => sum(s.nll));
    // one model per arm: no seed to resample, so the documents alone are resampled (the same draw for both arms)
    const arm = (nll: number[], den: number[]): Arm => ({ seeds: ["model"], nll: [nll], targets: [den] });
    const opts = { replicates: o.replicates, resample: "documents" as const };
    const rng = () => Rng.fromSeed(o.seed).child("bootstrap");
    const bpbA = totA.map((x) => x / Math.LN2), bpbB = totB.map((x) => x / Math.LN2);
    const bpb = multiBootstrapDifference(arm(bpbA, bytes), arm(bpbB, bytes), rng(), opts);
    const targets = da.map((d) => targetCount(d));
    let nll: CompareResult["nll"] = null, accuracy: CompareResult["accuracy"] = null;
    if (same) {
      const d = multiBootstrapDifference(arm(totA, targets), arm(totB, targets), rng(), opts);
      nll = { a: d.a.estimate, b: d.b.estimate, difference: d.difference };
      const hitsA = sa.flatMap((s) => Array.from(s.hit)), hitsB = sb.flatMap((s) => Array.from(s.hit));
      const N = hitsA.length;
      const acc = (h: number[]) => {
        const k = h.reduce((s, x) => s + x, 0);
        return { hits: k, targets: N, acc: k / N, wilson: wilsonInterval(k, N) };
      };
      const aOnly = hitsA.filter((x, i) => x === 1 && hitsB[i] === 0).length, bOnly = hitsA.filter((x, i) => x === 0 && hitsB[i] === 1).length;
      accuracy = { a: acc(hitsA), b: acc(hitsB), mcnemar: mcnemarExact(aOnly, bOnly) };
    }
    const why = "A and B have different tokenizers, so they predict different targets: only bits per byte compare";
    const result: CompareResult = {
      a: { name: a.name, path: a.path, model_sha256: a.model_sha256, tokenizer: a.tokenizer },
      b: { name: b.name, path: b.path, model_sha256: b.model_sha256, tokenizer: b.tokenizer },
      data: { source: inA.source, split: o.split, documents: da.length, targets: same ? targets.reduce((s, x) => s + x, 0) : null, bytes: bytes.reduce((s, x) => s + x, 0), ...(notes.length ? { notes } : {}) },
      same_tokenizer: same,
      stride: strideOf(a), context_length: a.scorer.binding.contextLength,
      bootstrap: {
        replicates: o.replicates, seed: o.seed, level: 0.95, resampled: "documents (one draw shared by A and B: paired)",
        note: "one model per arm: documents are resampled, seeds are not; the interval says nothing about training another seed",
      },
      nll, ...(nll ? {} : { nll_reason: why }),
      bits_per_byte: { a: bpb.a.estimate, b: bpb.b.estimate, difference: bpb.difference },
      accuracy, ...(accuracy ? {} : { accuracy_reason: why }),
      documents: da.map((d, i) => ({ id: d.id, targets: same ? targets[i] : null, bytes: bytes[i], a_total_nll: totA[i], b_total_nll: totB[i] })),
      provenance: provenance(),
    };
    const tokens = same ? { tokenizer: a.tokenizerObj, documents: da.map((d, i) => ({ id: d.id, ids: d.ids, a: sa[i].nll, b: sb[i].nll })) } : null;
    return { result, tokens };
  } finally {
    for (const l of loaded) l.model.dispose();
  }
}
