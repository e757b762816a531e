// Validation of model inputs and the derived per-position structure (segments, positions, attention mask).
// Not batching (src/data/batches.ts): this is what the model accepts, whatever layout produced it.
import type { ModelConfig } from "./config.ts";

/** Rows of token ids with a document id per position; docId < 0 marks padding. Row-major [rows, cols]. */
export interface ModelInput {
  rows: number;
  cols: number;
  ids: Int32Array;
  docIds: Int32Array;
}

/**
 * A batch with its scored targets, as the loss and the gradient check read it: targets[i] is the token after
 * position i, mask[i] is 1 where it is scored and targetCount = Σ mask. src/data's Batch satisfies it.
 */
export interface ScoredBatch {
  input: ModelInput;
  targets: Int32Array;
  mask: Float32Array;
  targetCount: number;
}

/** Build a ModelInput from nested arrays, refusing every malformed case with a named error. */
export function toModelInput(ids: unknown, docIds: unknown, config: ModelConfig): ModelInput {
  const rowsOf = (x: unknown, what: string): number[][] => {
    if (!Array.isArray(x)) throw new Error(`${what} must be a rank-2 array [rows][positions], got ${typeof x}`);
    if (x.length === 0) throw new Error(`empty batch: ${what} has no rows`);
    for (const [r, row] of x.entries()) {
      if (!Array.isArray(row)) throw new Error(`${what} must be rank 2: row ${r} is not an array`);
      for (const v of row) if (Array.isArray(v)) throw new Error(`${what} must be rank 2, got rank 3 or more at row ${r}`);
    }
    return x as number[][];
  };
  const idRows = rowsOf(ids, "token ids");
  const cols = idRows[0].length;
  const docRows = docIds === undefined ? idRows.map((row) => row.map(() => 0)) : rowsOf(docIds, "document ids");
  if (docRows.length !== idRows.length) throw new Error(`document ids have ${docRows.length} rows but token ids have ${idRows.length}`);
  const flatIds = new Int32Array(idRows.length * cols);
  const flatDocs = new Int32Array(idRows.length * cols);
  idRows.forEach((row, r) => {
    if (row.length !== cols) throw new Error(`ragged batch: row ${r} has ${row.length} positions, row 0 has ${cols}`);
    if (docRows[r].length !== cols) throw new Error(`document ids row ${r} has ${docRows[r].length} positions, token ids have ${cols}`);
    row.forEach((v, c) => {
      flatIds[r * cols + c] = v;
      flatDocs[r * cols + c] = docRows[r][c];
    });
    // validate on the original numbers: Int32Array would silently truncate 1.5 or wrap 2**40
    row.forEach((v, c) => checkId(v, r, c, config.vocabSize));
    docRows[r].forEach((v, c) => {
      if (!Number.isInteger(v)) throw new Error(`document id at row ${r}, position ${c} is not an integer: ${v}`);
    });
  });
  return checkModelInput({ rows: idRows.length, cols, ids: flatIds, docIds: flatDocs }, config);
}

function checkId(v: unknown, r: number, c: number, vocab: number): void {
  if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`token id at row ${r}, position ${c} is not an integer: ${String(v)}`);
  if (v < 0) throw new Error(`negative token id ${v} at row ${r}, position ${c}`);
  if (v >= vocab) throw new Error(`token id ${v} at row ${r}, position ${c} is ≥ vocabulary size ${vocab}`);
}

/** Check a flat ModelInput against the config (shape, id range, row length ≤ context). */
export function checkModelInput(input: ModelInput, config: Pick<ModelConfig, "vocabSize" | "contextLength">): ModelInput {
  const { rows, cols, ids, docIds } = input;
  if (rows <= 0 || cols <= 0) throw new Error(`empty batch: ${rows} rows × ${cols} positions`);
  if (cols > config.contextLength) throw new Error(`row length ${cols} exceeds the context length ${config.contextLength}`);
  if (ids.length !== rows * cols) throw new Error(`token ids hold ${ids.length} values, expected ${rows}×${cols}`);
  if (docIds.length !== ids.length)
    throw new Error(`document ids hold ${docIds.length} values, token ids ${ids.length}: shapes must match`);
  for (let i = 0; i < ids.length; i++) checkId(ids[i], Math.floor(i / cols), i % cols, config.vocabSize);
  return input;
}

/** Per-position segment start: a segment is a maximal run of one document id; each padding position is its own. */
export function segmentStarts(input: ModelInput): Int32Array {
  const { rows, cols, docIds } = input;
  const start = new Int32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const continues = c > 0 && docIds[i] >= 0 && docIds[i] === docIds[i - 1];
      start[i] = continues ? start[i - 1] : c;
    }
  }
  return start;
}

/** Position within its document: restarts at 0 at every document start (and is 0 on padding). */
export function positionsOf(input: ModelInput): Int32Array {
  const start = segmentStarts(input);
  return start.map((s, i) => (i % input.cols) - s);
}

/** Additive attention mask [rows, 1, cols, cols]: 0 where query i may see key j (same segment, j ≤ i), else −1e9. */
export function attentionMask(input: ModelInput): Float32Array {
  const { rows, cols } = input;
  const start = segmentStarts(input);
  const mask = new Float32Array(rows * cols * cols).fill(MASKED);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < cols; i++) {
      for (let j = start[r * cols + i]; j <= i; j++) mask[(r * cols + i) * cols + j] = 0;
    }
  }
  return mask;
}

/** Added to masked scores; exp underflows to exactly 0 in float32, and no finite score comes near it. */
export const MASKED = -1e9;
