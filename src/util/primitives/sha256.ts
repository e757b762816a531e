// SHA-256 (FIPS 180-4) in plain TypeScript, incremental, for digests the core takes in any runtime, and the
// Sha256Hasher seam through which the Node edge hands the core node:crypto's instead (src/node/sha256.ts).
// Not a crypto library: no HMAC, no other hashes; strings are hashed as UTF-8 (as node's hash.update(string)).

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const utf8 = new TextEncoder(); // lone surrogates become U+FFFD, as in node's utf8 encoding
/** UTF-16 units of a long string encoded at once by Sha256.update. */
const STRING_PIECE = 1 << 20;

/** Incremental SHA-256: update with bytes or strings (UTF-8) in order, then digest once. */
export class Sha256 {
  private readonly h = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  private readonly block = new Uint8Array(64);
  private filled = 0; // bytes waiting in `block`
  private length = 0; // total bytes hashed so far
  private done = false;

  update(data: Uint8Array | string): this {
    if (this.done) throw new Error("sha256: update after digest");
    if (typeof data === "string" && data.length > STRING_PIECE) {
      // a long string (a manifest of a million documents) is encoded a piece at a time, never whole; a piece
      // never ends inside a surrogate pair, so the bytes are the whole string's
      for (let at = 0; at < data.length;) {
        let end = Math.min(at + STRING_PIECE, data.length);
        if (end < data.length && (data.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
        this.update(utf8.encode(data.slice(at, end)));
        at = end;
      }
      return this;
    }
    const bytes = typeof data === "string" ? utf8.encode(data) : data;
    let i = 0;
    const n = bytes.length;
    this.length += n;
    if (this.filled > 0) {
      const take = Math.min(64 - this.filled, n);
      this.block.set(bytes.subarray(0, take), this.filled);
      this.filled += take;
      i = take;
      if (this.filled < 64) return this;
      compress(this.h, this.block, 0, 64);
      this.filled = 0;
    }
    const whole = n - ((n - i) % 64);
    compress(this.h, bytes, i, whole); // whole blocks straight from the input
    i = whole;
    if (i < n) {
      this.block.set(bytes.subarray(i), 0);
      this.filled = n - i;
    }
    return this;
  }

  /** Lowercase hex of the 32-byte digest; the hash cannot be updated afterwards. */
  digest(): string {
    if (this.done) throw new Error("sha256: digest called twice");
    const bits = this.length * 8;
    const pad = new Uint8Array((this.filled < 56 ? 56 : 120) - this.filled + 8);
    pad[0] = 0x80;
    // message length in bits, big-endian 64-bit (exact for inputs under 2^53 bits)
    const hi = Math.floor(bits / 0x100000000),
      lo = bits >>> 0;
    const end = pad.length;
    for (let b = 0; b < 4; b++) {
      pad[end - 1 - b] = (lo >>> (8 * b)) & 0xff;
      pad[end - 5 - b] = (hi >>> (8 * b)) & 0xff;
    }
    this.update(pad);
    this.done = true;
    return hexOf(this.h);
  }
}

/** An incremental SHA-256: update with bytes or strings (UTF-8) in order, then digest (lowercase hex) once. */
export interface Sha256Stream {
  update(data: Uint8Array | string): unknown;
  digest(): string;
}

/**
 * A SHA-256 implementation, passed in where many digests are taken (a split's documents, its manifest): this file's,
 * which runs anywhere, or node:crypto's at the Node edge (src/node/sha256.ts), several times faster. Both give the same
 * digests for the same input, lone surrogates included (each is hashed as U+FFFD's bytes).
 */
export interface Sha256Hasher {
  /** Lowercase hex digest of bytes or of a string's UTF-8. */
  hex(data: Uint8Array | string): string;
  create(): Sha256Stream;
}

/** The hasher in plain TypeScript: the browser's, and the default of every function that takes one. */
export const jsSha256: Sha256Hasher = { hex: (data) => sha256Hex(data), create: () => new Sha256() };

/** Big-endian 32-bit word at byte j. */
const word = (m: Uint8Array, j: number): number => (m[j] << 24) | (m[j + 1] << 16) | (m[j + 2] << 8) | m[j + 3];
/**
 * Compress the 64-byte blocks m[at .. end) into the state hs. Unrolled 16 rounds deep with the message
 * schedule in a ring of 16 locals (w_t overwrites w_{t-16}) and the working variables renamed each round
 * instead of shifted; 16 rounds bring both back to their starting names. Faster than the plain loop (docs/benchmarks.md).
 */
function compress(hs: Int32Array, m: Uint8Array, at: number, end: number): void {
  let a = hs[0],
    b = hs[1],
    c = hs[2],
    d = hs[3],
    e = hs[4],
    f = hs[5],
    g = hs[6],
    h = hs[7],
    t1 = 0;
  for (; at < end; at += 64) {
    let w0 = word(m, at + 0);
    let w1 = word(m, at + 4);
    let w2 = word(m, at + 8);
    let w3 = word(m, at + 12);
    let w4 = word(m, at + 16);
    let w5 = word(m, at + 20);
    let w6 = word(m, at + 24);
    let w7 = word(m, at + 28);
    let w8 = word(m, at + 32);
    let w9 = word(m, at + 36);
    let w10 = word(m, at + 40);
    let w11 = word(m, at + 44);
    let w12 = word(m, at + 48);
    let w13 = word(m, at + 52);
    let w14 = word(m, at + 56);
    let w15 = word(m, at + 60);
    const a0 = a,
      b0 = b,
      c0 = c,
      d0 = d,
      e0 = e,
      f0 = f,
      g0 = g,
      h0 = h;
    for (let r = 0; r < 64; r += 16) {
      if (r > 0)
        w0 =
          (w0 +
            (((w1 >>> 7) | (w1 << 25)) ^ ((w1 >>> 18) | (w1 << 14)) ^ (w1 >>> 3)) +
            w9 +
            (((w14 >>> 17) | (w14 << 15)) ^ ((w14 >>> 19) | (w14 << 13)) ^ (w14 >>> 10))) |
          0;
      t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + K[r + 0] + w0) | 0;
      d = (d + t1) | 0;
      h = (t1 + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) | (c & (a | b)))) | 0;
      if (r > 0)
        w1 =
          (w1 +
            (((w2 >>> 7) | (w2 << 25)) ^ ((w2 >>> 18) | (w2 << 14)) ^ (w2 >>> 3)) +
            w10 +
            (((w15 >>> 17) | (w15 << 15)) ^ ((w15 >>> 19) | (w15 << 13)) ^ (w15 >>> 10))) |
          0;
      t1 = (g + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) + (f ^ (d & (e ^ f))) + K[r + 1] + w1) | 0;
      c = (c + t1) | 0;
      g = (t1 + (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) + ((h & a) | (b & (h | a)))) | 0;
      if (r > 0)
        w2 =
          (w2 +
            (((w3 >>> 7) | (w3 << 25)) ^ ((w3 >>> 18) | (w3 << 14)) ^ (w3 >>> 3)) +
            w11 +
            (((w0 >>> 17) | (w0 << 15)) ^ ((w0 >>> 19) | (w0 << 13)) ^ (w0 >>> 10))) |
          0;
      t1 = (f + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) + (e ^ (c & (d ^ e))) + K[r + 2] + w2) | 0;
      b = (b + t1) | 0;
      f = (t1 + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) + ((g & h) | (a & (g | h)))) | 0;
      if (r > 0)
        w3 =
          (w3 +
            (((w4 >>> 7) | (w4 << 25)) ^ ((w4 >>> 18) | (w4 << 14)) ^ (w4 >>> 3)) +
            w12 +
            (((w1 >>> 17) | (w1 << 15)) ^ ((w1 >>> 19) | (w1 << 13)) ^ (w1 >>> 10))) |
          0;
      t1 = (e + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) + (d ^ (b & (c ^ d))) + K[r + 3] + w3) | 0;
      a = (a + t1) | 0;
      e = (t1 + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) + ((f & g) | (h & (f | g)))) | 0;
      if (r > 0)
        w4 =
          (w4 +
            (((w5 >>> 7) | (w5 << 25)) ^ ((w5 >>> 18) | (w5 << 14)) ^ (w5 >>> 3)) +
            w13 +
            (((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10))) |
          0;
      t1 = (d + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) + (c ^ (a & (b ^ c))) + K[r + 4] + w4) | 0;
      h = (h + t1) | 0;
      d = (t1 + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) + ((e & f) | (g & (e | f)))) | 0;
      if (r > 0)
        w5 =
          (w5 +
            (((w6 >>> 7) | (w6 << 25)) ^ ((w6 >>> 18) | (w6 << 14)) ^ (w6 >>> 3)) +
            w14 +
            (((w3 >>> 17) | (w3 << 15)) ^ ((w3 >>> 19) | (w3 << 13)) ^ (w3 >>> 10))) |
          0;
      t1 = (c + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) + (b ^ (h & (a ^ b))) + K[r + 5] + w5) | 0;
      g = (g + t1) | 0;
      c = (t1 + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) + ((d & e) | (f & (d | e)))) | 0;
      if (r > 0)
        w6 =
          (w6 +
            (((w7 >>> 7) | (w7 << 25)) ^ ((w7 >>> 18) | (w7 << 14)) ^ (w7 >>> 3)) +
            w15 +
            (((w4 >>> 17) | (w4 << 15)) ^ ((w4 >>> 19) | (w4 << 13)) ^ (w4 >>> 10))) |
          0;
      t1 = (b + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) + (a ^ (g & (h ^ a))) + K[r + 6] + w6) | 0;
      f = (f + t1) | 0;
      b = (t1 + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) + ((c & d) | (e & (c | d)))) | 0;
      if (r > 0)
        w7 =
          (w7 +
            (((w8 >>> 7) | (w8 << 25)) ^ ((w8 >>> 18) | (w8 << 14)) ^ (w8 >>> 3)) +
            w0 +
            (((w5 >>> 17) | (w5 << 15)) ^ ((w5 >>> 19) | (w5 << 13)) ^ (w5 >>> 10))) |
          0;
      t1 = (a + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) + (h ^ (f & (g ^ h))) + K[r + 7] + w7) | 0;
      e = (e + t1) | 0;
      a = (t1 + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) + ((b & c) | (d & (b | c)))) | 0;
      if (r > 0)
        w8 =
          (w8 +
            (((w9 >>> 7) | (w9 << 25)) ^ ((w9 >>> 18) | (w9 << 14)) ^ (w9 >>> 3)) +
            w1 +
            (((w6 >>> 17) | (w6 << 15)) ^ ((w6 >>> 19) | (w6 << 13)) ^ (w6 >>> 10))) |
          0;
      t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + K[r + 8] + w8) | 0;
      d = (d + t1) | 0;
      h = (t1 + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) | (c & (a | b)))) | 0;
      if (r > 0)
        w9 =
          (w9 +
            (((w10 >>> 7) | (w10 << 25)) ^ ((w10 >>> 18) | (w10 << 14)) ^ (w10 >>> 3)) +
            w2 +
            (((w7 >>> 17) | (w7 << 15)) ^ ((w7 >>> 19) | (w7 << 13)) ^ (w7 >>> 10))) |
          0;
      t1 = (g + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) + (f ^ (d & (e ^ f))) + K[r + 9] + w9) | 0;
      c = (c + t1) | 0;
      g = (t1 + (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) + ((h & a) | (b & (h | a)))) | 0;
      if (r > 0)
        w10 =
          (w10 +
            (((w11 >>> 7) | (w11 << 25)) ^ ((w11 >>> 18) | (w11 << 14)) ^ (w11 >>> 3)) +
            w3 +
            (((w8 >>> 17) | (w8 << 15)) ^ ((w8 >>> 19) | (w8 << 13)) ^ (w8 >>> 10))) |
          0;
      t1 = (f + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) + (e ^ (c & (d ^ e))) + K[r + 10] + w10) | 0;
      b = (b + t1) | 0;
      f = (t1 + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) + ((g & h) | (a & (g | h)))) | 0;
      if (r > 0)
        w11 =
          (w11 +
            (((w12 >>> 7) | (w12 << 25)) ^ ((w12 >>> 18) | (w12 << 14)) ^ (w12 >>> 3)) +
            w4 +
            (((w9 >>> 17) | (w9 << 15)) ^ ((w9 >>> 19) | (w9 << 13)) ^ (w9 >>> 10))) |
          0;
      t1 = (e + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) + (d ^ (b & (c ^ d))) + K[r + 11] + w11) | 0;
      a = (a + t1) | 0;
      e = (t1 + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) + ((f & g) | (h & (f | g)))) | 0;
      if (r > 0)
        w12 =
          (w12 +
            (((w13 >>> 7) | (w13 << 25)) ^ ((w13 >>> 18) | (w13 << 14)) ^ (w13 >>> 3)) +
            w5 +
            (((w10 >>> 17) | (w10 << 15)) ^ ((w10 >>> 19) | (w10 << 13)) ^ (w10 >>> 10))) |
          0;
      t1 = (d + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) + (c ^ (a & (b ^ c))) + K[r + 12] + w12) | 0;
      h = (h + t1) | 0;
      d = (t1 + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) + ((e & f) | (g & (e | f)))) | 0;
      if (r > 0)
        w13 =
          (w13 +
            (((w14 >>> 7) | (w14 << 25)) ^ ((w14 >>> 18) | (w14 << 14)) ^ (w14 >>> 3)) +
            w6 +
            (((w11 >>> 17) | (w11 << 15)) ^ ((w11 >>> 19) | (w11 << 13)) ^ (w11 >>> 10))) |
          0;
      t1 = (c + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) + (b ^ (h & (a ^ b))) + K[r + 13] + w13) | 0;
      g = (g + t1) | 0;
      c = (t1 + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) + ((d & e) | (f & (d | e)))) | 0;
      if (r > 0)
        w14 =
          (w14 +
            (((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3)) +
            w7 +
            (((w12 >>> 17) | (w12 << 15)) ^ ((w12 >>> 19) | (w12 << 13)) ^ (w12 >>> 10))) |
          0;
      t1 = (b + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) + (a ^ (g & (h ^ a))) + K[r + 14] + w14) | 0;
      f = (f + t1) | 0;
      b = (t1 + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) + ((c & d) | (e & (c | d)))) | 0;
      if (r > 0)
        w15 =
          (w15 +
            (((w0 >>> 7) | (w0 << 25)) ^ ((w0 >>> 18) | (w0 << 14)) ^ (w0 >>> 3)) +
            w8 +
            (((w13 >>> 17) | (w13 << 15)) ^ ((w13 >>> 19) | (w13 << 13)) ^ (w13 >>> 10))) |
          0;
      t1 = (a + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) + (h ^ (f & (g ^ h))) + K[r + 15] + w15) | 0;
      e = (e + t1) | 0;
      a = (t1 + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) + ((b & c) | (d & (b | c)))) | 0;
    }
    a = (a + a0) | 0;
    b = (b + b0) | 0;
    c = (c + c0) | 0;
    d = (d + d0) | 0;
    e = (e + e0) | 0;
    f = (f + f0) | 0;
    g = (g + g0) | 0;
    h = (h + h0) | 0;
  }
  hs[0] = a;
  hs[1] = b;
  hs[2] = c;
  hs[3] = d;
  hs[4] = e;
  hs[5] = f;
  hs[6] = g;
  hs[7] = h;
}

/** Character codes of each byte's two lowercase hex digits. */
const HEX_CODES = Uint8Array.from({ length: 512 }, (_, i) =>
  (i >> 1)
    .toString(16)
    .padStart(2, "0")
    .charCodeAt(i & 1),
);
const latin1 = new TextDecoder("latin1");
const hexDigits = new Uint8Array(64); // filled and decoded within one hexOf call
const INITIAL = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
/** Strings up to this many UTF-16 units are hashed in `scratch`; longer ones go through Sha256 (one allocation is nothing beside them). */
const SHORT = 16_384;
// Reused by sha256Hex only, filled and read within one call: an allocation per short string (a million one-line
// documents) would cost more than hashing it. It never carries anything from one call to the next.
const scratch = new Uint8Array(((SHORT * 3 + 72) >> 6) * 64 + 64);
const state = new Int32Array(8);

/** One-shot hex digest of bytes or a UTF-8 string; a short string costs one compress call and no allocation but the hex. */
export function sha256Hex(data: Uint8Array | string): string {
  if (typeof data !== "string" || data.length > SHORT) return new Sha256().update(data).digest();
  const n = utf8.encodeInto(data, scratch).written;
  const end = (((n + 8) >> 6) + 1) * 64; // the message, 0x80, zeros, then its length in bits in the last 8 bytes
  scratch[n] = 0x80;
  scratch.fill(0, n + 1, end);
  const bits = n * 8;
  for (let b = 0; b < 4; b++) scratch[end - 1 - b] = (bits >>> (8 * b)) & 0xff; // bits < 2^32: the high word stays 0
  state.set(INITIAL);
  compress(state, scratch, 0, end);
  return hexOf(state);
}

/** The state's 32 bytes as 64 hex digits in one flat string: built by concatenation it is a tree of 63 strings per digest. */
function hexOf(words: Int32Array): string {
  for (let k = 0; k < 8; k++) {
    const v = words[k];
    for (let b = 0; b < 4; b++) {
      const x = (v >>> (24 - 8 * b)) & 0xff;
      hexDigits[8 * k + 2 * b] = HEX_CODES[2 * x];
      hexDigits[8 * k + 2 * b + 1] = HEX_CODES[2 * x + 1];
    }
  }
  return latin1.decode(hexDigits);
}
