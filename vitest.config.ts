import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/sequencer.ts";

// Files that only call code in this process (no CLI, worker or Python started) share a fork and its loaded
// modules (isolate: false): each file of its own would import tfjs and vitest's runner anew. They pass in any
// file order (`--sequence.shuffle.files`); the rest keep a fresh fork each, as processes they start may rely on
// the environment or kernels a file set.
const IN_PROCESS = ["util", "data", "model", "eval", "lab", "train", "baselines"].map((d) => `tests/${d}/**/*.test.ts`);

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
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: "in-process", include: IN_PROCESS, isolate: false } },
      { extends: true, test: { name: "processes", include: ["tests/**/*.test.ts"], exclude: IN_PROCESS } },
    ],
  },
});
