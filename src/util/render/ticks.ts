// Axis numbers: nice, integer and log ticks, a formatter matched to their spacing, and the linear and log scales
// that place values in pixels. Pure arithmetic; no SVG here (svg.ts draws the axes).

/** Maps a data value to a pixel coordinate. */
export type Scale = (v: number) => number;

/** How far to widen a degenerate range [v, v] so a flat series still has an axis. */
export function padFor(v: number): number {
  return v === 0 ? 1 : Math.abs(v) * 0.1;
}

/** A step of 1, 2 or 5 × 10^k near span / target. */
export function niceStep(span: number, target: number): number {
  const raw = span / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/** Round ticks at multiples of a nice step, from at or below `lo` to at or above `hi`. */
export function niceTicks(lo: number, hi: number, target = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new Error(`niceTicks needs a finite range, got [${lo}, ${hi}]`);
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) [lo, hi] = [lo - padFor(lo), hi + padFor(hi)];
  const step = niceStep(hi - lo, target);
  // The epsilon keeps a bound that is already a multiple (up to float error) from gaining an extra tick.
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const decimals = Math.min(100, Math.max(0, -Math.floor(Math.log10(step)) + 1));
  const out: number[] = [];
  for (let k = first; k <= last; k++) out.push(Number((k * step).toFixed(decimals)) + 0); // + 0 turns -0 into 0
  return out;
}

/**
 * Ticks on a discrete axis (positions, counts): integers only, every integer when at most `maxTicks` fit,
 * otherwise a nice integer step; never a fractional tick such as 2.5.
 */
export function integerTicks(lo: number, hi: number, maxTicks = 20): number[] {
  const [a, b] = [Math.ceil(lo - 1e-9), Math.floor(hi + 1e-9)];
  if (!(b >= a)) return [Math.round(lo)];
  const step = b - a + 1 <= maxTicks ? 1 : Math.max(1, Math.round(niceStep(b - a, maxTicks)));
  const out: number[] = [];
  for (let v = Math.ceil(a / step) * step; v <= b; v += step) out.push(v + 0); // + 0 turns -0 into 0
  return out;
}

/** Ticks for a log axis: powers of ten, with 2 and 5 (or every digit) in between when few decades show. */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) throw new Error(`logTicks needs 0 < lo <= hi, got [${lo}, ${hi}]`);
  const d0 = Math.floor(Math.log10(lo) + 1e-9);
  const d1 = Math.ceil(Math.log10(hi) - 1e-9);
  const decades = d1 - d0;
  // 1.5 splits the widest gap on a log axis (1 to 2), where loss curves spend most of their time.
  const mults = decades <= 1 ? [1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9] : decades <= 3 ? [1, 2, 5] : [1];
  const stride = Math.max(1, Math.ceil(decades / 8));
  const out: number[] = [];
  for (let d = d0; d <= d1; d += stride) {
    for (const m of mults) {
      const v = Number((m * 10 ** d).toPrecision(6));
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  }
  // Less than one digit step in range (say 2.1 to 2.9): linear ticks read better than none.
  return out.length >= 2 ? out : niceTicks(lo, hi, 4).filter((v) => v >= lo && v <= hi && v > 0);
}

/** A formatter whose precision matches the tick spacing, so 0.1 + 0.2 never prints as 0.30000000000000004. */
export function tickFormat(ticks: readonly number[]): (v: number) => string {
  if (ticks.length < 2) return formatNumber;
  const step = Math.min(
    ...ticks
      .slice(1)
      .map((t, i) => Math.abs(t - ticks[i]))
      .filter((d) => d > 0),
  );
  const big = Math.max(...ticks.map(Math.abs));
  if (!Number.isFinite(step)) return formatNumber;
  // Suffixes keep token and step counts short: 2M instead of 2000000.
  const [div, suffix] = big >= 1e9 ? [1e9, "G"] : big >= 1e6 ? [1e6, "M"] : big >= 1e5 ? [1e3, "k"] : [1, ""];
  const decimals = Math.max(0, -Math.floor(Math.log10(step / div) + 1e-9));
  if (decimals > 5) return (v) => (v === 0 ? "0" : v.toExponential(1).replace("e+", "e"));
  return (v) => (v === 0 && suffix ? "0" : `${(v / div).toFixed(decimals)}${suffix}`);
}

/** A general-purpose short number: 4 significant digits, exponent only for very large or small. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(2).replace("e+", "e");
  return String(Number(v.toPrecision(4)));
}

export function linearScale([d0, d1]: readonly [number, number], [r0, r1]: readonly [number, number]): Scale {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

export function logScale([d0, d1]: readonly [number, number], range: readonly [number, number]): Scale {
  const lin = linearScale([Math.log10(d0), Math.log10(d1)], range);
  return (v) => lin(Math.log10(v));
}
