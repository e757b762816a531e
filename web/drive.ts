// Drives the built lab page in Debian's Chromium through playwright-core (never a downloaded browser): used by
// tests/browser/lab.test.ts, web/screenshot.ts and bench/lab.ts. Not the page and not a test.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** Headless and quiet: no GPU, no network beyond the page, no updates or sync, no first-run screens. */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
/** The one-line reason a browser test cannot run here, naming the install. */
export const NO_CHROMIUM = `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`;

export const hasChromium = (): boolean => existsSync(CHROMIUM);

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A page that collects console errors and uncaught exceptions (a test asserts there are none). */
export async function openLab(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector("#engine[data-backend]", { timeout: 60_000 });
  return { page, errors };
}

/** Every shown number of the page by its data-metric key: the 6-decimal text and the full double. */
export async function shownNumbers(page: Page): Promise<Record<string, { text: string; exact: number }>> {
  return page.$$eval("[data-metric][data-exact]", (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute("data-metric")!, { text: e.textContent!.trim(), exact: Number(e.getAttribute("data-exact")) }])));
}

/** Press Run with the form as it is and wait for the result; returns the worker's compute seconds. */
export async function runOverfit(page: Page, timeoutMs = 300_000): Promise<number> {
  await page.waitForSelector("#run-overfit:not([disabled])");
  await page.evaluate(() => { delete document.getElementById("overfit-status")!.dataset.done; });
  await page.click("#run-overfit");
  await page.waitForSelector("#overfit-status[data-done], #overfit-status.error", { timeout: timeoutMs });
  const status = await page.$eval("#overfit-status", (e) => ({ text: e.textContent ?? "", seconds: (e as HTMLElement).dataset.seconds }));
  if (status.seconds === undefined) throw new Error(`the overfit run failed in the page: ${status.text}`);
  return Number(status.seconds);
}

/** The engine the page reports: backend and wasm thread count. */
export async function pageEngine(page: Page): Promise<{ backend: string; threads: number; text: string }> {
  return page.$eval("#engine", (e) => ({ backend: (e as HTMLElement).dataset.backend!, threads: Number((e as HTMLElement).dataset.threads), text: e.textContent ?? "" }));
}
