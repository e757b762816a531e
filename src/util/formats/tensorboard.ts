// TensorBoard event files as bytes: TFRecord framing (length, masked CRC32C of the length, data, masked CRC32C of
// the data) around tensorflow.Event protobufs, the first carrying `file_version`, the rest one Summary of scalars
// (`simple_value`, float32) per step. Not a file writer (the run's store writes the bytes) and not a reader.
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** What TensorBoard checks the first event for (tensorboard/backend/event_processing): the events format version 2. */
export const FILE_VERSION = "brain.Event:2";

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum TFRecord uses
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotate right by 15 and add a constant, so a CRC stored inside CRC'd data stays useful. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord: uint64 length (little-endian), masked CRC of those 8 bytes, the data, masked CRC of the data. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

/** Event{wall_time = 1 (double), step = 2 (int64), file_version = 3 (string)}: the first record of a file. */
export function fileVersionEvent(wallTime: number): Uint8Array {
  return tfRecord(
    new BinaryWriter().tag(1, WireType.Bit64).double(wallTime).tag(3, WireType.LengthDelimited).string(FILE_VERSION).finish(),
  );
}

/** Event{wall_time, step, summary = 5: Summary{value = 1: Value{tag = 1, simple_value = 2 (float)}…}}, one record. */
export function scalarsEvent(wallTime: number, step: number, scalars: readonly (readonly [string, number])[]): Uint8Array {
  const w = new BinaryWriter()
    .tag(1, WireType.Bit64)
    .double(wallTime)
    .tag(2, WireType.Varint)
    .int64(step)
    .tag(5, WireType.LengthDelimited)
    .fork();
  for (const [tag, value] of scalars) {
    if (!Number.isFinite(value))
      throw new Error(`TensorBoard scalar ${tag} at step ${step} is ${value}; refusing to write a non-finite value`);
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(tag).tag(2, WireType.Bit32).float(value).join();
  }
  return tfRecord(w.join().finish());
}

/**
 * The whole records at the start of `bytes` whose event step is at most `maxStep` (the file_version event has none
 * and is kept), as one prefix: what a resume at update `maxStep` keeps before appending. A torn or corrupt record ends it.
 */
export function recordsUpTo(bytes: Uint8Array, maxStep: number): { bytes: Uint8Array; lastStep: number; records: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0,
    lastStep = -1,
    records = 0;
  while (at + 12 <= bytes.length) {
    const length = Number(view.getBigUint64(at, true));
    if (view.getUint32(at + 8, true) !== maskedCrc32c(bytes.subarray(at, at + 8)) || at + 16 + length > bytes.length) break;
    const data = bytes.subarray(at + 12, at + 12 + length);
    if (view.getUint32(at + 12 + length, true) !== maskedCrc32c(data)) break;
    const step = eventStep(data);
    if (step > maxStep) break;
    lastStep = step;
    records++;
    at += 16 + length;
  }
  return { bytes: bytes.slice(0, at), lastStep, records };
}

/** The event's step; −1 for an event without one (the file_version event). */
function eventStep(data: Uint8Array): number {
  const r = new BinaryReader(data);
  let step = -1;
  while (r.pos < r.len) {
    const [field, type] = r.tag();
    if (field === 2 && type === WireType.Varint) step = Number(r.int64());
    else r.skip(type);
  }
  return step;
}
