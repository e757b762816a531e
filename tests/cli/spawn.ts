// Test helper, not a test: runs `node bin/tinylab.js …` in a separate process on the wasm backend with tfjs's own kernels
// (one engine for every test, the teaching experiments') and collects its output, optionally waiting for a line before the caller acts (e.g. kills it); `ok` asserts a clean exit.
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { expect } from "vitest";

export const BIN = resolve(import.meta.dirname, "../../bin/tinylab.js");
/** What every tinylab a test runs sees: the wasm backend with tfjs's own kernels (the teaching experiments' engine; the docs' commands run on each command's default, tests/docs/doctest.test.ts). */
export const TEST_ENV = { TINYLAB_BACKEND: "wasm", TINYLAB_KERNELS: "tfjs" };

/**
 * Progress lines (src/util/runtime/progress.ts: `label  done/total unit  percent%  …`), which a run prints on stderr or not
 * depending on how long each phase takes on this machine: left out of the stderr a test compares.
 */
const PROGRESS_LINE = /^\S+ {2}\d+\/\d+ \S+ {2}[\d.]+%.*(\n|$)/gm;
export const withoutProgress = (stderr: string): string => stderr.replace(PROGRESS_LINE, "");

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  done: Promise<Finished>;
  /** Resolves with the first stdout match of `pattern`; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** `env` adds to this process's environment (e.g. a test hook such as TINYLAB_TEST_KILL_AT). */
export function start(args: string[], cwd?: string, env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...TEST_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "",
    stderr = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of waiters.splice(0)) {
      const m = stdout.match(w.pattern);
      if (m) w.resolve(m);
      else waiters.push(w);
    }
  };
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<Finished>((res) =>
    child.on("close", (code, signal) => {
      for (const w of waiters.splice(0))
        w.reject(new Error(`tinylab ${args.join(" ")} ended (${code ?? signal}) before printing ${w.pattern}\n${stdout}\n${stderr}`));
      res({ code, signal, stdout, stderr: withoutProgress(stderr) });
    }),
  );
  return {
    child,
    done,
    waitFor: (pattern) =>
      new Promise((res, rej) => {
        waiters.push({ pattern, resolve: res, reject: rej });
        check();
      }),
  };
}

/** Run to completion. */
export function tinylab(args: string[], cwd?: string): Promise<Finished> {
  return start(args, cwd).done;
}

/**
 * train --text's warning of a held-out split under MIN_INTERVAL_DOCUMENTS: the tests' texts are deliberately a
 * dozen documents, so a run of them says it (tests/cli/bounds.test.ts checks the words); nothing else may appear.
 */
const SMALL_SPLIT = /^warning: the (validation|test) split has \d+ documents?, fewer than 10 \(MIN_INTERVAL_DOCUMENTS\): .*\n/gm;

/** Assert a finished run exited 0 with nothing on stderr but small-split warnings (its stdout shown on failure); returns it. */
export function ok<R extends Pick<Finished, "code" | "stderr" | "stdout">>(r: R): R {
  expect(r.stderr.replace(SMALL_SPLIT, ""), r.stdout).toBe("");
  expect(r.code).toBe(0);
  return r;
}
