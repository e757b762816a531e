// Compiles src/ and experiments/ into dist/ (plain JavaScript, so `tinylab` starts without tsx's loader) and
// stamps the build with its inputs (bin/fresh.js). Not the CLI: bin/tinylab.js picks dist/ or the sources.
// Usage: node bin/build.js [--if-stale] (npm runs it as `prepare` on `npm ci`; the tests' global setup with --if-stale).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DIST, isFresh, ROOT, stampOf } from "./fresh.js";
import { FRONT } from "./front.js";

/** Compiles into a temporary directory renamed to dist/, so a reader never sees half a build. */
export async function build() {
  const stamp = stampOf();
  const tmp = join(ROOT, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", tmp], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`bin/build.js: tsc failed (${r.status ?? r.signal}): ${(r.stdout + r.stderr).trim()}`);
  }
  importVendored(tmp, new Map([...(await vendorYargs(tmp)), ...vendorTfjs(tmp)]));
  buildAddon(tmp);
  await bundleFront(tmp);
  writeFileSync(join(tmp, "stamp.json"), JSON.stringify(stamp) + "\n");
  // the old build is renamed aside before it is removed, so dist/ is missing only between two renames
  const old = join(ROOT, `dist.old-${process.pid}`);
  rmSync(old, { recursive: true, force: true });
  try {
    renameSync(DIST, old);
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
  }
  try {
    renameSync(tmp, DIST);
  } catch (e) {
    if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
    rmSync(tmp, { recursive: true, force: true }); // a concurrent build placed its dist/ first; isFresh judges it
  }
  rmSync(old, { recursive: true, force: true });
  cacheFront(DIST);
}

/**
 * yargs as one file (dist/vendor/yargs.js), which the compiled modules import instead of the package: loading
 * yargs's many ES modules one by one is the largest part of `tinylab --help` after Node's own start. Returns the
 * specifiers it stands for.
 */
async function vendorYargs(out) {
  const entry = join(out, "vendor/entry.js");
  mkdirSync(dirname(entry), { recursive: true });
  writeFileSync(entry, 'export { default } from "yargs";\nexport { hideBin } from "yargs/helpers";\n');
  const esbuild = createRequire(import.meta.url)("esbuild");
  await esbuild.build({
    entryPoints: [entry],
    outfile: join(out, "vendor/yargs.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    absWorkingDir: ROOT,
    nodePaths: [join(ROOT, "node_modules")],
    logLevel: "error",
    plugins: [narrowWidth],
    // yargs's CommonJS parts call require(); an ES module has none of its own
    banner: { js: 'import { createRequire as __tinylabRequire } from "node:module"; const require = __tinylabRequire(import.meta.url);' },
  });
  rmSync(entry);
  const vendor = join(out, "vendor/yargs.js");
  return [
    ["yargs", vendor],
    ["yargs/helpers", vendor],
  ];
}

/**
 * tinylab's onnxruntime addon (native/tinylab_ort.c: scoring's causal attention) into out/native/tinylab_ort.node,
 * compiled with the C compiler `cc` ($CC, else cc) against Node's headers and the onnxruntime library onnxruntime-node
 * ships. Where one of them is missing or the compile fails, out/native/build.json says why and scoring keeps
 * onnxruntime's attention (src/node/causal_attention.ts): the build itself never fails for it.
 */
export function buildAddon(out, cc = process.env.CC || "cc") {
  const dir = join(out, "native");
  mkdirSync(dir, { recursive: true });
  const note = (why) => writeFileSync(join(dir, "build.json"), JSON.stringify(why ? { built: false, why } : { built: true }) + "\n");
  if (process.platform !== "linux" || process.arch !== "x64")
    return note(`no addon for ${process.platform}-${process.arch} (linux-x64 only)`);
  const headers = [join(dirname(dirname(process.execPath)), "include/node"), "/usr/include/node"].find((d) =>
    existsSync(join(d, "node_api.h")),
  );
  if (!headers) return note("Node's headers (include/node/node_api.h) are not installed beside node");
  let ort;
  try {
    ort = join(dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json")), "bin/napi-v6/linux/x64");
  } catch {
    return note("onnxruntime-node is not installed");
  }
  if (!existsSync(join(ort, "libonnxruntime.so.1"))) return note(`onnxruntime-node has no ${join(ort, "libonnxruntime.so.1")}`);
  const args = ["-O3", "-shared", "-fPIC", "-I", headers, join(ROOT, "native/tinylab_ort.c"), "-o", join(dir, "tinylab_ort.node")];
  const r = spawnSync(cc, [...args, "-L", ort, "-l:libonnxruntime.so.1", `-Wl,-rpath,${ort}`, "-lpthread"], { encoding: "utf8" });
  if (r.error) return note(`${cc} did not run (${r.error.code ?? r.error.message}): install a C compiler, or set CC`);
  if (r.status !== 0) return note(`${cc} failed: ${(r.stderr || r.stdout).trim().split("\n").slice(0, 3).join(" / ")}`);
  return note(null);
}

/** The engine's CommonJS packages the compiled modules import. */
const TFJS = ["@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu", "@tensorflow/tfjs-backend-wasm"];

/**
 * Each of the engine's CommonJS packages behind a small ES module (dist/vendor/tfjs-*.js) that loads it with
 * require and re-exports its names, listed here at build time. An ES import of the package itself makes Node scan
 * its whole source for export names (cjs-module-lexer, over 1.6 MB for the three), which costs every command that
 * starts the engine more CPU than loading the packages does. Returns each package with its wrapper's file.
 */
function vendorTfjs(out) {
  const require = createRequire(import.meta.url);
  const wrappers = [];
  for (const pkg of TFJS) {
    const names = Object.keys(require(pkg)).filter((n) => n !== "default" && /^[A-Za-z_$][\w$]*$/.test(n) && bindable(n));
    const file = join(out, "vendor", `${pkg.split("/")[1]}.js`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `import { createRequire } from "node:module";\nconst m = createRequire(import.meta.url)(${JSON.stringify(pkg)});\nexport default m;\n` +
        names.map((n) => `export const ${n} = m.${n};\n`).join(""),
    );
    wrappers.push([pkg, file]);
  }
  return wrappers;
}

/** Points every compiled module's import of a vendored package (`from "x"`, `import("x")`, `import "x"`) at its file in dist/vendor. */
function importVendored(out, vendored) {
  for (const f of readdirSync(out, { recursive: true })) {
    if (!f.endsWith(".js") || f.startsWith("vendor")) continue;
    const path = join(out, f),
      text = readFileSync(path, "utf8");
    const next = text.replace(/(from |import\(|import )"([^"]+)"/g, (all, how, pkg) =>
      vendored.has(pkg) ? `${how}${JSON.stringify(specifier(dirname(path), vendored.get(pkg)))}` : all,
    );
    if (next !== text) writeFileSync(path, next);
  }
}

/** Whether a name can be a `const` binding (not a reserved word). */
function bindable(name) {
  try {
    new Function(`"use strict"; const ${name} = 0;`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Characters every string-width copy yargs bundles counts as one column each, and that never join into one
 * grapheme (tests/bin/front.test.ts checks both against each copy the build wraps): printable ASCII and Latin-1
 * but for the soft hyphen and the characters some copies draw as emoji, Greek letters, dashes and quotes, and
 * mathematical operators.
 */
export const NARROW = /^[\x20-\x7e\xa0-\xa8\xaa-\xac\xaf-\xff\u0391-\u03c9\u2010-\u2027\u2200-\u22ff]*$/;

/**
 * string-width builds an Intl.Segmenter when it loads, and loading ICU's segmentation data is the largest single
 * cost of `tinylab --help`; each import of it is answered by a wrapper that counts a NARROW string's length and
 * loads the real string-width (through a lazy require) only for any other string.
 */
const narrowWidth = {
  name: "narrow-width",
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === "real") return undefined;
      const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: "real" });
      return real.errors.length ? real : { path: real.path, namespace: "narrow-width" };
    });
    b.onLoad({ filter: /.*/, namespace: "narrow-width" }, (args) => ({
      resolveDir: dirname(args.path),
      contents:
        `const narrow = ${NARROW};\nlet real;\n` +
        `export default (s, o) => typeof s === "string" && narrow.test(s) ? s.length : (real ??= require(${JSON.stringify(args.path)}).default)(s, o);\n`,
    }));
  },
};

/** A path from `dir` as an import specifier ("./x.js", "../x.js"). */
const specifier = (dir, path) => {
  const s = relative(dir, path);
  return s.startsWith(".") ? s : `./${s}`;
};

/**
 * The front (dist/cli.cjs): dist/src/cli/main.js and every module it imports statically, in one script that
 * bin/front.js runs from V8's code cache (cacheFront). CommonJS because on Node 20 only a script, not a module,
 * takes a code cache. Each `import()` becomes bin/front.js's import of the compiled module it names, so a
 * command's recipe and the engine load as before, when the command runs. The modules the front holds are a second
 * copy of ones a recipe may import (option tables; the lock helper, whose state lives in files), so nothing may
 * depend on their identity across that line. A front that cannot be built leaves the compiled modules to start from.
 */
async function bundleFront(out) {
  const esbuild = createRequire(import.meta.url)("esbuild");
  const lazy = {
    name: "lazy-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => (args.path.startsWith(".") || args.kind === "entry-point" ? undefined : { external: true }));
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const here = (p) => JSON.stringify(p.startsWith(".") ? specifier(out, resolve(dirname(args.path), p)) : p);
        // import() named from the front's own place; a bundled module's import.meta.url stays its compiled file's
        const contents = readFileSync(args.path, "utf8")
          .replace(/\bimport\(\s*"([^"]+)"\s*\)/g, (_, p) => `__frontImport(${here(p)})`)
          .replaceAll("import.meta.url", `new URL(${JSON.stringify(specifier(out, args.path))}, __frontUrl).href`);
        return { contents, loader: "js" };
      });
    },
  };
  try {
    const r = await esbuild.build({
      entryPoints: [join(out, "src/cli/main.js")],
      bundle: true,
      platform: "node",
      format: "cjs",
      plugins: [lazy],
      logLevel: "silent",
      metafile: true,
      write: false,
      outfile: join(out, FRONT),
      banner: { js: 'const __frontUrl = require("node:url").pathToFileURL(__filename).href;' },
    });
    const packages = Object.values(r.metafile.outputs)[0].imports.filter(
      (i) => i.external && !isBuiltin(i.path) && !i.path.startsWith("."),
    );
    // a package would be require()d: a second copy of one an import() loads, if it loads at all
    if (packages.length > 0) throw new Error(`it imports packages statically (${packages.map((i) => i.path).join(", ")})`);
    const text = r.outputFiles[0].text;
    // an import() of a computed specifier names no compiled file; a script cannot run it
    if (/\bimport\(/.test(text)) throw new Error("it has an import() of a computed specifier");
    writeFileSync(join(out, FRONT), text);
  } catch (e) {
    console.warn(`bin/build.js: no bundled front, tinylab starts from the compiled modules: ${e.message.split("\n")[0]}`);
  }
}

/**
 * The front's code cache, written by one `--help` run of the front where it will stay (the cache keeps the path
 * it was compiled at, which stack traces show). A front whose `--help` fails is removed.
 */
function cacheFront(dist) {
  const file = join(dist, FRONT);
  if (!existsSync(file)) return;
  const c = spawnSync(process.execPath, [join(ROOT, "bin/front.js"), dist, "--help"], { cwd: ROOT, encoding: "utf8" });
  if (c.status === 0) return;
  rmSync(file, { force: true });
  console.warn(
    `bin/build.js: the bundled front's --help failed (${c.status ?? c.signal}), so tinylab starts from the compiled modules: ${c.stderr.trim()}`,
  );
}

/** Builds unless dist/ already matches the sources; true when it built. */
export async function buildIfStale() {
  if (isFresh()) return false;
  await build();
  return true;
}

// A failed build stops nothing: without a fresh dist/, bin/tinylab.js runs the sources through tsx.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes("--if-stale")) await buildIfStale();
    else await build();
  } catch (e) {
    console.warn(`${e.message}; tinylab will run its sources through tsx instead`);
  }
}
