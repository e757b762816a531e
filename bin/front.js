// Runs the CLI's front (dist/cli.cjs: the command line and everything it imports before a command runs, bundled
// by bin/build.js) with V8's code cache, so a start parses and compiles almost nothing. Not the CLI itself:
// bin/tinylab.js asks it, and falls back to the compiled modules when it cannot run the front.
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Script } from "node:vm";

export const FRONT = "cli.cjs";

/**
 * The cache's name carries the front's size and time: V8 checks a cache against its source only by length, so a
 * front rewritten to the same length never meets the bytecode of the old one.
 */
export const cacheName = (front) => {
  const s = statSync(front);
  return `cli-${s.size}-${Math.round(s.mtimeMs)}.cache`;
};

/**
 * The front compiled, from the cache when there is one, or undefined when `dist` holds none. Its `import()`s are
 * this module's (bin/build.js rewrote them), of specifiers relative to the front, so a script needs no loader of
 * its own for them.
 */
export function compileFront(dist) {
  const file = join(dist, FRONT);
  let source, cache;
  try {
    source = readFileSync(file, "utf8");
    cache = join(dist, cacheName(file));
  } catch (e) {
    if (e.code === "ENOENT") return undefined;
    throw e;
  }
  let cachedData;
  try {
    cachedData = readFileSync(cache);
  } catch {
    /* no cache: compiled from source, as fast as the modules */
  }
  // the wrapper keeps the bundle's lines where they are, so a stack names the bundle's own line numbers
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __frontImport) {"use strict";${source}\n})`, {
    filename: file,
    cachedData,
  });
  const url = pathToFileURL(file);
  const load = (spec) => import(spec.startsWith(".") ? new URL(spec, url).href : spec);
  const run = () => {
    const module = { exports: {} };
    script.runInThisContext()(module.exports, createRequire(file), module, file, dist, load);
  };
  return { script, cache, run };
}

/** Runs the front from `dist`; false when it cannot (compileFront). */
export function runFront(dist) {
  const front = compileFront(dist);
  if (front === undefined) return false;
  front.run();
  return true;
}

// `node bin/front.js DIST ARGS…` (bin/build.js, on the build it has just put in place): runs ARGS and writes the
// code cache as the process ends, when every function the run needed has been compiled into it.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv.splice(2, 1)[0];
  const front = compileFront(dist);
  if (front === undefined) process.exit(1);
  // written aside and renamed, so a start never reads half a cache
  process.on("exit", () => {
    const tmp = `${front.cache}.tmp-${process.pid}`;
    writeFileSync(tmp, front.script.createCachedData());
    renameSync(tmp, front.cache);
  });
  front.run();
}
