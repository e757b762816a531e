// A run's split rebuilt for scoring from its manifest.json and its text, every document's sha256 checked: the one
// rule the CLI (src/node/text_files.ts readRunText) and the lab page share. Pure: the text comes through `read`.
// Not how a split is made (text_split.ts).
import { jsSha256, type Sha256Hasher } from "../util/primitives/sha256.ts";
import { documentsOfText, type TextSource } from "./text_documents.ts";
import { manifestSha256, parseTextManifest, type TextManifest } from "./text_manifest.ts";
import { groupBy, verifyTextManifest } from "./text_split.ts";

/** A file's text by its path in the manifest (and a document's id), with the path it was read from (named if it changed). */
export type ReadText = (file: string, id: string) => { text: string; path: string };

/**
 * The documents a manifest was made from, re-read through `read`, and their sha256s: a file whose every document has
 * the id `<file>#<n>` is one text cut at blank lines (or, when that does not reproduce its documents' sha256s, one
 * document per line: `onePerLine` forces either); any other document is one whole .txt file of a directory.
 * verifyTextManifest then checks every sha256.
 */
export function sourcesOfManifest(
  m: TextManifest,
  read: ReadText,
  onePerLine?: boolean,
  sha256: Sha256Hasher = jsSha256,
): { docs: TextSource[]; sha: string[] } {
  const docs: TextSource[] = [];
  const sha: string[] = [];
  const add = (d: TextSource, h = sha256.hex(d.text)) => (docs.push(d), sha.push(h));
  for (const [file, entries] of groupBy(m.documents, (d) => d.file)) {
    if (!entries.every((e) => e.id.startsWith(`${file}#`))) {
      for (const e of entries) {
        const r = read(file, e.id);
        add({ id: e.id, source: e.source, file: r.path, text: r.text.replace(/^\ufeff/, "").trim() });
      }
      continue;
    }
    const { text, path } = read(file, entries[0].id);
    const cut = (perLine: boolean) => {
      const cutDocs = documentsOfText(text, file, entries[0].source, perLine).map((d) => ({ ...d, file: path }));
      return { cutDocs, cutSha: cutDocs.map((d) => sha256.hex(d.text)) };
    };
    const matches = (c: ReturnType<typeof cut>) =>
      c.cutDocs.length === entries.length && c.cutSha.every((h, i) => h === expected.get(c.cutDocs[i].id));
    const expected = new Map(entries.map((e) => [e.id, e.sha256]));
    let chosen = cut(onePerLine ?? false);
    if (onePerLine === undefined && !matches(chosen)) {
      const perLine = cut(true);
      if (matches(perLine)) chosen = perLine;
    }
    // one at a time: spreading a million documents into push() overflows the stack
    chosen.cutDocs.forEach((d, i) => add(d, chosen.cutSha[i]));
  }
  return { docs, sha };
}

/** A run's split rebuilt from its manifest's JSON and its text (`read`, see sourcesOfManifest), every document's sha256 checked. */
export function rebuildRunSplit(json: string, where: string, read: ReadText, onePerLine?: boolean, sha256: Sha256Hasher = jsSha256) {
  const manifest = parseTextManifest(json, where);
  const { docs, sha } = sourcesOfManifest(manifest, read, onePerLine, sha256);
  const bySplit = verifyTextManifest(manifest, docs, where, "restore it, or score other documents with --data", sha);
  return { bySplit, manifest, manifestSha256: manifestSha256(manifest, sha256) };
}
