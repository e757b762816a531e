// Strided evaluation windows for documents longer than the context, laid out as ordinary Batch objects so
// the same ScoringModel / evaluateLikelihood path scores them. Not scoring (windowed.ts) and not training data.
import { PAD_DOC, PAD_ID, type Batch, type Binding } from "../../data/batches.ts";
import { checkDocuments, targetCount, type Document, type Split } from "../../data/documents.ts";

/**
 * One window over document `doc`: input ids doc.ids[start, start + length), targets one to the right.
 * Only its last `scored` positions are scored; the first `length − scored` are context (masked out).
 */
export interface Window {
  readonly doc: string;
  readonly split: Split;
  readonly source: string;
  readonly start: number;
  readonly length: number;
  readonly scored: number;
  readonly stride: number;
}

/**
 * The one stride rule of every scorer (evaluate, report, compare, training's validation, the lab page and the
 * Python tools): no --stride means stride = the context, so a document that fits is one window and a longer one
 * is scored in windows of the context, every target once (the last window's inputs reach back up to T − 1 already
 * scored tokens, as context: documentWindows); a --stride outside [1, context] is refused by name.
 * docs/evaluation.md states it.
 */
export function scoringStride(stride: number | undefined, contextLength: number): number {
  if (stride === undefined) return contextLength;
  if (!Number.isInteger(stride) || stride < 1 || stride > contextLength)
    throw new Error(`--stride must be an integer in [1, ${contextLength}] (the model's context), got ${stride}`);
  return stride;
}

/** How a result names its stride: `stride 64`, or `stride 128 (= the context, the default)`. */
export const strideLabel = (stride: number, contextLength: number) =>
  `stride ${stride}${stride === contextLength ? " (= the context)" : ""}`;

export function checkStride(stride: number, contextLength: number): void {
  if (!Number.isInteger(stride) || stride < 1 || stride > contextLength) {
    throw new Error(`stride must be an integer in [1, ${contextLength}] (the context length), got ${stride}`);
  }
}

/**
 * Windows of one document with context T and stride s: the first window scores targets 1..min(T, N);
 * each later one advances its last scored target by s (or to N) and scores only the new targets, with
 * as much earlier context as fits in T. Every target 1..N is scored by exactly one window.
 */
export function documentWindows(doc: Document, contextLength: number, stride: number): Window[] {
  checkStride(stride, contextLength);
  const n = targetCount(doc);
  const out: Window[] = [];
  // `end` is the last target index scored so far (target j is predicted at input position j − 1)
  for (let prev = 0, end = Math.min(contextLength, n); prev < n; prev = end, end = Math.min(end + stride, n)) {
    const start = Math.max(0, end - contextLength);
    out.push({ doc: doc.id, split: doc.split, source: doc.source, start, length: end - start, scored: end - prev, stride });
  }
  return out;
}

/** Windows laid out one per row, `rowsPerBatch` rows per batch, each batch padded to its longest window. */
export interface WindowBatches {
  readonly stride: number;
  readonly windows: readonly Window[];
  readonly batches: readonly Batch[];
  /** Index into `windows` of each batch's first row. */
  readonly firstWindow: readonly number[];
}

/** All windows of `docs` (one split), in document order, as padded batches bound to the model's binding. */
export function windowBatches(docs: readonly Document[], binding: Binding, stride: number, rowsPerBatch = 16): WindowBatches {
  if (docs.length === 0) throw new Error("no documents to window");
  if (!Number.isInteger(rowsPerBatch) || rowsPerBatch < 1)
    throw new Error(`rows per batch must be a positive integer, got ${rowsPerBatch}`);
  checkDocuments(docs);
  const split = docs[0].split;
  const byId = new Map(docs.map((d) => [d.id, d]));
  for (const d of docs) {
    if (d.split !== split)
      throw new Error(`documents from two splits in one window list: "${docs[0].id}" is ${split}, "${d.id}" is ${d.split}`);
    for (const id of d.ids)
      if (!Number.isInteger(id) || id < 0 || id >= binding.vocabSize)
        throw new Error(`document "${d.id}" holds id ${id} outside [0, ${binding.vocabSize})`);
  }
  const windows = docs.flatMap((d) => documentWindows(d, binding.contextLength, stride));
  const batches: Batch[] = [];
  const firstWindow: number[] = [];
  for (let w0 = 0; w0 < windows.length; w0 += rowsPerBatch) {
    const rows = windows.slice(w0, w0 + rowsPerBatch);
    firstWindow.push(w0);
    batches.push(layRows(rows, (w) => byId.get(w.doc)!, split, binding));
  }
  return { stride, windows, batches, firstWindow };
}

function layRows(rows: readonly Window[], docOf: (w: Window) => Document, split: Split, binding: Binding): Batch {
  const cols = Math.max(...rows.map((w) => w.length));
  const size = rows.length * cols;
  const ids = new Int32Array(size).fill(PAD_ID);
  const docIds = new Int32Array(size).fill(PAD_DOC);
  const targets = new Int32Array(size);
  const mask = new Float32Array(size);
  rows.forEach((w, r) => {
    const d = docOf(w);
    for (let c = 0; c < w.length; c++) {
      const i = r * cols + c;
      ids[i] = d.ids[w.start + c];
      targets[i] = d.ids[w.start + c + 1];
      docIds[i] = r; // one window per row: attention never leaves the row's own segment
      mask[i] = c >= w.length - w.scored ? 1 : 0;
    }
  });
  const targetTotal = rows.reduce((n, w) => n + w.scored, 0);
  return {
    split,
    binding,
    layout: "padded",
    input: { rows: rows.length, cols, ids, docIds },
    targets,
    mask,
    targetCount: targetTotal,
    docIds: rows.map((w) => w.doc),
  };
}
