import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/sequencer.ts";

// Three kinds of file, each its own project. `in-process`: files that only call code in this process (no CLI,
// worker or Python started). `processes`: files that start CLIs, workers or Python and leave this process as they
// found it. Both share forks and their loaded modules (isolate: false): a file of its own would import tfjs and
// vitest's runner anew. No file there may rely on another's state; they pass in any order (`npx vitest run
// --project in-process --sequence.shuffle.files --sequence.seed=N`, and the same for processes). `alone`: files
// that change this process's engine or environment for good (onnxruntime kernels installed, TINYLAB_FROM_SOURCE,
// a spied JSON.parse, a browser; the doctest runs the docs' commands in process, and their kernels stay
// installed), each in a fresh fork.
const IN_PROCESS = ["util", "data", "model", "eval", "lab", "train", "baselines"].map((d) => `tests/${d}/**/*.test.ts`);
const ALONE = [
  "tests/node/native_kernels.test.ts",
  "tests/node/pool_graph.test.ts",
  "tests/bin/fresh.test.ts",
  "tests/node/files.test.ts",
  "tests/browser/**/*.test.ts",
  "tests/docs/doctest.test.ts",
];
// vitest's own random order when asked for (`--sequence.shuffle.files`): a sequencer set here would override it
const shuffled = process.argv.some((a) => a.startsWith("--sequence.shuffle"));

export default defineConfig({
  test: {
    // compiles dist/ when stale, so the CLIs the tests spawn start without tsx's loader
    globalSetup: ["tests/global_setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // vitest's default is the cores minus one: one file at a time on 2 cores, while many files mostly wait on
    // the CLI processes they spawn
    maxWorkers: 2,
    sequence: shuffled ? {} : { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: "in-process", include: IN_PROCESS, isolate: false } },
      { extends: true, test: { name: "processes", include: ["tests/**/*.test.ts"], exclude: [...IN_PROCESS, ...ALONE], isolate: false } },
      { extends: true, test: { name: "alone", include: ALONE } },
    ],
  },
});
