// The seal of an exported directory: a manifest of every file's size and sha256, written last by `tinylab export`
// and checked whenever tinylab scores the directory, so an edited tokenizer.json (swapped ids, a removed
// post-processor) is named instead of silently changing every number. Pure. Not the export (experiments/export.ts).

export const MANIFEST_FILE = "tinylab_manifest.json";
export const MANIFEST_FORMAT = "tinylab-manifest/1";

export interface SealedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** manifest.json's text for these files (in the order written). */
export function manifestText(files: readonly SealedFile[]): string {
  return (
    JSON.stringify({ format: MANIFEST_FORMAT, files: files.map(({ name, bytes, sha256 }) => ({ name, bytes, sha256 })) }, null, 2) + "\n"
  );
}

/** The manifest's files, or a refusal naming the field. */
export function parseManifest(text: string, where: string): SealedFile[] {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (err) {
    throw new Error(`${where}: not valid JSON (${(err as Error).message})`);
  }
  const o = m as { format?: unknown; files?: unknown };
  if (typeof m !== "object" || m === null || o.format !== MANIFEST_FORMAT || !Array.isArray(o.files))
    throw new Error(`${where}: not a ${MANIFEST_FORMAT} manifest (format and files)`);
  return o.files.map((f: unknown, i) => {
    const e = f as Partial<SealedFile>;
    if (typeof e?.name !== "string" || !Number.isInteger(e.bytes) || typeof e.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(e.sha256))
      throw new Error(`${where}: files[${i}] needs a name, a byte count and a sha256`);
    return { name: e.name, bytes: e.bytes!, sha256: e.sha256 };
  });
}

/**
 * Refuse a directory whose files differ from its manifest: a file read that the manifest lists with another
 * sha256, a file read that it does not list, or a listed file that is gone. `read` maps each file read to its sha256.
 */
export function checkSealed(
  sealed: readonly SealedFile[],
  read: ReadonlyMap<string, string>,
  present: (name: string) => boolean,
  dir: string,
): void {
  const listed = new Map(sealed.map((f) => [f.name, f]));
  for (const [name, sha256] of read) {
    const f = listed.get(name);
    if (!f)
      throw new Error(`${dir}/${name}: is not in ${MANIFEST_FILE}; the directory was changed after tinylab export sealed it (added file)`);
    if (f.sha256 !== sha256)
      throw new Error(
        `${dir}/${name}: has changed since tinylab export sealed the directory (sha256 ${sha256}, ${MANIFEST_FILE} says ${f.sha256})`,
      );
  }
  for (const f of sealed)
    if (!present(f.name))
      throw new Error(
        `${dir}/${f.name}: is listed in ${MANIFEST_FILE} but is gone; the directory was changed after tinylab export sealed it`,
      );
}
