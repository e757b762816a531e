// Drives the built lab page in Debian's Chromium through playwright-core (never a downloaded browser): used by
// tests/browser/lab.test.ts, tools/lab_screenshot.ts and bench/lab.ts (the launcher is tools/chromium.ts's). Not the
// page and not a test.
import type { Browser, Page } from "playwright-core";
import { launchChromium, missingChromium, openPage } from "../tools/chromium.ts";

/** Debian's Chromium through playwright-core, with the project's flags (tools/chromium.ts: one launcher for every browser test). */
export { launchChromium as launch, missingChromium };

/** The lab page, once its engine has started, with its console errors and uncaught exceptions collected. */
export async function openLab(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser, url);
  await opened.page.waitForSelector("#engine[data-backend]", { timeout: 60_000 });
  return opened;
}

/** Every shown number of the page by its data-metric key: the 6-decimal text and the full double. */
export async function shownNumbers(page: Page): Promise<Record<string, { text: string; exact: number }>> {
  return page.$$eval("[data-metric][data-exact]", (els) =>
    Object.fromEntries(
      els.map((e) => [e.getAttribute("data-metric")!, { text: e.textContent!.trim(), exact: Number(e.getAttribute("data-exact")) }]),
    ),
  );
}

/** Press Run with the form as it is and wait for the result; returns the worker's compute seconds. */
export async function runOverfit(page: Page, timeoutMs = 300_000): Promise<number> {
  await page.waitForSelector("#run-overfit:not([disabled])");
  await page.evaluate(() => {
    delete document.getElementById("overfit-status")!.dataset.done;
  });
  await page.click("#run-overfit");
  await page.waitForSelector("#overfit-status[data-done], #overfit-status.error", { timeout: timeoutMs });
  const status = await page.$eval("#overfit-status", (e) => ({ text: e.textContent ?? "", seconds: (e as HTMLElement).dataset.seconds }));
  if (status.seconds === undefined) throw new Error(`the overfit run failed in the page: ${status.text}`);
  return Number(status.seconds);
}

/** The engine the page reports: backend and wasm thread count. */
export async function pageEngine(page: Page): Promise<{ backend: string; threads: number; text: string }> {
  return page.$eval("#engine", (e) => ({
    backend: (e as HTMLElement).dataset.backend!,
    threads: Number((e as HTMLElement).dataset.threads),
    text: e.textContent ?? "",
  }));
}
