// Whether dist/ (the compiled copy bin/build.js writes) was built from exactly the sources on disk now. Kept to
// node:fs, and to stats when nothing changed, because every `tinylab` start asks it before loading anything.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const DIST = join(ROOT, "dist");
// Everything the emitted JavaScript and the addon depend on: the sources, the package (copied for provenance's
// version) and the compiler settings, the build script included.
const INPUT_DIRS = ["src", "experiments", "native"];
/** What each input directory's files end with: TypeScript, and native/'s C (bin/build.js compiles the addon). */
const INPUT_EXT = { src: [".ts"], experiments: [".ts"], native: [".c", ".h"] };
const INPUT_FILES = ["package.json", "tsconfig.json", "tsconfig.build.json", "bin/build.js", "bin/fresh.js", "bin/front.js"];

/** Every input file (repository-relative, sorted) and every directory holding them. */
export function inputs(root = ROOT) {
  const files = [...INPUT_FILES],
    dirs = [...INPUT_DIRS];
  for (const dir of INPUT_DIRS) {
    for (const e of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      const path = join(e.parentPath ?? e.path, e.name).slice(root.length + 1);
      if (e.isDirectory()) dirs.push(path);
      else if (INPUT_EXT[dir].some((x) => e.name.endsWith(x))) files.push(path);
    }
  }
  return { files: files.sort(), dirs: dirs.sort() };
}

/** A hash over every input's path and bytes, so an edit, an added file and a removed one each change it. */
export function contentHash(files, root = ROOT) {
  const { createHash } = createRequire(import.meta.url)("node:crypto"); // loaded only when times disagree
  const h = createHash("sha256");
  for (const f of files)
    h.update(`${f}\0`)
      .update(readFileSync(join(root, f)))
      .update("\0");
  return h.digest("hex");
}

/** Size and modification time of each path: equal to the build's, the path was not written since. */
export function times(paths, root = ROOT) {
  return Object.fromEntries(
    paths.map((p) => {
      const s = statSync(join(root, p));
      return [p, [s.size, s.mtimeMs]];
    }),
  );
}

/** What a build records about its inputs, for isFresh to compare. */
export function stampOf(root = ROOT) {
  const { files, dirs } = inputs(root);
  return { hash: contentHash(files, root), files, dirs, times: times([...files, ...dirs], root) };
}

/** Whether every path the build recorded still has its size and time: one stat each, all a start's check costs. */
function unchanged(stamp, root) {
  for (const p of [...stamp.files, ...stamp.dirs]) {
    const s = statSync(`${root}/${p}`),
      t = stamp.times[p];
    if (t === undefined || s.size !== t[0] || s.mtimeMs !== t[1]) return false;
  }
  return true;
}

/**
 * True when dist/ matches the sources. The build's files and directories with their times unchanged settle it in
 * stats (a directory's time moves when an entry is added, removed or renamed); any difference (an edit, a
 * checkout, a touch) falls back to listing the inputs again and comparing the content hash.
 */
export function isFresh(root = ROOT) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, "dist/stamp.json"), "utf8"));
    if (unchanged(stamp, root)) return true;
  } catch {
    return false; // no build, an unreadable stamp, or a recorded input gone: not fresh
  }
  return stamp.hash === contentHash(inputs(root).files, root);
}
