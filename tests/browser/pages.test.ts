// The generated report page and the overfit figure rendered in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core): no console errors, every figure a non-empty box, no two text labels of a figure overlapping and
// none clipped by its SVG (from the rendered boxes), the headline table within the first 900 px. One browser for all.
// Required in CI (TINYLAB_REQUIRE_BROWSER=1 from .ci/run); elsewhere skipped, naming the apt command, without chromium.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_INSTALL, launchChromium, missingChromium, openPage, svgLayouts } from "../../tools/chromium.ts";
import { allBaselines } from "../../src/baselines/ngram.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { buildReport } from "../../src/eval/report/build.ts";
import { reportHtml } from "../../src/eval/render/report_page.ts";
import { runOverfit } from "../../experiments/overfit.ts";
import { overfitFigure } from "../../experiments/overfit/figure.ts";
import { tinyData, tinyDecoder } from "../eval/tiny_model.ts";
import { useBackend } from "../helpers.ts";

const REQUIRE_BROWSER = process.env.TINYLAB_REQUIRE_BROWSER === "1";
const missing = missingChromium();
const SKIP = missing !== undefined && !REQUIRE_BROWSER;
if (SKIP) console.warn(`skipping the browser tests: ${missing}; install it with ${CHROMIUM_INSTALL}`);

/** The headline must be readable without scrolling on a laptop screen. */
const FIRST_SCREEN_PX = 900;

describe.skipIf(SKIP)("pages in headless Chromium", () => {
  let browser: Browser;
  let dir: string;
  const files: Record<string, string> = {};
  beforeAll(async () => {
    if (missing) throw new Error(`the browser tests need ${missing}`);
    dir = mkdtempSync(join(tmpdir(), "tinylab-browser-"));
    await useBackend("cpu");
    const model = tinyDecoder(15);
    try {
      const { tokenizer, docs } = tinyData();
      const adapter = decoderAdapter(model, { name: "tiny fixture decoder" });
      const report = buildReport(adapter, tokenizer, docs, {
        baselines: allBaselines(
          docs.filter((d) => d.split === "train"),
          adapter.binding,
        ),
        stride: 4,
        seed: 3,
        replicates: 100,
        generation: { prompts: 3, maxTokens: 12, samplesPerPrompt: 2 },
        verbatim: { prompts: 2, promptTokens: 6, continueTokens: 10 },
        canary: { text: "the cat sat.", secretTokens: 3 },
      });
      files.report = join(dir, "report.html");
      writeFileSync(files.report, reportHtml(report));
    } finally {
      model.dispose();
    }
    files.overfit = join(dir, "overfit.svg");
    writeFileSync(files.overfit, overfitFigure(((r) => ({ ...r, targets: r.data.targets }))(runOverfit()))); // the real figure: 3 seeds × 80 updates, a few seconds
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const layoutOf = async (file: string) => {
    const { page, errors } = await openPage(browser, pathToFileURL(file).href);
    const layouts = await svgLayouts(page);
    return { page, errors, layouts };
  };

  it("renders the report page: no console errors, every figure legible, the headline on the first screen", async () => {
    const { page, errors, layouts } = await layoutOf(files.report);
    expect(errors).toEqual([]);
    expect(layouts.length).toBeGreaterThanOrEqual(3);
    for (const l of layouts) {
      expect(l.width * l.height, l.title).toBeGreaterThan(0);
      expect(l.labels, l.title).toBeGreaterThan(3);
      expect(l.problems, l.title).toEqual([]);
    }
    const top = await page.locator("#headline").evaluate((t) => t.getBoundingClientRect().top + window.scrollY);
    expect(top).toBeLessThan(FIRST_SCREEN_PX);
    await page.close();
  });

  it("renders the overfit figure with every label inside the SVG and none overlapping", async () => {
    const { page, errors, layouts } = await layoutOf(files.overfit);
    expect(errors).toEqual([]);
    expect(layouts.length).toBe(1);
    expect(layouts[0].width * layouts[0].height).toBeGreaterThan(0);
    expect(layouts[0].labels).toBeGreaterThan(10);
    expect(layouts[0].problems).toEqual([]);
    await page.close();
  });

  it("fails on a figure whose label was moved outside the SVG box, or onto another label", async () => {
    const { readFileSync } = await import("node:fs");
    const svg = readFileSync(files.overfit, "utf8");
    // the first end-of-line label moved 400 px right, past the SVG's width
    const moved = svg.replace(
      /(<g class="end-labels">(?:<path[^>]*\/>)?<text x=")([\d.]+)/,
      (_, pre: string, x: string) => `${pre}${Number(x) + 400}`,
    );
    expect(moved).not.toBe(svg);
    const clipped = join(dir, "clipped.svg");
    writeFileSync(clipped, moved);
    const a = await layoutOf(clipped);
    expect(a.layouts[0].problems.some((p) => p.includes("clipped"))).toBe(true);
    // the title drawn a second time over itself
    const doubled = svg.replace(/(<text [^>]*font-weight="bold"[^>]*>[^<]*<\/text>)/, "$1$1");
    const overlapping = join(dir, "overlapping.svg");
    writeFileSync(overlapping, doubled);
    const b = await layoutOf(overlapping);
    expect(b.layouts[0].problems.some((p) => p.includes("overlaps"))).toBe(true);
    await Promise.all([a.page.close(), b.page.close()]);
  });
});
