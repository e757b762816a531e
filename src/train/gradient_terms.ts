// A parameter's update gradient as its per-microbatch float32 terms, summed in float64 in microbatch order
// element by element whenever it is read: the trainer's norm and AdamW each re-add the terms instead of keeping a
// model-sized float64 accumulator (the same bits: 0 + t₀ + t₁ + … in that order, as the accumulator added them).
// Not the reduction's policy (trainer.ts) or the optimizer (adamw.ts).

/** out[j] ← 0 + terms[0][from + j] + terms[1][from + j] + … (float64, in term order), for every j < out.length. */
export function sumTerms(terms: readonly Float32Array[], out: Float64Array, from = 0): void {
  const n = out.length;
  if (terms.length === 1) {
    const [a] = terms;
    for (let j = 0; j < n; j++) out[j] = 0 + a[from + j];
  } else if (terms.length === 2) {
    const [a, b] = terms;
    for (let j = 0; j < n; j++) out[j] = 0 + a[from + j] + b[from + j];
  } else {
    out.fill(0, 0, n);
    for (const t of terms) for (let j = 0; j < n; j++) out[j] += t[from + j];
  }
}

/**
 * Σ_j (Σ_k terms[k][j])² (each inner sum as sumTerms adds it, the outer in index order, float64) and the largest
 * |Σ_k terms[k][j]|, in one pass: the trainer's norm and the optimizer's bound (adamw.ts) from one read of the terms.
 * A NaN anywhere makes both NaN.
 */
export function squaresAndMax(terms: readonly Float32Array[]): { squares: number; maxAbs: number } {
  const n = terms[0].length;
  let s = 0,
    mx = 0;
  if (terms.length === 1) {
    const [a] = terms;
    for (let j = 0; j < n; j++) {
      const x = 0 + a[j];
      s += x * x;
      const y = Math.abs(x);
      if (y > mx) mx = y;
    }
  } else if (terms.length === 2) {
    const [a, b] = terms;
    for (let j = 0; j < n; j++) {
      const x = 0 + a[j] + b[j];
      s += x * x;
      const y = Math.abs(x);
      if (y > mx) mx = y;
    }
  } else {
    for (let j = 0; j < n; j++) {
      let x = 0;
      for (let k = 0; k < terms.length; k++) x += terms[k][j];
      s += x * x;
      const y = Math.abs(x);
      if (y > mx) mx = y;
    }
  }
  // a NaN term never wins a comparison above, but it makes the sum of squares NaN
  return { squares: s, maxAbs: s === s ? mx : NaN };
}

/** Σ_j (Σ_k terms[k][j])², as squaresAndMax adds it. */
export const sumOfSquares = (terms: readonly Float32Array[]): number => squaresAndMax(terms).squares;
