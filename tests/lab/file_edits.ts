// Test helpers that tamper with safetensors bytes the way a hand edit or a bad tool would: rewrite the JSON
// header (entries kept in file order, duplicates allowed), re-sign decoded contents. Not a test file itself.
import { decodeSafetensors, encodeSafetensors, type TensorEntry } from "../../src/util/formats/safetensors.ts";
import { signed } from "../../src/lab/file_checks.ts";

export type HeaderEntry = [string, unknown];

/** The header's top-level entries in file order, and the data section. */
export function splitFile(bytes: Uint8Array): { entries: HeaderEntry[]; data: Uint8Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>;
  return { entries: Object.entries(header), data: bytes.subarray(8 + n) };
}

/** A file from header entries (written in this order, a repeated key repeated) and data, space-padded as the writer does. */
export function joinFile(entries: HeaderEntry[], data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`);
  const n = Math.ceil(json.length / 8) * 8;
  const out = new Uint8Array(8 + n + data.length).fill(0x20, 8, 8 + n);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), true);
  out.set(json, 8);
  out.set(data, 8 + n);
  return out;
}

/** Rewrite the header entries; the data section is kept byte for byte. */
export function editHeader(bytes: Uint8Array, edit: (entries: HeaderEntry[]) => HeaderEntry[]): Uint8Array {
  const { entries, data } = splitFile(bytes);
  return joinFile(edit(structuredClone(entries)), data);
}

/** Swap the data_offsets of two tensors in the header: each name now points at the other's bytes. */
export function swapOffsets(bytes: Uint8Array, a: string, b: string): Uint8Array {
  return editHeader(bytes, (entries) => {
    const info = (name: string) => entries.find(([k]) => k === name)![1] as { data_offsets: number[] };
    [info(a).data_offsets, info(b).data_offsets] = [info(b).data_offsets, info(a).data_offsets];
    return entries;
  });
}

/**
 * Decode, edit tensors and metadata, and encode again; with `resign` the integrity digest is recomputed, so the
 * file is consistent and only the checks behind the digest can refuse it (a forged or buggy writer's file).
 */
export function reencode(
  bytes: Uint8Array,
  edit: (t: Record<string, TensorEntry>, m: Record<string, string>) => void,
  resign: boolean,
): Uint8Array {
  const { tensors, metadata } = decodeSafetensors(bytes);
  edit(tensors, metadata);
  return encodeSafetensors(tensors, resign ? signed(tensors, metadata) : metadata);
}
