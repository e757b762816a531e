// Benchmark: reading a --text file into documents (src/node/text_files.ts readTextInput) and splitting them
// (src/data/text_split.ts textSplit, manifest.json written to a fresh temp directory), timed apart, wall and CPU
// seconds, in one process; then digests that must agree between two trees (the manifest's sha256, every split's
// ids and texts). One JSON line; not a test.
//
//   npx tsx bench/make_text.ts --lines 1000000 --out /tmp/tinylab-data-scale/lines-1000000.txt
//   npx tsx bench/split.ts --file /tmp/tinylab-data-scale/lines-1000000.txt --one-per-line [--src DIR]
//
// DIR: the checkout whose src/ is measured (default this one): run it for two trees alternately to compare them.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    "one-per-line": { type: "boolean", default: false },
    src: { type: "string", default: resolve(import.meta.dirname, "..") },
  },
});
if (!values.file) {
  console.error("usage: split.ts --file FILE [--one-per-line] [--src DIR]");
  process.exit(2);
}
const src = values.src!;
const mod = async <M>(path: string): Promise<M> => import(pathToFileURL(resolve(src, path)).href) as Promise<M>;
const { readTextInput } = await mod<typeof import("../src/node/text_files.ts")>("src/node/text_files.ts");
const { textSplit } = await mod<typeof import("../src/data/text_split.ts")>("src/data/text_split.ts");
const { dirStore } = await mod<typeof import("../src/node/disk.ts")>("src/node/disk.ts");
// a tree with node's hasher passes it as train does; an older tree has none
const nodeHasher = existsSync(resolve(src, "src/node/sha256.ts"))
  ? (await mod<{ nodeSha256: unknown }>("src/node/sha256.ts")).nodeSha256
  : undefined;

const clock = () => ({ wall: performance.now(), cpu: process.cpuUsage() });
const since = (t: ReturnType<typeof clock>) => {
  const c = process.cpuUsage(t.cpu);
  return { s: +((performance.now() - t.wall) / 1000).toFixed(2), cpu_s: +((c.user + c.system) / 1e6).toFixed(2) };
};
const load = () => loadavg()[0].toFixed(1);

const dir = mkdtempSync(join(tmpdir(), "bench-split-"));
try {
  const loadBefore = load();
  let t = clock();
  const docs = readTextInput(values.file!, values["one-per-line"]!, process.stderr);
  const read = since(t);
  t = clock();
  const o = { seed: 0, validation: 0.1, test: 0 };
  // an older tree's textSplit takes the progress stream where this one takes its options
  const split = nodeHasher
    ? textSplit(docs, dirStore(dir), o, { progress: process.stderr, sha256: nodeHasher as never })
    : textSplit(docs, dirStore(dir), o, process.stderr as never);
  const splitTime = since(t);
  const digest = (xs: readonly { id: string; text: string }[]) => {
    const h = createHash("sha256");
    for (const d of xs) h.update(d.id).update("\0").update(d.text).update("\0");
    return h.digest("hex").slice(0, 16);
  };
  const bySplit = split.bySplit as Record<string, { id: string; text: string }[]>;
  console.log(
    JSON.stringify({
      src,
      documents: docs.length,
      read_s: read.s,
      read_cpu_s: read.cpu_s,
      split_s: splitTime.s,
      split_cpu_s: splitTime.cpu_s,
      load: `${loadBefore}-${load()}`,
      manifest_sha256: split.manifestSha256,
      file_sha256: createHash("sha256")
        .update(readFileSync(join(dir, "manifest.json")))
        .digest("hex"),
      splits: Object.fromEntries(Object.entries(bySplit).map(([k, v]) => [k, `${v.length} ${digest(v)}`])),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
