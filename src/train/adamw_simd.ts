// AdamW's update of one chunk of a parameter in WebAssembly SIMD, two float64 lanes at a time: the arithmetic of
// adamw_update.ts's loop operation for operation (IEEE-754 products, sums, quotients and square roots round alike
// in JS and WebAssembly, which fuses nothing; f32x4.demote_f64x2_zero rounds as Math.fround), so the new values are
// the same bits. The division and square root that bound the loop run two at a time (docs/benchmarks.md has the
// gain). Also the thread's scratch that picks it (updateScratch). Not the loop itself or the gradient's sum
// (adamw_update.ts).
//
// The module is written here byte by byte (no toolchain): one function over its own memory, laid out as
//   G   [0, 8·CHUNK)          the chunk's summed gradient, float64 (filled by adamw_update.ts's sumTerms)
//   M, V, W                   float32 moments and weights in, new values out (CHUNK each)
//   MAX                       three pairs of float64 lanes: the running max |m'|, max v' and max |w'|

import { CHUNK, type ChunkKernel, type UpdateScratch } from "./adamw_update.ts";

const G = 0,
  M = 8 * CHUNK,
  V = M + 4 * CHUNK,
  W = V + 4 * CHUNK,
  MAX = W + 4 * CHUNK,
  PAGES = Math.ceil((MAX + 48) / 65536);

// --- the module's bytes ---
const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const name = (s: string): number[] => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

const I32 = 0x7f,
  F64 = 0x7c,
  V128 = 0x7b;
// opcodes (core, then 0xfd-prefixed SIMD with a LEB128 index)
const op = {
  localGet: (i: number) => [0x20, ...leb(i)],
  localSet: (i: number) => [0x21, ...leb(i)],
  i32Const: (n: number) => [0x41, ...leb(n)], // non-negative constants only (LEB128 of a small positive)
  i32Shl: [0x74],
  i32Add: [0x6a],
  i32GeS: [0x4e],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  br: (d: number) => [0x0c, d],
  brIf: (d: number) => [0x0d, d],
  end: [0x0b],
  simd: (code: number, ...rest: number[]) => [0xfd, ...leb(code), ...rest],
};
const mem = (offset: number) => [0, ...leb(offset)]; // align hint 0 (any), offset
const v = {
  load: (off: number) => op.simd(0x00, ...mem(off)),
  store: (off: number) => op.simd(0x0b, ...mem(off)),
  load64Zero: (off: number) => op.simd(0x5d, ...mem(off)),
  store64Lane0: (off: number) => op.simd(0x5b, ...mem(off), 0),
  f64Splat: op.simd(0x14),
  demote: op.simd(0x5e), // f32x4.demote_f64x2_zero
  promote: op.simd(0x5f), // f64x2.promote_low_f32x4
  abs: op.simd(0xec),
  sqrt: op.simd(0xef),
  add: op.simd(0xf0),
  sub: op.simd(0xf1),
  mul: op.simd(0xf2),
  div: op.simd(0xf3),
  pmax: op.simd(0xf7), // pmax(a, b) = a < b ? b : a: the JS loop's `if (x > max) max = x` with a = max
};

// params: 0 n (i32), then beta1, beta2, c1 = 1 − beta1, c2 = 1 − beta2, eps, stepSize, bc2Sqrt, gradScale, decay
// (f64, 1..9); locals: i and p4 (i32: the pair's index and its float32 byte offset), then the v128s
const P = { n: 0, beta1: 1, beta2: 2, c1: 3, c2: 4, eps: 5, stepSize: 6, bc2Sqrt: 7, gradScale: 8, decay: 9 };
const L = {
  i: 10,
  p4: 11,
  B1: 12,
  B2: 13,
  C1: 14,
  C2: 15,
  EPS: 16,
  SS: 17,
  BC: 18,
  GS: 19,
  DEC: 20,
  mMax: 21,
  vMax: 22,
  wMax: 23,
  g: 24,
  t: 25,
  mi: 26,
  vi: 27,
  wi: 28,
};

/** The running maxima's locals, in MAX's order (16 bytes each). */
const MAXIMA = [L.mMax, L.vMax, L.wMax];

function body(): number[] {
  const splat = (p: number, l: number) => [...op.localGet(p), ...v.f64Splat, ...op.localSet(l)];
  const g = op.localGet;
  // round the f64x2 on the stack to float32 (kept in t), store its two floats at `off` + p4, leave it promoted back
  const roundStore = (off: number) => [
    ...v.demote,
    ...op.localSet(L.t),
    ...g(L.p4),
    ...g(L.t),
    ...v.store64Lane0(off),
    ...g(L.t),
    ...v.promote,
  ];
  // a moment's new value from the stored one at `off` (beta·stored + c·gi, times gi again for the second), rounded,
  // stored and kept in `out`
  const moment = (beta: number, c: number, off: number, squared: boolean, out: number) => [
    ...g(beta),
    ...g(L.p4),
    ...v.load64Zero(off),
    ...v.promote,
    ...v.mul,
    ...g(c),
    ...g(L.g),
    ...v.mul,
    ...(squared ? [...g(L.g), ...v.mul] : []),
    ...v.add,
    ...roundStore(off),
    ...op.localSet(out),
  ];
  // max = pmax(max, |x|) (or x), per lane
  const raise = (max: number, x: number, abs: boolean) => [...g(max), ...g(x), ...(abs ? v.abs : []), ...v.pmax, ...op.localSet(max)];
  const code = [
    ...splat(P.beta1, L.B1),
    ...splat(P.beta2, L.B2),
    ...splat(P.c1, L.C1),
    ...splat(P.c2, L.C2),
    ...splat(P.eps, L.EPS),
    ...splat(P.stepSize, L.SS),
    ...splat(P.bc2Sqrt, L.BC),
    ...splat(P.gradScale, L.GS),
    ...splat(P.decay, L.DEC),
    ...MAXIMA.flatMap((l, j) => [...op.i32Const(0), ...v.load(MAX + 16 * j), ...op.localSet(l)]),
    ...op.block,
    ...op.loop,
    ...g(L.i),
    ...g(P.n),
    ...op.i32GeS,
    ...op.brIf(1),
    // gi = g[j] · gradScale
    ...g(L.i),
    ...op.i32Const(3),
    ...op.i32Shl,
    ...v.load(G),
    ...g(L.GS),
    ...v.mul,
    ...op.localSet(L.g),
    ...g(L.i),
    ...op.i32Const(2),
    ...op.i32Shl,
    ...op.localSet(L.p4),
    // mi = f(beta1·m + (1 − beta1)·gi), vi = f(beta2·v + (1 − beta2)·gi·gi)
    ...moment(L.B1, L.C1, M, false, L.mi),
    ...moment(L.B2, L.C2, V, true, L.vi),
    // wi = f(w·decay − (stepSize·mi) / (√vi / bc2Sqrt + eps))
    ...g(L.p4),
    ...v.load64Zero(W),
    ...v.promote,
    ...g(L.DEC),
    ...v.mul,
    ...g(L.SS),
    ...g(L.mi),
    ...v.mul,
    ...g(L.vi),
    ...v.sqrt,
    ...g(L.BC),
    ...v.div,
    ...g(L.EPS),
    ...v.add,
    ...v.div,
    ...v.sub,
    ...roundStore(W),
    ...op.localSet(L.wi),
    // the maxima, lane by lane
    ...raise(L.mMax, L.mi, true),
    ...raise(L.vMax, L.vi, false),
    ...raise(L.wMax, L.wi, true),
    ...g(L.i),
    ...op.i32Const(2),
    ...op.i32Add,
    ...op.localSet(L.i),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...MAXIMA.flatMap((l, j) => [...op.i32Const(0), ...g(l), ...v.store(MAX + 16 * j)]),
    ...op.end,
  ];
  const locals = vec([
    [2, I32],
    [17, V128],
  ]);
  const fn = [...locals, ...code];
  return [...leb(fn.length), ...fn];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const type = [0x60, ...vec([[I32], ...Array.from({ length: 9 }, () => [F64])]), 0];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([type])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, ...leb(PAGES)]])),
    ...section(
      7,
      vec([
        [...name("update"), 0x00, 0],
        [...name("memory"), 0x02, 0],
      ]),
    ),
    ...section(10, vec([body()])),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The module, compiled once per thread; null where this engine has no WebAssembly SIMD. */
function simdModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes();
    compiled = typeof WebAssembly === "object" && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

/** A new instance (its own memory: one per scratch, never shared between threads), or null without SIMD. */
export function simdUpdate(): ChunkKernel | null {
  const module = simdModule();
  if (!module) return null;
  const instance = new WebAssembly.Instance(module);
  const { update, memory } = instance.exports as { update: (n: number, ...k: number[]) => void; memory: WebAssembly.Memory };
  const buf = memory.buffer;
  const g = new Float64Array(buf, G, CHUNK);
  // one pad slot past the chunk for an odd count: zeros, whose new values are zeros and raise no maximum
  const [km, kv, kw] = [M, V, W].map((off) => new Float32Array(buf, off, CHUNK));
  const max = new Float64Array(buf, MAX, 6);
  return {
    g,
    run(chunk, at, w, m, vv, next, k, decay, maxima) {
      const n = chunk.length;
      if (chunk.buffer !== buf || chunk.byteOffset !== G)
        throw new Error("simdUpdate: the gradient must be in the kernel's own chunk (its g)");
      km.set(m.subarray(at, at + n));
      kv.set(vv.subarray(at, at + n));
      kw.set(w.subarray(at, at + n));
      if (n & 1) g[n] = km[n] = kv[n] = kw[n] = 0;
      for (let j = 0; j < 3; j++) max[2 * j] = max[2 * j + 1] = maxima[j];
      update(n, k.beta1, k.beta2, 1 - k.beta1, 1 - k.beta2, k.eps, k.stepSize, k.bc2Sqrt, k.gradScale, decay);
      m.set(km.subarray(0, n), at);
      vv.set(kv.subarray(0, n), at);
      next.set(kw.subarray(0, n), at);
      // the two lanes' maxima, as the JS loop would have raised one
      for (let j = 0; j < 3; j++) {
        const a = max[2 * j],
          b = max[2 * j + 1];
        maxima[j] = b > a ? b : a;
      }
    },
  };
}

/**
 * A thread's scratch for AdamW's passes: the SIMD kernel and its chunk where this engine has WebAssembly SIMD (and
 * `useSimd`), else a plain float64 chunk and the JS loop (the same bits: tests compare them).
 */
export function updateScratch(useSimd = true): UpdateScratch {
  const simd = useSimd ? simdUpdate() : null;
  return { chunk: simd ? simd.g : new Float64Array(CHUNK), simd };
}
