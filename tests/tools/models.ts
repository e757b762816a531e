// Test helper, not a test: three small models of different shapes trained a few updates through src/lab and
// written as model files with a documents file each, and a runner for tools/tinylab_torch.py under Python.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { trainingBatches } from "../../src/data/batches.ts";
import { trainBpe } from "../../src/data/bpe.ts";
import { encodeDocument, type Split } from "../../src/data/documents.ts";
import { ByteTokenizer, type Tokenizer } from "../../src/data/tokenizer.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run } from "../../src/lab/run.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { initBackend } from "../../src/util/backend.ts";
import { afterAll, beforeAll } from "vitest";

export const TOOL = resolve(import.meta.dirname, "../../tools/tinylab_torch.py");
/** The Python CI installs (Debian's python3-numpy and python3-torch); TINYLAB_PYTHON overrides it. */
export const PYTHON = process.env.TINYLAB_PYTHON ?? "/usr/bin/python3";

/** Texts that exercise the pre-split: contractions, digits, punctuation runs, whitespace runs, non-ASCII letters. */
export const TEXTS = [
  "the cat sat.",
  "the dog's bed",
  "we'll see 42 cats",
  "don't stop!!",
  "a  b   c",
  "tab\there",
  "new\nline",
  "café au lait",
  "naïve 3.14",
  "日本語 text",
  "x — y",
  "end  ",
  "'ve 'll 're",
  "A1b2 C3",
  "hello, world",
  "the the the",
  "émoji 😀 ok",
  "sat on the mat",
  "a cat",
  "it's",
  "x  y",
  "é!",
  "1 22",
  "go.",
  "ab\tc",
  "dog's",
  "a\n b",
];

export interface TestModel {
  name: string;
  path: string;
  /** A JSONL documents file of TEXTS that fit the context, train and validation alternating. */
  data: string;
  tokenizer: Tokenizer;
  config: ModelConfig;
}

/**
 * CI sets TINYLAB_REQUIRE_PYTHON=1 (.ci/run, which installs the packages): there a missing module fails the suite.
 * Elsewhere (a fresh machine running the README's `npm test`) the interop tests are skipped, saying what to install.
 */
export const REQUIRE_PYTHON = process.env.TINYLAB_REQUIRE_PYTHON === "1";

/** Why PYTHON cannot import these modules, or undefined. */
export function missingPython(modules: string[]): string | undefined {
  const r = spawnSync(PYTHON, ["-c", `import ${modules.join(", ")}`], { encoding: "utf8" });
  if (r.status === 0) return undefined;
  return `${PYTHON} with ${modules.join(" and ")} is needed (Debian: apt-get install -y python3-numpy python3-torch libopenblas0-openmp): ${r.error?.message ?? r.stderr.trim().split("\n").pop()}`;
}

let torchProbe: { missing: string | undefined } | undefined;
/** Why torch cannot be imported, or undefined: probed once, on first use (a file importing only TEXTS starts no Python). */
function torchMissing(): string | undefined {
  torchProbe ??= { missing: missingPython(["numpy", "torch"]) };
  return torchProbe.missing;
}

let warned = false;
/** Skip the torch tests outside CI when torch is absent; in CI (REQUIRE_PYTHON) never. */
export function skipTorch(): boolean {
  const skip = torchMissing() !== undefined && !REQUIRE_PYTHON;
  if (skip && !warned) console.warn(`skipping the PyTorch interop tests: ${torchMissing()}`);
  warned ||= skip;
  return skip;
}

/** Fails the suite, naming the fix, when Python, numpy or torch is missing. */
export function requireTorch(): void {
  const missing = torchMissing();
  if (missing) throw new Error(`tests/tools need ${missing}`);
}

/** One Python process running tools/tinylab_torch.py's main() per request (tests/tools/torch_session.py), started on first use. */
let session: { child: ChildProcess; pending: ((line: string) => void)[] } | undefined;
const SESSION = resolve(import.meta.dirname, "torch_session.py");

function torchSession(): NonNullable<typeof session> {
  if (session) return session;
  const child = spawn(PYTHON, [SESSION], { stdio: ["pipe", "pipe", "inherit"] });
  const s = { child, pending: [] as ((line: string) => void)[] };
  let buffered = "";
  child.stdout!.on("data", (d: Buffer) => {
    buffered += d.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      s.pending.shift()!(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  child.on("close", (code) => {
    for (const p of s.pending.splice(0)) p(JSON.stringify({ status: code, stdout: "", stderr: `torch_session.py ended (${code})` }));
  });
  return (session = s);
}

/** End the session (its process exits when its stdin closes). */
export function closeTorchSession(): void {
  session?.child.stdin!.end();
  session = undefined;
}

/**
 * tools/tinylab_torch.py's main() run on these arguments in the session: its status and output, as its own process
 * would give them, run in `cwd` (default this process's), with stderr in stdout when `merged` (what `2>&1` shows).
 */
export async function torchMain(
  args: string[],
  { cwd, merged = false }: { cwd?: string; merged?: boolean } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const s = torchSession();
  const line = await new Promise<string>((res) => {
    s.pending.push(res);
    s.child.stdin!.write(JSON.stringify({ args, ...(cwd === undefined ? {} : { cwd }), merged }) + "\n");
  });
  return JSON.parse(line) as { status: number | null; stdout: string; stderr: string };
}

/** Run tools/tinylab_torch.py's main() with these arguments; a non-zero status throws with its stderr. Returns parsed JSON stdout. */
export async function torchTool(args: string[]): Promise<any> {
  const r = await torchMain(args);
  if (r.status !== 0) throw new Error(`tinylab_torch.py ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The tool's own process (`python3 tools/tinylab_torch.py …`), expected to fail: its exit code and stderr. */
export function torchToolFails(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(PYTHON, [TOOL, ...args], { encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}

function build(dir: string, name: string, config: ModelConfig, tokenizer: Tokenizer, seed: number, updates: number): TestModel {
  const fits = TEXTS.filter((t) => tokenizer.encode(t).length + 1 <= config.contextLength);
  const rows = fits.map((text, i) => ({
    id: `${name}-${i}`,
    split: (i % 2 === 0 ? "train" : "validation") as Split,
    source: "tools-test",
    text,
  }));
  const train = rows.filter((r) => r.split === "train").map((r) => encodeDocument(tokenizer, r));
  if (train.length < 2 || rows.length - train.length < 2) throw new Error(`${name}: too few texts fit context ${config.contextLength}`);
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  const run = Run.create({
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed, lr: 0.02, data: `tools-test-${name}` }),
    data: () => new EpochSource(mbs, 1),
  });
  try {
    run.train({ updates: updates });
    const path = join(dir, `${name}.safetensors`),
      data = join(dir, `${name}.jsonl`);
    writeFileSync(path, run.modelBytes());
    writeFileSync(data, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return { name, path, data, tokenizer, config };
  } finally {
    run.dispose();
  }
}

/** Byte 1 layer tied (the overfit shape); BPE 2 layers untied; byte 2 layers tied, context 16. Needs an initialised backend. */
export function makeModels(dir: string): TestModel[] {
  const bpe = trainBpe(
    TEXTS.filter((_, i) => i % 2 === 0),
    300,
    { minCount: 1 },
  );
  return [
    build(dir, "byte-1L-tied", resolveModelConfig({}), new ByteTokenizer(266), 5, 12),
    build(
      dir,
      "bpe-2L-untied",
      resolveModelConfig({ vocabSize: bpe.vocabSize, contextLength: 16, nLayers: 2, dModel: 16, nHeads: 4, dFF: 32, tiedHead: false }),
      bpe,
      6,
      12,
    ),
    build(
      dir,
      "byte-2L-ctx16",
      resolveModelConfig({ vocabSize: 258, contextLength: 16, nLayers: 2, dModel: 12, nHeads: 3, dFF: 24 }),
      new ByteTokenizer(258),
      7,
      12,
    ),
  ];
}

/**
 * A test file's temp directory and the three models, trained once before its tests (on wasm) and removed after;
 * nothing is trained when the torch tests are skipped. `models` is filled in place by the beforeAll hook.
 */
export function useModels(prefix: string): { dir: string; models: TestModel[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const models: TestModel[] = [];
  afterAll(() => {
    closeTorchSession();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    if (skipTorch()) return;
    requireTorch();
    await initBackend("wasm");
    models.push(...makeModels(dir));
  });
  return { dir, models };
}
