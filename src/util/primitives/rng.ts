// Seeded random streams over seedrandom's alea generator: the only source of randomness in tinylab.
// Not a global: every consumer receives an Rng (or a named child of one) explicitly.
import seedrandom from "seedrandom";
import { int, num, obj, refine, str, type Schema } from "../formats/schema.ts";

/** Serializable generator state: restoring it replays the stream exactly. */
export interface RngState {
  readonly seed: string;
  readonly alea: { c: number; s0: number; s1: number; s2: number };
}

/**
 * alea's own invariants, so a state file cannot restore a state the generator never reaches: each word s is
 * k / 2^32 for an integer k (mash and every step keep that), in [0, 1); the carry c is t | 0 for
 * t = 2091639·s0 + c·2^-32 < 2091640, an integer in [0, 2091639].
 */
const ALEA_WORD = refine(num({ min: 0, below: 1 }), (s) =>
  Number.isInteger(s * 2 ** 32) ? undefined : ["", "must be a multiple of 2^-32 (every alea state word is)", s],
);
export const ALEA_CARRY_MAX = 2091639;
export const RNG_STATE: Schema<RngState> = obj({
  seed: str(),
  alea: obj({ c: int({ min: 0, max: ALEA_CARRY_MAX }), s0: ALEA_WORD, s1: ALEA_WORD, s2: ALEA_WORD }),
});

type Alea = seedrandom.StatefulPRNG<seedrandom.State.Alea>;

/** A seeded stream of uniforms with named, independent child streams. */
export class Rng {
  private gen: Alea;
  private constructor(
    readonly seed: string,
    state?: RngState["alea"],
  ) {
    // alea with `state: true` exposes .state(); passing a state object restores it.
    this.gen = seedrandom.alea(seed, { state: state ? { ...state } : true });
  }

  /** A stream from a seed; numbers and strings both allowed (seed 0 is a real seed here). */
  static fromSeed(seed: number | string): Rng {
    if (typeof seed === "number" && !Number.isFinite(seed)) throw new Error(`rng seed must be finite, got ${seed}`);
    return new Rng(String(seed));
  }

  static restore(state: RngState): Rng {
    return new Rng(state.seed, state.alea);
  }

  /** An independent stream named after this one's seed and `name`; does not advance this stream. */
  child(name: string): Rng {
    return new Rng(`${this.seed}/${name}`);
  }

  /** Rewind or advance this stream in place to a saved state of the same seed. */
  load(state: RngState): void {
    if (state.seed !== this.seed) throw new Error(`rng state is for seed "${state.seed}", this stream's seed is "${this.seed}"`);
    this.gen = seedrandom.alea(this.seed, { state: { ...state.alea } });
  }

  state(): RngState {
    return { seed: this.seed, alea: { ...this.gen.state() } };
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.gen();
  }

  /** Advance by `n` uniforms, as `n` calls of next() would (a replica's dropout stream starts where this leaves it). */
  skip(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new Error(`rng.skip needs a non-negative integer count, got ${n}`);
    for (let i = 0; i < n; i++) this.gen();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`rng.int needs a positive integer bound, got ${n}`);
    return Math.floor(this.gen() * n);
  }

  /** Standard normal by Box–Muller (no cached spare, so the state is just the generator's). */
  normal(): number {
    let u = this.gen();
    while (u <= 0) u = this.gen();
    const v = this.gen();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Fisher–Yates shuffle of a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
