import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/sequencer.ts";

// Files that only call code in this process (no CLI, worker or Python started) share a fork and its loaded
// modules (isolate: false): each file of its own would import tfjs and vitest's runner anew. No file there may
// rely on another's state; they pass in any order (`npx vitest run --project in-process
// --sequence.shuffle.files --sequence.seed=N`). The rest keep a fresh fork each: with the whole suite in shared
// forks, a file that ran before model/ops.test.ts left the engine computing other bits.
const IN_PROCESS = ["util", "data", "model", "eval", "lab", "train", "baselines"].map((d) => `tests/${d}/**/*.test.ts`);
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
      { extends: true, test: { name: "processes", include: ["tests/**/*.test.ts"], exclude: IN_PROCESS } },
    ],
  },
});
