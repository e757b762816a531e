// The data-order contract the training loop pulls from: microbatches per update and a savable position.
// Not an implementation (src/data/sampling.ts, src/data/epoch_source.ts); here so data need not import train.

/** Microbatches for each update, with a position that can be saved (JSON) and restored exactly. */
export interface DataSource<B, S = unknown> {
  next(): B[];
  state(): S;
  restore(state: S): void;
  /** Advance as `updates` calls of next() would, without building their batches (a cheap replay of a saved position). */
  skip?(updates: number): void;
}
