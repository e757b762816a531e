// Compiles src/ and experiments/ into dist/ (plain JavaScript, so `tinylab` starts without tsx's loader) and
// stamps the build with its inputs (bin/fresh.js). Not the CLI: bin/tinylab.js picks dist/ or the sources.
// Usage: node bin/build.js [--if-stale] (npm runs it as `prepare` on `npm ci`; the tests' global setup with --if-stale).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DIST, isFresh, ROOT, stampOf } from "./fresh.js";

/** Compiles into a temporary directory renamed to dist/, so a reader never sees half a build. */
export function build() {
  const stamp = stampOf();
  const tmp = join(ROOT, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", tmp], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`bin/build.js: tsc failed (${r.status ?? r.signal}): ${(r.stdout + r.stderr).trim()}`);
  }
  vendorYargs(tmp);
  writeFileSync(join(tmp, "stamp.json"), JSON.stringify(stamp) + "\n");
  // the old build is renamed aside before it is removed, so dist/ is missing only between two renames
  const old = join(ROOT, `dist.old-${process.pid}`);
  rmSync(old, { recursive: true, force: true });
  try { renameSync(DIST, old); } catch (e) { if (e.code !== "ENOENT") throw e; }
  try {
    renameSync(tmp, DIST);
  } catch (e) {
    if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
    rmSync(tmp, { recursive: true, force: true }); // a concurrent build placed its dist/ first; isFresh judges it
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * yargs as one file (dist/vendor/yargs.js), which the compiled modules import instead of the package: loading
 * yargs's many ES modules one by one is the largest part of `tinylab --help` after Node's own start.
 */
function vendorYargs(out) {
  const entry = join(out, "vendor/entry.js");
  mkdirSync(dirname(entry), { recursive: true });
  writeFileSync(entry, 'export { default } from "yargs";\nexport { hideBin } from "yargs/helpers";\n');
  const esbuild = createRequire(import.meta.url)("esbuild");
  esbuild.buildSync({
    entryPoints: [entry], outfile: join(out, "vendor/yargs.js"), bundle: true, platform: "node", format: "esm",
    absWorkingDir: ROOT, nodePaths: [join(ROOT, "node_modules")], logLevel: "error",
    // yargs's CommonJS parts call require(); an ES module has none of its own
    banner: { js: 'import { createRequire as __tinylabRequire } from "node:module"; const require = __tinylabRequire(import.meta.url);' },
  });
  rmSync(entry);
  const vendor = join(out, "vendor/yargs.js");
  for (const f of readdirSync(out, { recursive: true })) {
    if (!f.endsWith(".js") || f.startsWith("vendor")) continue;
    const path = join(out, f), text = readFileSync(path, "utf8");
    let spec = relative(dirname(path), vendor);
    if (!spec.startsWith(".")) spec = `./${spec}`;
    const next = text.replace(/(from |import\()"yargs(\/helpers)?"/g, `$1${JSON.stringify(spec)}`);
    if (next !== text) writeFileSync(path, next);
  }
}

/** Builds unless dist/ already matches the sources; true when it built. */
export function buildIfStale() {
  if (isFresh()) return false;
  build();
  return true;
}

// A failed build stops nothing: without a fresh dist/, bin/tinylab.js runs the sources through tsx.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes("--if-stale")) buildIfStale();
    else build();
  } catch (e) {
    console.warn(`${e.message}; tinylab will run its sources through tsx instead`);
  }
}
