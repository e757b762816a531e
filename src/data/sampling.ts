// Seeded training data orders whose state is the data cursor: random document-local windows of long documents
// (RandomWindows) and whole short rows drawn with replacement (ReplacementSource).
import type { Rng, RngState } from "../util/primitives/rng.ts";
import type { DataSource } from "./source.ts";
import { PAD_DOC, PAD_ID, trainingBatches, type Batch, type Binding } from "./batches.ts";
import type { Document } from "./documents.ts";

/** Rows of random document-local windows; a document is chosen with probability ∝ its number of targets. */
export class RandomWindows implements DataSource<Batch, RngState> {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  /** `parts` splits each update's rows into that many microbatches (the same windows, drawn in the same order), so a worker pool can share an update. */
  constructor(
    private readonly docs: readonly Document[],
    private readonly binding: Binding,
    private readonly rows: number,
    private readonly rng: Rng,
    private readonly parts = 1,
  ) {
    if (docs.length === 0) throw new Error("random windows need at least one document");
    if (!Number.isInteger(rows) || rows < 1) throw new Error(`rows per batch must be a positive integer, got ${rows}`);
    if (!Number.isInteger(parts) || parts < 1 || rows % parts !== 0)
      throw new Error(`microbatches per update must be a positive integer dividing the ${rows} rows, got ${parts}`);
    let sum = 0;
    for (const d of docs) {
      if (d.split !== "train") throw new Error(`training windows refused document "${d.id}": its split is ${d.split}, not train`);
      sum += Math.max(0, d.ids.length - 1);
      this.cumulative.push(sum);
    }
    if (sum === 0) throw new Error("random windows: the documents have no targets");
    this.total = sum;
  }

  /** The document holding target number `t` (0-based over all documents), by binary search. */
  private docAt(t: number): Document {
    let lo = 0,
      hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid] > t) hi = mid;
      else lo = mid + 1;
    }
    return this.docs[lo];
  }

  next(): Batch[] {
    const T = this.binding.contextLength,
      n = this.rows * T;
    const ids = new Int32Array(n).fill(PAD_ID),
      docIds = new Int32Array(n).fill(PAD_DOC),
      targets = new Int32Array(n),
      mask = new Float32Array(n);
    let count = 0;
    for (let r = 0; r < this.rows; r++) {
      const doc = this.docAt(this.rng.int(this.total));
      const span = Math.min(T, doc.ids.length - 1);
      const start = this.rng.int(doc.ids.length - span);
      for (let c = 0; c < span; c++) {
        const i = r * T + c;
        ids[i] = doc.ids[start + c];
        targets[i] = doc.ids[start + c + 1];
        docIds[i] = r;
        mask[i] = 1;
      }
      count += span;
    }
    if (this.parts === 1)
      return [
        {
          split: "train",
          binding: this.binding,
          layout: "packed",
          input: { rows: this.rows, cols: T, ids, docIds },
          targets,
          mask,
          targetCount: count,
          docIds: [],
        },
      ];
    // the same rows, `parts` consecutive blocks of rows/parts rows each (row r keeps its own document id)
    const per = this.rows / this.parts,
      w = per * T;
    return Array.from({ length: this.parts }, (_, p) => {
      const cut = <A extends Int32Array | Float32Array>(a: A) => a.slice(p * w, (p + 1) * w) as A;
      const m = cut(mask);
      return {
        split: "train" as const,
        binding: this.binding,
        layout: "packed" as const,
        input: { rows: per, cols: T, ids: cut(ids), docIds: cut(docIds) },
        targets: cut(targets),
        mask: m,
        targetCount: m.reduce((n, x) => n + x, 0),
        docIds: [],
      };
    });
  }

  state(): RngState {
    return this.rng.state();
  }

  restore(state: RngState): void {
    this.rng.load(state);
  }

  /** next() draws two uniforms per row (a document, then a start in it), whatever the documents. */
  skip(updates: number): void {
    this.rng.skip(2 * this.rows * updates);
  }
}

/**
 * `rows` training rows per update, drawn with replacement from a seeded stream; its state is the stream's.
 */
export class ReplacementSource implements DataSource<Batch, RngState> {
  constructor(
    private readonly docs: readonly Document[],
    readonly rows: number,
    private readonly binding: Binding,
    readonly rng: Rng,
  ) {
    if (docs.length === 0) throw new Error("no training rows to draw from");
  }

  next(): Batch[] {
    // each draw gets its own document id, since one row may be drawn twice
    const drawn = Array.from({ length: this.rows }, (_, slot) => {
      const d = this.docs[this.rng.int(this.docs.length)];
      return { ...d, id: `${d.id}#${slot}` };
    });
    return trainingBatches(drawn, this.binding, "padded", this.rows);
  }

  state(): RngState {
    return this.rng.state();
  }

  restore(state: RngState): void {
    this.rng.load(state);
  }

  /** next() draws one uniform per row. */
  skip(updates: number): void {
    this.rng.skip(this.rows * updates);
  }
}
