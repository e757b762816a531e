// Documents files read from disk: the file's size checked, its bytes read, then parsed by documents_jsonl.ts (the
// format, pure). Not batching (batches.ts) and not the split-file format of raw rows (split_file.ts).
import { readFileBytes, type SizeLimit } from "./disk.ts";
import { parseDocumentsBytes } from "../data/documents_jsonl.ts";
import type { Document } from "../data/documents.ts";
import type { Tokenizer } from "../data/tokenizer.ts";

export { MAX_LINE_BYTES, parseDocumentsBytes, parseDocumentsJsonl } from "../data/documents_jsonl.ts";

/** Largest documents file, checked before it is read: every byte becomes a token id (8 bytes in a JS array), so 256 MiB is already ~2 GiB of ids. */
export const MAX_FILE_BYTES = 256 * 2 ** 20;

/** Read, check sizes and UTF-8, then parse: the file's size before it is read, each line's before it is decoded. */
export function readDocumentsFile(path: string, tokenizer: Tokenizer): Document[] {
  return parseDocumentsBytes(readDocumentsBytes(path), tokenizer, path);
}

/** MAX_FILE_BYTES as readFileBytes states it. */
export const FILE_LIMIT: SizeLimit = { bytes: MAX_FILE_BYTES, label: "256 MiB" };

/** The file's bytes: a regular file, its size checked before it is read; parsing is parseDocumentsBytes. */
export function readDocumentsBytes(path: string): Uint8Array {
  return readFileBytes(path, "documents file", Error, FILE_LIMIT);
}
