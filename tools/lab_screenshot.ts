// Writes a screenshot of the lab page after a run (overfit with its defaults, the gradient check and a re-score of
// the seed-39 fixture): `npm run lab:screenshot` → results/lab.png. Not a test: tests/browser/lab.test.ts checks the numbers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildLab } from "../src/cli/lab_build.ts";
import { serveLab } from "../src/cli/lab_server.ts";
import { writeOutput } from "../src/cli/common.ts";
import { launch, missingChromium, openLab, runOverfit } from "../web/drive.ts";

const { values } = parseArgs({ options: { out: { type: "string", default: "results" } } });
const missing = missingChromium();
if (missing !== undefined) throw new Error(missing);
const dir = mkdtempSync(join(tmpdir(), "tinylab-shot-"));
await buildLab(dir);
const server = await serveLab(dir, 0);
const browser = await launch();
try {
  const { page, errors } = await openLab(browser, server.url);
  await runOverfit(page);
  await page.click("#run-gradcheck");
  await page.waitForSelector("#gradcheck-status[data-passed], #gradcheck-status.error", { timeout: 120_000 });
  await page.setInputFiles("#model-file", resolve(import.meta.dirname, "../tests/fixtures/seed39-format2.safetensors"));
  await page.click("#rescore");
  await page.waitForSelector("#rescore-status[data-done], #rescore-status.error");
  if (errors.length > 0) throw new Error(`the page logged errors: ${errors.join("; ")}`);
  const path = join(values.out!, "lab.png");
  writeOutput(path, await page.screenshot({ fullPage: true }));
  console.log(`wrote ${path}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
