import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/sequencer.ts";

// vitest's own random order when asked for (`--sequence.shuffle.files`): a sequencer set here would override it
const shuffled = process.argv.some((a) => a.startsWith("--sequence.shuffle"));

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // compiles dist/ when stale, so the CLIs the tests spawn start without tsx's loader
    globalSetup: ["tests/global_setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // vitest's default is the cores minus one: one file at a time on 2 cores, while many files mostly wait on
    // the CLI processes they spawn
    maxWorkers: 2,
    // a fork runs file after file with its modules loaded once, instead of a fork per file importing tfjs and
    // vitest's runner anew; so no file may rely on another's state, and the files pass in any order
    // (`npx vitest run --sequence.shuffle.files --sequence.seed=N`)
    isolate: false,
    sequence: shuffled ? {} : { sequencer: LongestFirst },
  },
});
