// Vitest's file order, not a test: the files that run the CLI start first and the quick in-process ones fill
// the end, so the two workers finish together instead of one waiting on a long file started last.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Earlier is longer: the doctest is one chain of ~50 commands, tests/cli runs the CLI, the rest mostly does not. */
const RANK: [RegExp, number][] = [[/\/tests\/docs\/doctest\.test\.ts$/, 0], [/\/tests\/cli\//, 1], [/\/tests\/(experiments|node|browser|tools|bin)\//, 2]];
const rank = (file: string) => RANK.find(([re]) => re.test(file))?.[1] ?? 3;

export class LongestFirst extends BaseSequencer {
  // within a rank vitest's own order: by recorded duration when it has one, else larger files first
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    return base.map((f, i) => [f, i] as const).sort(([a, i], [b, j]) => rank(a.moduleId) - rank(b.moduleId) || i - j).map(([f]) => f);
  }
}
