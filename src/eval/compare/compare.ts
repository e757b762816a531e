// Two scorers compared on the same targets of one split: per-target NLL and next-token hits, a per-document paired
// bootstrap of the NLL and bits-per-byte differences, McNemar on the hits. Pure: loading the model files, fitting a
// baseline and reading documents belong to the recipe (experiments/compare.ts).
import type { Document, Split } from "../../data/documents.ts";
import { targetCount } from "../../data/documents.ts";
import type { Tokenizer } from "../../data/tokenizer.ts";
import type { Provenance } from "../../util/runtime/provenance.ts";
import { Rng } from "../../util/primitives/rng.ts";
import { phase, type ProgressStream } from "../../util/runtime/progress.ts";
import type { ScoringModel } from "../passes/adapter.ts";
import type { ConventionRecord } from "../passes/convention.ts";
import { scoredBytes } from "../metrics/bpb.ts";
import { proportion, type WilsonBounds } from "../metrics/aggregate.ts";
import { MIN_INTERVAL_DOCUMENTS, tooFewDocuments } from "../metrics/intervals.ts";
import { gatedMcNemar, type GatedMcNemar } from "../metrics/mcnemar.ts";
import { multiBootstrapDifference, type Arm } from "../metrics/multi_bootstrap.ts";
import { scoringStride, windowBatches } from "../passes/windows.ts";

/** Per target of one document: −ln p (nats) and whether the model's top token (lowest id on ties) was the target. */
export interface TokenScores {
  readonly nll: Float64Array;
  readonly hit: Uint8Array;
}

/** Score every target of `doc` once, in strided windows (a document that fits the context is one window). */
export function scoreTokens(model: ScoringModel, doc: Document, stride: number): TokenScores {
  const V = model.binding.vocabSize;
  const n = targetCount(doc);
  const nll = new Float64Array(n).fill(NaN),
    hit = new Uint8Array(n);
  const wb = windowBatches([doc], model.binding, stride, 1);
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

/** One side of a comparison: how it is named in the result, its scorer, and the documents under its own tokenizer. */
export interface CompareSide {
  name: string;
  path: string | null;
  model_sha256: string | null;
  /** The tokenizer's JSON form: two sides share targets exactly when these are equal. */
  tokenizer: unknown;
  /** A tinylab tokenizer, or another model's (a directory's tokenizer.json): what each target's bytes are. */
  tokenizerObj: Tokenizer | Pick<Tokenizer, "bytesOf">;
  /** Which ids surround each document, and so whether its EOS is a target (src/eval/passes/convention.ts). */
  convention: ConventionRecord;
  scorer: ScoringModel;
  docs: Document[];
}

/** What the comparison is asked: the split, the stride (undefined: each side's context), the bootstrap, and whether differing tokenizers may be compared per byte. */
export interface CompareSettings {
  split: Split;
  stride?: number;
  replicates: number;
  seed: number;
  bitsPerByte: boolean;
  /** Where scoring that outlasts a phase's quiet time (QUIET_MS) shows its progress (stderr); absent: nowhere. */
  progress?: ProgressStream;
}

type BootstrapDifference = ReturnType<typeof multiBootstrapDifference>["difference"];
/**
 * B − A with its interval and p-value, or, over fewer than MIN_INTERVAL_DOCUMENTS documents, the point estimate
 * alone with the reason (a bootstrap over one document gave "[x, x]" and p = 1/replicates).
 */
export type Difference =
  BootstrapDifference | { estimate: number; lo: null; hi: null; p_one_sided: null; p_floor: null; interval_reason: string };

/** `d` as shown over `documents` documents: whole, or its estimate alone when they are too few for an interval. */
function shown(d: BootstrapDifference, documents: number): Difference {
  return documents >= MIN_INTERVAL_DOCUMENTS
    ? d
    : { estimate: d.estimate, lo: null, hi: null, p_one_sided: null, p_floor: null, interval_reason: tooFewDocuments(documents) };
}
/** Next-token accuracy over the targets; its Wilson interval null, with the reason, under MIN_INTERVAL_DOCUMENTS documents. */
type Accuracy = { hits: number; targets: number; acc: number; wilson: WilsonBounds | null; wilson_reason?: string };

export interface CompareResult {
  a: { name: string; path: string | null; model_sha256: string | null; tokenizer: unknown; convention: ConventionRecord };
  b: { name: string; path: string | null; model_sha256: string | null; tokenizer: unknown; convention: ConventionRecord };
  /** `notes`: one line per model not trained on these documents (src/lab/trained_on.ts). */
  data: { source: string; split: Split; documents: number; targets: number | null; bytes: number; notes?: string[] };
  same_tokenizer: boolean;
  stride: number;
  /** A's context (the default stride). */
  context_length: number;
  bootstrap: { replicates: number; seed: number; level: number; resampled: string; note: string };
  /** Nats per target, B − A (positive: A predicts better); null when the tokenizers differ. */
  nll: null | { a: number; b: number; difference: Difference };
  nll_reason?: string;
  bits_per_byte: { a: number; b: number; difference: Difference };
  accuracy: null | { a: Accuracy; b: Accuracy; mcnemar: GatedMcNemar };
  accuracy_reason?: string;
  documents: { id: string; targets: number | null; bytes: number; a_total_nll: number; b_total_nll: number }[];
  provenance: Provenance;
}

/** Per token of each document, for the HTML page: the target ids and both NLLs (same tokenizer only). */
export interface CompareTokens {
  tokenizer: Tokenizer;
  documents: { id: string; ids: number[]; a: Float64Array; b: Float64Array }[];
}

function sum(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s;
}

/** Compare A with B on the `o.split` documents of `data.source`; B's documents must be A's, encoded by B's tokenizer. */
export function compareSides(
  a: CompareSide,
  b: CompareSide,
  o: CompareSettings,
  data: { source: string; notes: string[] },
  prov: Provenance,
): { result: CompareResult; tokens: CompareTokens | null } {
  const same = JSON.stringify(a.tokenizer) === JSON.stringify(b.tokenizer);
  if (!same && !o.bitsPerByte) {
    throw new Error(
      `A and B have different tokenizers (${JSON.stringify(a.tokenizer).slice(0, 60)} vs ${JSON.stringify(b.tokenizer).slice(0, 60)}): their per-target NLLs score different targets; pass --bits-per-byte to compare them per UTF-8 byte`,
    );
  }
  const pick = (s: CompareSide) => s.docs.filter((d) => d.split === o.split);
  const da = pick(a),
    db = pick(b);
  if (da.length === 0) throw new Error(`no ${o.split} documents in ${data.source}`);
  const strideOf = (s: CompareSide) => scoringStride(o.stride, s.scorer.binding.contextLength);
  const bar = phase(o.progress, "compare", da.length + db.length, "documents");
  const scored = (s: CompareSide) => (d: Document) => {
    const r = scoreTokens(s.scorer, d, strideOf(s));
    bar?.tick();
    return r;
  };
  const sa = da.map(scored(a));
  const sb = db.map(scored(b));
  bar?.done();
  const bytes = da.map((d, i) => {
    const n = scoredBytes(a.tokenizerObj, d.ids);
    const m = scoredBytes(b.tokenizerObj, db[i].ids);
    if (n !== m) throw new Error(`document "${d.id}" stands for ${n} bytes under A's tokenizer but ${m} under B's`);
    return n;
  });
  const totA = sa.map((s) => sum(s.nll)),
    totB = sb.map((s) => sum(s.nll));
  // one model per arm: no seed to resample, so the documents alone are resampled (the same draw for both arms)
  const arm = (nll: number[], den: number[]): Arm => ({ seeds: ["model"], nll: [nll], targets: [den] });
  const opts = { replicates: o.replicates, resample: "documents" as const };
  const rng = () => Rng.fromSeed(o.seed).child("bootstrap");
  const bpbA = totA.map((x) => x / Math.LN2),
    bpbB = totB.map((x) => x / Math.LN2);
  const bpb = multiBootstrapDifference(arm(bpbA, bytes), arm(bpbB, bytes), rng(), opts);
  const targets = da.map((d) => targetCount(d));
  let nll: CompareResult["nll"] = null,
    accuracy: CompareResult["accuracy"] = null;
  if (same) {
    const d = multiBootstrapDifference(arm(totA, targets), arm(totB, targets), rng(), opts);
    nll = { a: d.a.estimate, b: d.b.estimate, difference: shown(d.difference, da.length) };
    const hitsA = sa.flatMap((s) => Array.from(s.hit)),
      hitsB = sb.flatMap((s) => Array.from(s.hit));
    const N = hitsA.length;
    const acc = (h: number[]): Accuracy => {
      const p = proportion(h, da.length);
      return {
        hits: h.reduce((s, x) => s + x, 0),
        targets: N,
        acc: p.value,
        wilson: p.interval,
        ...(p.interval_reason ? { wilson_reason: p.interval_reason } : {}),
      };
    };
    const aOnly = hitsA.filter((x, i) => x === 1 && hitsB[i] === 0).length,
      bOnly = hitsA.filter((x, i) => x === 0 && hitsB[i] === 1).length;
    accuracy = { a: acc(hitsA), b: acc(hitsB), mcnemar: gatedMcNemar(aOnly, bOnly, da.length) };
  }
  const why = "A and B have different tokenizers, so they predict different targets: only bits per byte compare";
  const named = (s: CompareSide) => ({
    name: s.name,
    path: s.path,
    model_sha256: s.model_sha256,
    tokenizer: s.tokenizer,
    convention: s.convention,
  });
  const result: CompareResult = {
    a: named(a),
    b: named(b),
    data: {
      source: data.source,
      split: o.split,
      documents: da.length,
      targets: same ? sum(targets) : null,
      bytes: sum(bytes),
      ...(data.notes.length ? { notes: data.notes } : {}),
    },
    same_tokenizer: same,
    stride: strideOf(a),
    context_length: a.scorer.binding.contextLength,
    bootstrap: {
      replicates: o.replicates,
      seed: o.seed,
      level: 0.95,
      resampled: "documents (one draw shared by A and B: paired)",
      note: "one model per arm: documents are resampled, seeds are not; the interval says nothing about training another seed",
    },
    nll,
    ...(nll ? {} : { nll_reason: why }),
    bits_per_byte: { a: bpb.a.estimate, b: bpb.b.estimate, difference: shown(bpb.difference, da.length) },
    accuracy,
    ...(accuracy ? {} : { accuracy_reason: why }),
    documents: da.map((d, i) => ({
      id: d.id,
      targets: same ? targets[i] : null,
      bytes: bytes[i],
      a_total_nll: totA[i],
      b_total_nll: totB[i],
    })),
    provenance: prov,
  };
  const tokens =
    same && "toJSON" in a.tokenizerObj
      ? { tokenizer: a.tokenizerObj, documents: da.map((d, i) => ({ id: d.id, ids: d.ids, a: sa[i].nll, b: sb[i].nll })) }
      : null;
  return { result, tokens };
}
