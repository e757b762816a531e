// The lab page's build: Vite builds web/ into a directory the command may own (its own earlier build, listed in
// BUILD_LIST, or empty), next to it first and renamed into place, with --out held the whole time. Not the server
// (lab_server.ts).
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkOutputDir } from "../node/writable.ts";
import { DIRECTORY_LOCK, lockDirectory, type Lock } from "../node/lock.ts";
import { isBookkeeping, removeEmpty } from "../node/output_dir.ts";
import { isAlive } from "../util/runtime/process.ts";
import { LAB_DEFAULTS } from "../../experiments/options.ts";

// web/ from src/cli/ or from its compiled copy in dist/src/cli/
const CONFIG = fileURLToPath(new URL(`${import.meta.url.endsWith(".ts") ? "../.." : "../../.."}/web/vite.config.ts`, import.meta.url));
/** What the built index.html says of itself, so a rebuild empties only a directory that holds a previous build. */
const MARKER = "<title>tinylab lab</title>";

/** The list of files a build holds, written into it last: what a rebuild may replace, and nothing else. */
export const BUILD_LIST = ".tinylab-lab-build.json";
/** The top level of a build made before BUILD_LIST existed (Vite's page, its bundles, the wasm binaries). */
const UNLISTED_BUILD = ["index.html", "assets", "wasm"];

/** Every entry under `dir`, relative ("wasm/x.wasm"; a directory as "wasm/"), links not followed, sorted; its lock and temp files left out. */
function entriesUnder(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel))
    .filter((e) => rel !== "" || !isBookkeeping(e))
    .sort()
    .flatMap((e) => {
      const r = rel ? `${rel}/${e}` : e;
      const st = lstatSync(join(dir, r));
      return st.isDirectory() && !st.isSymbolicLink() ? [`${r}/`, ...entriesUnder(dir, r)] : [r];
    });
}

/**
 * Refuse an --out that could not be written (/proc, a read-only mount, no permission: checked before the bundler
 * runs, which would crash with a backtrace) or holds anything but an earlier lab build (it is replaced whole):
 * every entry must be one its BUILD_LIST names (a build without one: under index.html, assets/ or wasm/).
 */
export function checkLabOut(dir: string): void {
  checkOutputDir(dir, "--out");
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new Error(`--out ${dir} is a file; the lab page is built into a directory`);
  const entries = entriesUnder(dir);
  if (entries.length === 0) return;
  const index = join(dir, "index.html");
  if (!existsSync(index) || !readFileSync(index, "utf8").includes(MARKER)) {
    throw new Error(
      `--out ${dir} holds files that are not a lab page build, and building empties it: choose a new or empty directory (default ${LAB_DEFAULTS.out})`,
    );
  }
  let listed: (e: string) => boolean;
  try {
    const files = new Set(JSON.parse(readFileSync(join(dir, BUILD_LIST), "utf8")) as string[]);
    listed = (e) => e === BUILD_LIST || (e.endsWith("/") ? [...files].some((f) => f.startsWith(e)) : files.has(e));
  } catch {
    listed = (e) => UNLISTED_BUILD.includes(e.split("/")[0]) && !lstatSync(join(dir, e)).isSymbolicLink();
  }
  // a directory whose every file is foreign is named once, not file by file
  const foreign = entries.filter((e) => !listed(e)).filter((e, _, all) => !all.some((d) => d !== e && d.endsWith("/") && e.startsWith(d)));
  if (foreign.length > 0) {
    const shown =
      foreign
        .slice(0, 3)
        .map((e) => `"${e}"`)
        .join(", ") + (foreign.length > 3 ? ` and ${foreign.length - 3} more` : "");
    throw new Error(
      `--out ${dir} holds ${shown} beside a lab page build, which building would delete (it replaces the directory whole): move them away, or choose a new or empty directory (default ${LAB_DEFAULTS.out})`,
    );
  }
}

/** Builds web/ into a directory (Vite); injectable so a test can fail a build midway. */
export type LabBuilder = (outDir: string) => Promise<void>;

export const viteBuild: LabBuilder = async (outDir) => {
  const { build } = await import("vite"); // imported here only, so no other command loads it
  await build({ configFile: CONFIG, logLevel: "warn", build: { outDir, emptyOutDir: true } });
};

/** The temp directory a build of `out` goes to first, beside it: `.NAME.lab-build.PID.tmp`. */
const BUILD_TEMP = /^\.(.+)\.lab-build\.(\d+)\.tmp$/;

/**
 * Hold `outDir` for a lab command: made when absent and locked (its DIRECTORY_LOCK, the lock every command that
 * writes into a directory takes or respects), so no other command writes into it while it is built and served.
 * Release lets go, and removes it again when this made it and it is left empty (a failed first build).
 */
export function holdLabOut(outDir: string): Lock {
  checkLabOut(outDir);
  const out = resolve(outDir);
  const made = existsSync(out) ? undefined : mkdirSync(out, { recursive: true });
  let lock: Lock;
  try {
    lock = lockDirectory(out, "lab output directory", outDir);
  } catch (err) {
    if (made) removeEmpty(out, made);
    throw err;
  }
  return {
    path: lock.path,
    release: () => {
      lock.release();
      if (made) removeEmpty(out, made);
    },
  };
}

/**
 * Build web/ into `outDir`: into a temp directory beside it, checked, then renamed into place, so a failed build
 * (a full disk) leaves the previous build or nothing, never a truncated bundle. `outDir` is held throughout
 * (`held`, the caller's holdLabOut, kept after; else held for the build alone), and its lock file moves into the
 * new build before the swap, so the directory is never unlocked. Temp builds of dead processes are removed
 * first; nothing else is.
 */
export async function buildLab(outDir: string, builder: LabBuilder = viteBuild, held?: Lock): Promise<void> {
  checkLabOut(outDir);
  const out = resolve(outDir);
  const parent = dirname(out);
  for (const f of existsSync(parent) ? readdirSync(parent) : []) {
    const m = BUILD_TEMP.exec(f);
    if (m && m[1] === basename(out) && !isAlive(Number(m[2]))) rmSync(join(parent, f), { recursive: true, force: true });
  }
  const temp = join(parent, `.${basename(out)}.lab-build.${process.pid}.tmp`);
  const lock = held ?? holdLabOut(outDir);
  try {
    await builder(temp);
    if (!existsSync(join(temp, "index.html")) || !readFileSync(join(temp, "index.html"), "utf8").includes(MARKER))
      throw new Error("the build wrote no index.html");
    if (!existsSync(join(temp, "wasm", "tfjs-backend-wasm-simd.wasm"))) throw new Error("the build has no wasm binaries");
    writeFileSync(
      join(temp, BUILD_LIST),
      JSON.stringify(
        entriesUnder(temp).filter((e) => !e.endsWith("/")),
        null,
        1,
      ) + "\n",
    );
    checkLabOut(outDir); // again, at the last moment: a file put there during the build is kept
    linkSync(lock.path, join(temp, DIRECTORY_LOCK)); // the lock (the same file) goes with the new build
    rmSync(out, { recursive: true, force: true }); // an earlier lab build (checkLabOut refused anything else)
    renameSync(temp, out);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    if (!held) lock.release();
    // the bundler's message runs to many lines (a backtrace); the line naming the OS error says what went wrong
    const lines = String((err as Error)?.message ?? err)
      .replace(/\x1b\[[0-9;]*m/g, "")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    const why = lines.find((l) => /\bE[A-Z]{3,}\b/.test(l)) ?? lines.find((l) => !l.endsWith(":")) ?? lines[0] ?? "unknown error";
    throw new Error(
      `could not build the lab page into ${outDir} (${why.length > 200 ? `${why.slice(0, 200)}…` : why}; ${freeSpace(parent)}); nothing was left there but what was before`,
    );
  }
  if (!held) lock.release();
}

/** Free space where the build went, since a bundler that runs out of it says only that something went wrong. */
function freeSpace(dir: string): string {
  try {
    const st = statfsSync(dir);
    return `${((st.bavail * st.bsize) / 2 ** 20).toFixed(1)} MiB free on its file system`;
  } catch {
    return "free space unknown";
  }
}
