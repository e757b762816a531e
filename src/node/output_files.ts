// A command's output directory as a list of files: what is in it (one subdirectory deep, after sweeping the temp
// files of killed writers) and writing a set of named files into it (through output_dir.ts's claim), each atomically. Node-only.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { sha256Bytes } from "./atomic.ts";
import { removeStaleTemps } from "./disk.ts";
import { isBookkeeping } from "./output_dir.ts";

/** Entries under `dir` but locks and temps (output_dir.ts's bookkeeping), one level of subdirectory deep ("onnx/model.onnx"; an empty subdirectory as "onnx/"), sorted; none when `dir` is absent. */
export function entriesOneDeep(dir: string): string[] {
  if (!existsSync(dir)) return [];
  removeStaleTemps(dir);
  return readdirSync(dir)
    .filter((e) => !isBookkeeping(e))
    .sort()
    .flatMap((e) => {
      const sub = join(dir, e);
      if (!statSync(sub).isDirectory()) return [e];
      removeStaleTemps(sub);
      const inner = readdirSync(sub)
        .sort()
        .map((f) => `${e}/${f}`);
      return inner.length > 0 ? inner : [`${e}/`];
    });
}

/** Write each [name, content] through `out` (names may hold one "/"), each atomically; the files' sizes and sha256s. */
export function writeFilesAtomic(
  out: { write(name: string, data: string | Uint8Array): unknown },
  contents: readonly [string, string | Uint8Array][],
): { name: string; bytes: number; sha256: string }[] {
  return contents.map(([name, data]) => {
    out.write(name, data);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return { name, bytes: bytes.length, sha256: sha256Bytes(bytes) };
  });
}
