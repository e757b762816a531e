// A data source that walks a fixed list of microbatches epoch by epoch, shuffled afresh each epoch by the stream it
// is given, with a cursor that can be saved and restored exactly. Not the sampling of windows (sampling.ts).
import type { Rng, RngState } from "../util/primitives/rng.ts";
import type { DataSource } from "./source.ts";

/** Position of an EpochSource: the epoch's order, how far into it, and the shuffling stream's state. */
export interface EpochCursor {
  epoch: number;
  position: number;
  order: number[];
  rng: RngState | null;
}

/**
 * Walks a fixed list of microbatches epoch by epoch, `perUpdate` at a time (an update may straddle two
 * epochs). With an Rng each epoch is a fresh shuffle; without one the order is the list's.
 */
export class EpochSource<B> implements DataSource<B, EpochCursor> {
  private epoch = 0;
  private position = 0;
  private order: number[];

  constructor(
    private readonly items: readonly B[],
    readonly perUpdate: number,
    private readonly rng?: Rng,
  ) {
    if (items.length === 0) throw new Error("a data source needs at least one microbatch");
    if (!Number.isInteger(perUpdate) || perUpdate < 1)
      throw new Error(`microbatches per update must be a positive integer, got ${perUpdate}`);
    this.order = this.newOrder();
  }

  private newOrder(): number[] {
    const identity = this.items.map((_, i) => i);
    return this.rng ? this.rng.shuffle(identity) : identity;
  }

  next(): B[] {
    const out: B[] = [];
    while (out.length < this.perUpdate) {
      if (this.position === this.order.length) {
        this.epoch += 1;
        this.position = 0;
        this.order = this.newOrder();
      }
      out.push(this.items[this.order[this.position++]]);
    }
    return out;
  }

  state(): EpochCursor {
    return { epoch: this.epoch, position: this.position, order: this.order.slice(), rng: this.rng ? this.rng.state() : null };
  }

  restore(c: EpochCursor): void {
    const n = this.items.length;
    const isPermutation =
      Array.isArray(c?.order) &&
      c.order.length === n &&
      new Set(c.order).size === n &&
      c.order.every((i) => Number.isInteger(i) && i >= 0 && i < n);
    if (!isPermutation) throw new Error(`data cursor order is not a permutation of this source's ${n} microbatches`);
    if (!Number.isInteger(c.position) || c.position < 0 || c.position > n)
      throw new Error(`data cursor position ${c.position} is outside [0, ${n}]`);
    if (!Number.isInteger(c.epoch) || c.epoch < 0) throw new Error(`data cursor epoch must be a non-negative integer, got ${c.epoch}`);
    if ((c.rng === null) !== (this.rng === undefined))
      throw new Error(
        `data cursor ${c.rng ? "has" : "lacks"} a shuffling stream but this source ${this.rng ? "shuffles" : "does not shuffle"}`,
      );
    if (this.rng && c.rng) this.rng.load(c.rng);
    this.epoch = c.epoch;
    this.position = c.position;
    this.order = c.order.slice();
  }
}
