// Vitest's file order, not a test: the files that run alone (each in a fresh fork: the doctest, the browser, the
// engine's own) and the ones that run the CLI start first, and the quick in-process ones fill the end, so the two
// workers stay busy and finish together instead of one waiting on a long file started last.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Earlier is longer or lonelier: the doctest is one chain of ~50 commands; a file of the `alone` project started
 * among the later ones ran with the other worker idle, so they all start beside the doctest; tests/cli runs the
 * CLI; the rest mostly does not.
 */
const RANK: [RegExp, number][] = [
  [/\/tests\/docs\/doctest\.test\.ts$/, 0],
  [/\/tests\/cli\//, 2],
  [/\/tests\/(experiments|node|browser|tools|bin)\//, 3],
];
const byPath = (file: string) => RANK.find(([re]) => re.test(file))?.[1] ?? 4;
/** The doctest first, then the rest of the `alone` project, then by path. */
const rank = (f: TestSpecification) => (byPath(f.moduleId) === 0 ? 0 : f.project.name === "alone" ? 1 : byPath(f.moduleId));

export class LongestFirst extends BaseSequencer {
  // within a rank vitest's own order: by recorded duration when it has one, else larger files first
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    return base
      .map((f, i) => [f, i] as const)
      .sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j)
      .map(([f]) => f);
  }
}
