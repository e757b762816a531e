// Contracts of the SVG primitives and charts: well-formed escaped XML, round ticks covering the range,
// lines broken at non-finite points, end labels and legend placed whole. Rendered overlap is tests/browser's.
import { describe, expect, it } from "vitest";
import { lineChart } from "../../../src/util/render/line_chart.ts";
import { rawAndSmoothed, smoothEma } from "../../../src/util/render/loss_curve.ts";
import { spreadLabels } from "../../../src/util/render/end_labels.ts";
import { barChartWithIntervals } from "../../../src/util/render/bar_chart.ts";
import { escapeXml } from "../../../src/util/render/svg.ts";
import { integerTicks, logTicks, niceTicks, tickFormat } from "../../../src/util/render/ticks.ts";
import { textWidth, wrapText } from "../../../src/util/render/text_width.ts";
import { assertWellFormed } from "../xml.ts";

/** All "x" coordinates of path data inside the chart's <path> elements. */
function pathXs(svg: string): number[] {
  return [...svg.matchAll(/<path d="([^"]*)"/g)].flatMap(([, d]) => [...d.matchAll(/[ML](-?[\d.]+) /g)].map((m) => Number(m[1])));
}

function isNice(step: number): boolean {
  const f = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((n) => Math.abs(f - n) < 1e-9);
}

describe("niceTicks", () => {
  it("gives the textbook answer on round ranges", () => {
    expect(niceTicks(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0.13, 0.87, 5)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(niceTicks(-0.2, 0.95, 5)).toEqual([-0.2, 0, 0.2, 0.4, 0.6, 0.8, 1]);
    // 0.1 + 0.2 style float error must not leak into tick values.
    expect(niceTicks(0.1, 0.3, 5)).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
  });

  it("covers any range with evenly spaced 1-2-5 steps", () => {
    const ranges: [number, number][] = [
      [0, 1030],
      [-3.7, 12.2],
      [1.61, 5.23],
      [1e-4, 3e-4],
      [2e6, 9.5e7],
      [-5, -4.99],
    ];
    for (const [lo, hi] of ranges) {
      const t = niceTicks(lo, hi, 5);
      expect(t[0]).toBeLessThanOrEqual(lo);
      expect(t[t.length - 1]).toBeGreaterThanOrEqual(hi);
      const step = t[1] - t[0];
      expect(isNice(step)).toBe(true);
      for (let i = 1; i < t.length; i++) expect(t[i] - t[i - 1]).toBeCloseTo(step, 9);
      expect(t.length).toBeGreaterThanOrEqual(3);
      expect(t.length).toBeLessThanOrEqual(12);
    }
  });

  it("pads a degenerate range instead of returning one tick", () => {
    const t = niceTicks(2, 2);
    expect(t[0]).toBeLessThan(2);
    expect(t[t.length - 1]).toBeGreaterThan(2);
    expect(niceTicks(0, 0).length).toBeGreaterThan(1);
  });

  it("rejects non-finite bounds", () => {
    expect(() => niceTicks(0, Infinity)).toThrow();
    expect(() => niceTicks(NaN, 1)).toThrow();
  });
});

describe("logTicks and tickFormat", () => {
  it("uses 1-2-5 per decade over a few decades and every digit within one", () => {
    expect(logTicks(1, 1000)).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);
    expect(logTicks(2.1, 5.5)).toEqual([3, 4, 5]);
  });

  it("prints ticks at the precision of their spacing, with k/M suffixes for large counts", () => {
    const f = tickFormat([0, 0.2, 0.4]);
    expect([0, 0.2, 0.4].map(f)).toEqual(["0.0", "0.2", "0.4"]);
    const g = tickFormat([0, 1e6, 2e6]);
    expect([0, 1e6, 2e6].map(g)).toEqual(["0", "1M", "2M"]);
  });
});

describe("escapeXml", () => {
  it("escapes markup characters and drops control characters XML forbids", () => {
    expect(escapeXml(`a<b>&"c'\u0001`)).toBe("a&lt;b&gt;&amp;&quot;c&apos;");
  });
});

describe("lineChart", () => {
  const series = [
    {
      name: "train loss",
      points: [
        [0, 5],
        [1, 4],
        [2, NaN],
        [3, 3],
        [4, 2.5],
      ] as [number, number][],
    },
    {
      name: "val loss",
      points: [
        [0, 5.2],
        [4, 2.8],
      ] as [number, number][],
      marker: true,
    },
  ];

  it("is well-formed, names every series and escapes the title", () => {
    const svg = lineChart({ title: "Loss <tiny & fast>", series, refLines: [{ name: "unigram", y: 4.5 }], xLabel: "step", yLabel: "nats" });
    assertWellFormed(svg);
    for (const name of ["train loss", "val loss", "unigram"]) expect(svg).toContain(name);
    expect(svg).toContain("Loss &lt;tiny &amp; fast&gt;");
    expect(svg).not.toContain("<tiny");
    expect(svg).toContain('fill="#ffffff"');
    expect(svg).toContain('font-family="sans-serif"');
  });

  it("breaks the line at a NaN and says how many points it left out", () => {
    const svg = lineChart({ title: "t", series: [series[0]] });
    expect(svg.match(/<path d=/g)?.length).toBe(2); // [0..1] and [3..4]
    expect(svg).toMatch(/Omitted non-finite points.*train loss \(1\)/);
    expect(svg).not.toContain("NaN");
  });

  it("labels each solid line at its end, right of every plotted point, and puts the whole legend under the plot", () => {
    const svg = lineChart({ title: "t", series, refLines: [{ name: "a very long baseline name (fitted on train)", y: 4.5 }] });
    const ends = svg.split('<g class="end-labels">')[1].split("</g>")[0];
    const endXs = [...ends.matchAll(/<text x="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(endXs.length).toBe(3); // two series and the reference line
    expect(Math.max(...pathXs(svg))).toBeLessThan(Math.min(...endXs));
    expect(ends).toContain("a very long baseline name (fitted on train) 4.5");
    const legendYs = [...svg.split('<g class="legend">')[1].matchAll(/y1="([\d.]+)"/g)].map((m) => Number(m[1]));
    const pathYs = [...svg.matchAll(/<path d="([^"]*)"/g)].flatMap(([, d]) =>
      [...d.matchAll(/[ML][\d.]+ (-?[\d.]+)/g)].map((m) => Number(m[1])),
    );
    expect(Math.min(...legendYs)).toBeGreaterThan(Math.max(...pathYs));
    expect(svg).toContain("a very long baseline name (fitted on train) (4.5)"); // never cut with an ellipsis
    expect(svg).not.toContain("…");
  });

  it("widens for a title that states the message instead of cutting it", () => {
    const title = "Training NLL keeps falling after update 20 while validation NLL rises: the model memorises two documents";
    const svg = lineChart({ title, series });
    expect(svg).toContain(title);
    expect(Number(svg.match(/width="([\d.]+)"/)![1])).toBeGreaterThanOrEqual(textWidth(title, 15, true));
  });

  it("puts integer ticks on a discrete axis, every position when they fit, and draws the counts strip", () => {
    const pts = Array.from({ length: 8 }, (_, t) => [t, 1 + t / 10] as [number, number]);
    const svg = lineChart({
      title: "by position",
      series: [{ name: "nll", points: pts }],
      xInteger: true,
      counts: { name: "targets", points: pts.map(([t]) => [t, 10 - t]) },
    });
    const axis = svg.split('<g class="axes">')[1].split("</g>")[0];
    const labels = [...axis.matchAll(/text-anchor="middle" font-size="11" fill="#333">([^<]*)</g)].map((m) => m[1]);
    expect(labels).toEqual(["0", "1", "2", "3", "4", "5", "6", "7"]);
    expect(svg).toContain('<g class="counts">');
    expect((svg.split('<g class="counts">')[1].match(/<rect/g) ?? []).length).toBe(8);
  });
});

describe("label layout helpers", () => {
  it("spreadLabels keeps order, keeps the gap and stays inside the band when there is room", () => {
    // wanted 50, 51, 52 with gap 14 → 50, 64, 78; near the bottom (hi 60) they are pushed up to 32, 46, 60
    expect(spreadLabels([50, 51, 52], 14, 0, 100)).toEqual([50, 64, 78]);
    expect(spreadLabels([52, 50, 51], 14, 0, 60)).toEqual([60, 32, 46]);
    expect(spreadLabels([10, 90], 14, 0, 100)).toEqual([10, 90]); // far apart: untouched
  });

  it("integerTicks never returns a fraction", () => {
    expect(integerTicks(0, 7)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(integerTicks(0, 100, 10).every(Number.isInteger)).toBe(true);
    expect(integerTicks(0.5, 2.5)).toEqual([1, 2]);
  });

  it("measures wide glyphs wider than narrow ones and wraps notes instead of cutting them", () => {
    expect(textWidth("mmmm")).toBeGreaterThan(2 * textWidth("iiii"));
    const lines = wrapText("one two three four five six seven", textWidth("one two three"));
    expect(lines.join(" ")).toBe("one two three four five six seven");
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(textWidth("one two three"));
  });
  it("draws a single point as a dot and a flat series on a padded axis", () => {
    const single = lineChart({ title: "one", series: [{ name: "s", points: [[3, 1]] }] });
    assertWellFormed(single);
    expect(single).toContain("<circle");
    const flat = lineChart({
      title: "flat",
      series: [
        {
          name: "f",
          points: [
            [0, 2],
            [1, 2],
            [2, 2],
          ],
        },
      ],
    });
    assertWellFormed(flat);
    expect(flat).not.toContain("NaN");
    expect(flat.match(/<path d=/g)?.length).toBe(1);
  });

  it("copes with a long run (no argument-spreading limits)", () => {
    const points = Array.from({ length: 300_000 }, (_, i) => [i, 1 / (1 + i)] as [number, number]);
    expect(lineChart({ title: "long", series: [{ name: "l", points }] })).toContain("<path");
  });

  it("renders 'no data' for empty input and drops non-positive values on a log axis", () => {
    const empty = lineChart({ title: "empty", series: [{ name: "nothing", points: [] }] });
    assertWellFormed(empty);
    expect(empty).toContain("no data");
    const log = lineChart({
      title: "log",
      logY: true,
      series: [
        {
          name: "l",
          points: [
            [0, 10],
            [1, 0],
            [2, 1],
          ],
        },
      ],
    });
    assertWellFormed(log);
    expect(log).toContain("non-positive");
  });
});

describe("barChartWithIntervals", () => {
  const items = [
    { label: "news & <wire>", value: 3.41, lo: 3.35, hi: 3.47 },
    { label: "fiction", value: 3.12, lo: 3.05, hi: 3.2, note: "n=12" },
    { label: "missing", value: NaN },
  ];

  it("labels values with their intervals at one shared precision, in both orientations", () => {
    for (const orientation of ["horizontal", "vertical"] as const) {
      const svg = barChartWithIntervals(items, { title: "NLL", orientation });
      assertWellFormed(svg);
      expect(svg).toContain("news &amp; &lt;wire&gt;");
      expect(svg).toContain("[3.05, 3.20]");
      expect(svg).toContain("n/a");
      expect(svg).toContain("n=12");
      expect(svg).not.toContain("NaN");
    }
  });

  it("draws dots rather than truncated bars when zero is excluded", () => {
    const svg = barChartWithIntervals(items, { title: "NLL", includeZero: false });
    expect(svg).not.toMatch(/<rect[^>]*opacity="0.8"/);
    expect(svg.match(/<circle/g)?.length).toBe(2);
  });
});

describe("smoothEma", () => {
  it("follows s = a*v + (1-a)*s_prev from the first value", () => {
    // s0 = 1; s1 = 0.5*2 + 0.5*1 = 1.5; s2 = 0.5*3 + 0.5*1.5 = 2.25
    expect(smoothEma([1, 2, 3], 0.5)).toEqual([1, 1.5, 2.25]);
    expect(smoothEma([4, 5], 1)).toEqual([4, 5]);
  });

  it("passes NaN through without poisoning the average", () => {
    const s = smoothEma([1, NaN, 3], 0.5);
    expect(s[1]).toBeNaN();
    expect(s[2]).toBe(2);
  });

  it("rawAndSmoothed keeps the raw series, drawn first", () => {
    const [raw, smooth] = rawAndSmoothed(
      {
        name: "loss",
        points: [
          [0, 1],
          [1, 9],
          [2, 1],
        ],
      },
      0.1,
    );
    expect(raw.points.map((p) => p[1])).toEqual([1, 9, 1]); // the spike survives in the raw line
    expect(raw.name).toContain("raw");
    expect(smooth.name).toContain("EMA");
    expect(raw.color).toBe(smooth.color);
  });
});
