import { defineConfig } from "vitest/config";

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
  },
});
