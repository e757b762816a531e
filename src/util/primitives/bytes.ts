// Chunks of bytes joined into one array, for a writer or an encoder's whole-file form. Not a format, not I/O.

/**
 * `chunks` joined in order. `reused`: the producer may write each chunk into the buffer it gave before (a
 * Store.writeChunks producer may), so each chunk is copied as it comes; otherwise they are kept as given until joined.
 */
export function joinChunks(chunks: Iterable<Uint8Array>, opts: { reused?: boolean } = {}): Uint8Array {
  const all: Uint8Array[] = [];
  for (const c of chunks) all.push(opts.reused ? c.slice() : c);
  const out = new Uint8Array(all.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
