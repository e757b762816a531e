// `npm run screenshots`: runs the overfit experiment and the report of its seed-39 model through the CLI, then
// writes PNG screenshots (headless Chromium, tools/chromium.ts) of the overfit figure and of the report page's first
// screen under results/screenshots/, and copies the figure to docs/figures/overfit.svg for the README. Not a test.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { launchChromium, missingChromium, openPage, svgLayouts } from "./chromium.ts";

const root = resolve(import.meta.dirname, "..");
const results = join(root, "results");
const shots = join(results, "screenshots");

function tinylab(...args: string[]): void {
  const r = spawnSync(process.execPath, [join(root, "bin/tinylab.js"), ...args], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`tinylab ${args.join(" ")} exited ${r.status}`);
}

async function main(): Promise<void> {
  const missing = missingChromium();
  if (missing) throw new Error(missing);
  tinylab("overfit", "--out", results, "--save-model", join(results, "seed39.safetensors"));
  tinylab("report", "--model", join(results, "seed39.safetensors"), "--out", join(results, "report"));
  mkdirSync(shots, { recursive: true });
  mkdirSync(join(root, "docs/figures"), { recursive: true });
  copyFileSync(join(results, "overfit.svg"), join(root, "docs/figures/overfit.svg"));

  const browser = await launchChromium();
  try {
    // an SVG document cannot be screenshot as a page here: wrap it in HTML and shoot the element
    const figure = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await figure.setContent(
      `<!DOCTYPE html><html><body style="margin:0">${readFileSync(join(results, "overfit.svg"), "utf8")}</body></html>`,
    );
    await figure
      .locator("svg")
      .first()
      .screenshot({ path: join(shots, "overfit.png") });
    const { page, errors } = await openPage(browser, pathToFileURL(join(results, "report/report.html")).href, { width: 1280, height: 900 });
    await page.screenshot({ path: join(shots, "report-first-screen.png") });
    const problems = (await svgLayouts(page)).flatMap((l) => l.problems.map((p) => `${l.title}: ${p}`));
    for (const line of [...errors.map((e) => `console error: ${e}`), ...problems]) console.error(line);
    console.log(`wrote ${join(shots, "overfit.png")}\nwrote ${join(shots, "report-first-screen.png")}\nwrote docs/figures/overfit.svg`);
    if (errors.length + problems.length > 0) process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(`screenshots: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
