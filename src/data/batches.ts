// Batch constructors for separate, padded and packed storage, all producing one shape the model and the
// evaluator accept. Not the model's input checks (src/model/input.ts) and not data order (src/data/epoch_source.ts).
import { checkDocuments, targetCount, type Document, type Split } from "./documents.ts";

/**
 * Rows of token ids with a document id per position (PAD_DOC marks padding), row-major [rows, cols]: the
 * shape src/model/input.ts calls ModelInput, restated here because data sits below the model.
 */
export interface BatchInput {
  rows: number;
  cols: number;
  ids: Int32Array;
  docIds: Int32Array;
}

/** What a batch was built for; the evaluator refuses a batch bound to another vocabulary or context. */
export interface Binding {
  vocabSize: number;
  contextLength: number;
}

export type Layout = "separate" | "padded" | "packed";

/** Rows of inputs with targets and a 0/1 mask selecting the scored ones. */
export interface Batch {
  split: Split;
  binding: Binding;
  layout: Layout;
  input: BatchInput;
  targets: Int32Array;
  mask: Float32Array;
  targetCount: number;
  docIds: string[];
}

/** Input id at padding: never attended to by real positions (own segment) and never scored. */
export const PAD_ID = 0;
/** Document id marking padding positions in BatchInput.docIds. */
export const PAD_DOC = -1;

function checkFits(doc: Document, binding: Binding): void {
  const n = targetCount(doc);
  if (n > binding.contextLength) {
    throw new Error(
      `document "${doc.id}" has ${n} positions, more than the context length ${binding.contextLength}; use strided windows for long documents`,
    );
  }
  for (const id of doc.ids) {
    if (!Number.isInteger(id) || id < 0 || id >= binding.vocabSize)
      throw new Error(`document "${doc.id}" holds id ${id} outside [0, ${binding.vocabSize})`);
  }
}

/** Lay rows of whole documents into one batch; each row is a list of documents placed left to right. */
function buildBatch(rows: Document[][], split: Split, binding: Binding, layout: Layout): Batch {
  const cols = Math.max(...rows.map((r) => r.reduce((n, d) => n + targetCount(d), 0)));
  const size = rows.length * cols;
  const ids = new Int32Array(size).fill(PAD_ID);
  const docs = new Int32Array(size).fill(PAD_DOC);
  const targets = new Int32Array(size);
  const mask = new Float32Array(size);
  const names: string[] = [];
  rows.forEach((row, r) => {
    let c = 0;
    for (const d of row) {
      const docIndex = names.push(d.id) - 1;
      for (let t = 0; t + 1 < d.ids.length; t++, c++) {
        const i = r * cols + c;
        ids[i] = d.ids[t];
        targets[i] = d.ids[t + 1];
        docs[i] = docIndex;
        mask[i] = 1;
      }
    }
  });
  const count = rows.flat().reduce((n, d) => n + targetCount(d), 0);
  return {
    split,
    binding,
    layout,
    input: { rows: rows.length, cols, ids, docIds: docs },
    targets,
    mask,
    targetCount: count,
    docIds: names,
  };
}

function prepare(docs: readonly Document[], binding: Binding): Split {
  if (docs.length === 0) throw new Error("no documents to batch");
  checkDocuments(docs);
  const split = docs[0].split;
  for (const d of docs) {
    if (d.split !== split)
      throw new Error(`documents from two splits in one batch list: "${docs[0].id}" is ${split}, "${d.id}" is ${d.split}`);
    checkFits(d, binding);
  }
  return split;
}

function chunk<T>(items: T[], size: number): T[][] {
  if (!Number.isInteger(size) || size <= 0) throw new Error(`rows per batch must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One document per batch, one row each. */
export function separateBatches(docs: readonly Document[], binding: Binding): Batch[] {
  const split = prepare(docs, binding);
  return docs.map((d) => buildBatch([[d]], split, binding, "separate"));
}

/** One document per row, `rowsPerBatch` rows per batch, padded to the longest row. */
export function paddedBatches(docs: readonly Document[], binding: Binding, rowsPerBatch: number): Batch[] {
  const split = prepare(docs, binding);
  return chunk(
    docs.map((d) => [d]),
    rowsPerBatch,
  ).map((rows) => buildBatch(rows, split, binding, "padded"));
}

/** Whole documents packed greedily in order into rows of `contextLength` positions; attention stays document-local. */
export function packedBatches(docs: readonly Document[], binding: Binding, rowsPerBatch: number): Batch[] {
  const split = prepare(docs, binding);
  const rows: Document[][] = [];
  let fill = binding.contextLength + 1;
  for (const d of docs) {
    const n = targetCount(d);
    if (fill + n > binding.contextLength) {
      rows.push([]);
      fill = 0;
    }
    rows[rows.length - 1].push(d);
    fill += n;
  }
  return chunk(rows, rowsPerBatch).map((r) => buildBatch(r, split, binding, "packed"));
}

/** Training microbatches: refuses any document whose split is not train. */
export function trainingBatches(docs: readonly Document[], binding: Binding, layout: Layout, rowsPerBatch = 1): Batch[] {
  for (const d of docs)
    if (d.split !== "train") throw new Error(`training batch refused document "${d.id}": its split is ${d.split}, not train`);
  if (layout === "separate") return separateBatches(docs, binding);
  return layout === "padded" ? paddedBatches(docs, binding, rowsPerBatch) : packedBatches(docs, binding, rowsPerBatch);
}
