// Test helper, not a test: runs a `tinylab …` command line in this process (src/cli/program.ts, the code
// main.ts runs), with the environment spawn.ts gives a child, and collects what it printed and its exit status.
// For refusals, parsing and the doctest's commands; where the process boundary is what is tested (signals, exit
// hooks, start-up, a run re-scored in another process), spawn.
// Files share a process (vitest.config.ts, isolate: false), so a run must leave it as it found it: one that leaves
// tensors, process listeners, another backend, environment variables or another working directory behind fails here.
import { expect, vi } from "vitest";
import { initBackend, parseBackendChoice, tf } from "../../src/util/backend.ts";
import { run } from "../../src/cli/program.ts";
import { BIN, TEST_ENV as ENV, withoutProgress, type Finished } from "./spawn.ts";

/** What a command run here could leave behind. The engine's own count: tf.memory() would start a backend. */
function processState() {
  const listeners = Object.fromEntries(process.eventNames().map((e) => [String(e), process.listeners(e as NodeJS.Signals)]));
  return { tensors: tf.engine().state.numTensors, listeners, backend: tf.getBackend(), env: { ...process.env }, cwd: process.cwd() };
}

/** The events a run added listeners to, once per listener (the listeners themselves compared, not counts). */
function addedListeners(
  before: ReturnType<typeof processState>["listeners"],
  after: ReturnType<typeof processState>["listeners"],
): string[] {
  return Object.entries(after).flatMap(([e, fs]) => fs.filter((f) => !(before[e] ?? []).includes(f)).map(() => e));
}

/** Where and how a command runs here: its environment (added to this process's) and working directory. */
export interface HereOptions {
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * `tinylab args` run here: the status main.ts would exit with, stdout, stderr less its progress lines (spawn.ts
 * withoutProgress), and `output`: all of both, progress included, in the order written (what `2>&1` gives). The
 * streams read as pipes, not a terminal, as a spawned child's do.
 */
export async function tinylabHere(
  args: string[],
  { env = ENV, cwd }: HereOptions = {},
): Promise<Omit<Finished, "signal"> & { output: string }> {
  // the console, argv, cwd and exit code are this process's: two runs at once would capture each other's output
  if (running) throw new Error(`tinylab ${args.join(" ")}: another tinylabHere run is under way; await one before the next`);
  running = true;
  try {
    return await runHere(args, env, cwd);
  } finally {
    running = false;
  }
}
let running = false;

async function runHere(
  args: string[],
  env: Record<string, string>,
  cwd: string | undefined,
): Promise<Omit<Finished, "signal"> & { output: string }> {
  // the engine a spawned command would start, started first: its wasm module hooks this process once
  // (uncaughtException, unhandledRejection) when it loads, which is the engine's start-up, not a command's leftovers
  await initBackend(parseBackendChoice(env.TINYLAB_BACKEND ?? process.env.TINYLAB_BACKEND));
  const before = processState();
  const out = { stdout: "", stderr: "", output: "" };
  const add = (to: "stdout" | "stderr", text: string) => {
    out[to] += text;
    out.output += text;
  };
  const line =
    (to: "stdout" | "stderr") =>
    (...a: unknown[]) =>
      add(to, a.map(String).join(" ") + "\n");
  const write = (to: "stdout" | "stderr") => (chunk: string | Uint8Array) => {
    add(to, typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
    return true;
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const ttys = [process.stdout, process.stderr].map((s) => [s, Object.getOwnPropertyDescriptor(s, "isTTY")] as const);
  for (const [s] of ttys) Object.defineProperty(s, "isTTY", { value: false, configurable: true });
  const home = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  const spies = [
    vi.spyOn(console, "log").mockImplementation(line("stdout")),
    vi.spyOn(console, "info").mockImplementation(line("stdout")),
    vi.spyOn(console, "error").mockImplementation(line("stderr")),
    vi.spyOn(console, "warn").mockImplementation(line("stderr")),
    vi.spyOn(process.stdout, "write").mockImplementation(write("stdout") as typeof process.stdout.write),
    vi.spyOn(process.stderr, "write").mockImplementation(write("stderr") as typeof process.stderr.write),
    // a command that would end the process (e.g. --help) must not end the test's
    vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      throw new Error(`tinylab ${args.join(" ")} called process.exit(${code}) in process`);
    }) as typeof process.exit),
  ];
  const [exitCode, argv] = [process.exitCode, process.argv];
  let result: Omit<Finished, "signal"> & { output: string };
  try {
    // what the spawned process would see (a refusal quotes a value as typed, from process.argv)
    process.argv = [process.execPath, BIN, ...args];
    process.exitCode = undefined;
    const code = (await run(args)) ?? Number(process.exitCode ?? 0);
    result = { code, ...out, stderr: withoutProgress(out.stderr) };
  } finally {
    [process.exitCode, process.argv] = [exitCode, argv];
    process.chdir(home);
    for (const [s, d] of ttys)
      if (d) Object.defineProperty(s, "isTTY", d);
      else delete (s as { isTTY?: boolean }).isTTY;
    for (const s of spies) s.mockRestore();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  const after = processState();
  const what = `tinylab ${args.join(" ")} run in process (stderr: ${out.stderr.trim()})`;
  expect(after.tensors - before.tensors, `tensors left by ${what}`).toBe(0);
  expect(addedListeners(before.listeners, after.listeners), `process listeners left by ${what}`).toEqual([]);
  expect([after.backend, after.env, after.cwd], `backend, environment or working directory changed by ${what}`).toEqual([
    before.backend,
    before.env,
    before.cwd,
  ]);
  return result;
}
