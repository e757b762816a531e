// The worker pool's shards of an update: which worker owns each parameter, and what an owner computes on its
// parameters where they lie in shared memory (their terms' squares, AdamW's passes), run alike by the calling
// thread (src/train/pool.ts) and each replica (src/node/pool_worker.ts). Not the messages or the combining.
import { firstNonFinite, updateParameter, type StepConstants, type UpdateScratch } from "./adamw_update.ts";
import { updateScratch } from "./adamw_simd.ts";
import { squaresAndMax } from "./gradient_terms.ts";
import { paramView, type WeightLayout } from "./pool_protocol.ts";

/**
 * The worker (0: the calling thread) that owns each parameter: largest first, each to the least loaded worker so
 * far (ties to the lower index), so the shares are near equal. Fixed by the sizes and the count; which worker
 * computes a value never changes the value.
 */
export function owners(sizes: readonly number[], workers: number): number[] {
  const load = new Array<number>(workers).fill(0);
  const owner = new Array<number>(sizes.length).fill(0);
  const bySize = sizes.map((_, i) => i).sort((a, b) => sizes[b] - sizes[a] || a - b);
  for (const i of bySize) {
    let w = 0;
    for (let u = 1; u < workers; u++) if (load[u] < load[w]) w = u;
    owner[i] = w;
    load[w] += sizes[i];
  }
  return owner;
}

/** Parameter indices per worker, ascending. */
export function ownedBy(owner: readonly number[], workers: number): number[][] {
  const out: number[][] = Array.from({ length: workers }, () => []);
  owner.forEach((w, i) => out[w].push(i));
  return out;
}

/**
 * What an update's owners share, each packed in layout order: the weights (updated in place), the update's
 * per-microbatch gradients (microbatch k's at k·layout.total) and AdamW's moments (updated in place).
 */
export interface ShardMemory {
  layout: WeightLayout;
  weights: Float32Array;
  terms: Float32Array;
  m: Float32Array;
  v: Float32Array;
}

/** Parameter i's gradient terms of the update's `count` microbatches, in microbatch order. */
export function termsOf(mem: ShardMemory, count: number, i: number): Float32Array[] {
  return Array.from({ length: count }, (_, k) => paramView(mem.terms, mem.layout, i, k));
}

let made: UpdateScratch | undefined;
/** This thread's scratch for the owners' passes, made once: its WebAssembly memory serves update after update. */
const threadScratch = (): UpdateScratch => (made ??= updateScratch());

/** squaresAndMax of each listed parameter's terms (gradient_terms.ts), in the list's order. */
export const ownerSquares = (mem: ShardMemory, count: number, params: readonly number[]): { squares: number; maxAbs: number }[] =>
  params.map((i) => squaresAndMax(termsOf(mem, count, i)));

/** AdamW's checking pass on each listed parameter (adamw_update.ts firstNonFinite); `decays` by parameter index. */
export function ownerCheck(
  mem: ShardMemory,
  count: number,
  params: readonly number[],
  k: StepConstants,
  decays: readonly number[],
  scratch = threadScratch(),
): [number, number, number][] {
  return params.map((i) =>
    firstNonFinite(
      { terms: termsOf(mem, count, i) },
      paramView(mem.weights, mem.layout, i),
      paramView(mem.m, mem.layout, i),
      paramView(mem.v, mem.layout, i),
      k,
      decays[i],
      scratch.chunk,
    ),
  );
}

/**
 * AdamW on each listed parameter, weights and moments in place in shared memory: per parameter its largest |w'|,
 * and the largest |m'| and v' over the listed parameters.
 */
export function ownerUpdate(
  mem: ShardMemory,
  count: number,
  params: readonly number[],
  k: StepConstants,
  decays: readonly number[],
  scratch = threadScratch(),
): { wMax: number[]; mMax: number; vMax: number } {
  const maxima = new Float64Array(3);
  const wMax = params.map((i) => {
    const w = paramView(mem.weights, mem.layout, i);
    updateParameter(
      { terms: termsOf(mem, count, i) },
      w,
      paramView(mem.m, mem.layout, i),
      paramView(mem.v, mem.layout, i),
      w,
      k,
      decays[i],
      maxima,
      scratch,
    );
    return maxima[2];
  });
  return { wMax, mMax: maxima[0], vMax: maxima[1] };
}
