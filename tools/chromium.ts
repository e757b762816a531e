// Headless Chromium for the browser test and the screenshots script: launches Debian's /usr/bin/chromium through
// playwright-core (never downloads a browser) and measures rendered layout. Not a test itself.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.TINYLAB_CHROMIUM ?? "/usr/bin/chromium";
export const CHROMIUM_INSTALL = "apt-get install -y chromium";

/** Why the browser cannot be launched here, or undefined. */
export function missingChromium(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (Debian: ${CHROMIUM_INSTALL})`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** A page that records console errors and uncaught exceptions, for a check after loading. */
export async function openPage(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url, { waitUntil: "load" });
  return { page, errors };
}

/** What the layout check found in one SVG: its rendered size and every overlap or clipping of its text labels. */
export interface SvgLayout {
  readonly index: number;
  readonly title: string;
  readonly width: number;
  readonly height: number;
  readonly labels: number;
  readonly problems: string[];
}

/**
 * Every <svg> of the page: rendered box, and from the rendered boxes of its <text> elements, any two that overlap
 * (by more than `slack` px each way) and any that reach outside the SVG's own box. Runs in the page.
 */
export async function svgLayouts(page: Page, slack = 0.5): Promise<SvgLayout[]> {
  return page.evaluate((slack) => {
    const out: SvgLayout[] = [];
    document.querySelectorAll("svg").forEach((svg, index) => {
      const box = svg.getBoundingClientRect();
      const title = svg.querySelector(":scope > title")?.textContent ?? "";
      const texts = [...svg.querySelectorAll("text")].filter((t) => (t.textContent ?? "").trim() !== "");
      const rects = texts.map((t) => ({ s: t.textContent ?? "", r: t.getBoundingClientRect() }));
      const problems: string[] = [];
      for (const { s, r } of rects) {
        if (r.left < box.left - slack || r.right > box.right + slack || r.top < box.top - slack || r.bottom > box.bottom + slack) {
          problems.push(
            `"${s}" clipped: [${r.left.toFixed(1)}, ${r.right.toFixed(1)}] × [${r.top.toFixed(1)}, ${r.bottom.toFixed(1)}] outside the SVG [${box.left.toFixed(1)}, ${box.right.toFixed(1)}] × [${box.top.toFixed(1)}, ${box.bottom.toFixed(1)}]`,
          );
        }
      }
      for (let i = 0; i < rects.length; i++) {
        for (let j = i + 1; j < rects.length; j++) {
          const [a, b] = [rects[i].r, rects[j].r];
          const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (dx > slack && dy > slack) problems.push(`"${rects[i].s}" overlaps "${rects[j].s}" by ${dx.toFixed(1)} × ${dy.toFixed(1)} px`);
        }
      }
      out.push({ index, title, width: box.width, height: box.height, labels: rects.length, problems });
    });
    return out;
  }, slack);
}
