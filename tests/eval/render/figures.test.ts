// Contracts of the evaluation figures: the reliability diagram is well-formed escaped SVG with its diagonal
// at 45°, ECE and n in the title, and "no data" when every bin is empty. Looks are checked by eye, not here.
import { describe, expect, it } from "vitest";
import { reliabilityDiagram } from "../../../src/eval/render/figures.ts";
import { assertWellFormed } from "../../util/xml.ts";

describe("reliabilityDiagram", () => {
  const bins = [
    { lo: 0.5, hi: 0.6, count: 10, meanConfidence: 0.55, accuracy: 0.5 },
    { lo: 0.6, hi: 0.7, count: 0, meanConfidence: NaN, accuracy: NaN },
    { lo: 0.9, hi: 1, count: 30, meanConfidence: 0.95, accuracy: 0.9 },
  ];

  it("draws the y = x diagonal from bottom-left to top-right, with ECE and n in the title", () => {
    const svg = reliabilityDiagram(bins, { title: "cal <test>", ece: 0.0512 });
    assertWellFormed(svg);
    const m = /<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"[^>]*class="diagonal"/.exec(svg);
    expect(m).not.toBeNull();
    const [x1, y1, x2, y2] = m!.slice(1).map(Number);
    expect(x2 - x1).toBeGreaterThan(0);
    expect(y1 - y2).toBeCloseTo(x2 - x1, 1); // the plot is square, so the diagonal is at 45°
    expect(svg).toContain("ECE = 0.0512");
    expect(svg).toContain("n = 40");
    expect(svg).toContain("cal &lt;test&gt;");
    expect(svg).not.toContain("NaN");
  });

  it("says 'no data' when every bin is empty", () => {
    const svg = reliabilityDiagram([{ lo: 0, hi: 1, count: 0, meanConfidence: NaN, accuracy: NaN }]);
    assertWellFormed(svg);
    expect(svg).toContain("no data");
  });
});
