// The lab page in headless Chromium (Debian's /usr/bin/chromium through playwright-core): the overfit experiment with
// its defaults shows the published numbers and the CLI's own doubles, a dropped model file re-scores as `tinylab
// evaluate` does, the gradient check and the report viewer work, the download has the CLI's shape, and no console error.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLab } from "../../src/cli/lab_build.ts";
import { serveLab, type LabServer } from "../../src/cli/lab_server.ts";
import { launch, missingChromium, openLab, pageEngine, runOverfit, shownNumbers } from "../../web/drive.ts";
import { tinylab, type Finished } from "../cli/spawn.ts";

/** CI sets TINYLAB_REQUIRE_BROWSER=1 (.ci/run installs chromium): there a missing browser fails the suite. */
const REQUIRE_BROWSER = process.env.TINYLAB_REQUIRE_BROWSER === "1";
const MISSING = missingChromium();
const SKIP = MISSING !== undefined && !REQUIRE_BROWSER;
if (SKIP) console.warn(`skipping the browser tests: ${MISSING}`);

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
/** Published in the README: the weighting probe and the add-one bigram, which match the reference text to 6 decimals. */
const PUBLISHED = {
  "probe:correct:mean_nll": "0.924196",
  "probe:correct:perplexity": "2.519842",
  "probe:wrong:mean_nll": "0.953077",
  "probe:wrong:perplexity": "2.603421",
  "baseline:bigram (add-1):train:nll": "4.402665",
  "baseline:bigram (add-1):train:perplexity": "81.668227",
  "baseline:bigram (add-1):validation:nll": "5.044970",
  "baseline:bigram (add-1):validation:perplexity": "155.239620",
  // the neural validation finals of `npx tinylab overfit` on wasm (README)
  "run:39:80:validation:nll": "4.364098",
  "run:40:80:validation:nll": "4.621237",
  "run:41:80:validation:nll": "4.733466",
};

const json = (f: Finished) => {
  if (f.code !== 0) throw new Error(`tinylab exited ${f.code}: ${f.stderr}`);
  return JSON.parse(f.stdout);
};

/** Key paths of a JSON value (arrays by their first element), to compare shapes and not values. */
function shape(v: unknown, path = "$"): string[] {
  if (Array.isArray(v)) return [path, ...(v.length > 0 ? shape(v[0], `${path}[]`) : [])];
  if (v !== null && typeof v === "object")
    return [
      path,
      ...Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .flatMap(([k, x]) => shape(x, `${path}.${k}`)),
    ];
  return [`${path}:${typeof v}`];
}

describe.skipIf(SKIP)("the lab page in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-lab-"));
  let server: LabServer, browser: Browser, page: Page, errors: string[];
  // the CLI's runs overlap the build and finish before the page computes (two threads spin badly on a busy CPU)
  let cli: [Finished, Finished, Finished];

  beforeAll(async () => {
    if (MISSING !== undefined) throw new Error(`the browser tests need chromium: ${MISSING}`);
    const runs = Promise.all([
      tinylab(["overfit", "--json", "--no-figures", "--out", join(dir, "cli")]),
      tinylab(["evaluate", "--model", FIXTURE, "--batch-rows", "1", "--json"]),
      tinylab(["report", "--model", FIXTURE, "--out", join(dir, "report")]),
    ] as const);
    await buildLab(join(dir, "page"));
    cli = [...(await runs)];
    server = await serveLab(join(dir, "page"), 0);
    browser = await launch();
    // the page as it opens: threads on, as many as tfjs-wasm picks (hardwareConcurrency / 2: one on 2 cores)
    ({ page, errors } = await openLab(browser, server.url));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is cross-origin isolated and shows its engine: wasm with threads", async () => {
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
    const e = await pageEngine(page);
    const expected = Math.min(8, Math.max(1, Math.floor((await page.evaluate(() => navigator.hardwareConcurrency)) / 2)));
    expect(e).toMatchObject({ backend: "wasm", threads: expected });
    expect(e.text).toMatch(/^engine: wasm, \d+ threads?, SIMD on; cross-origin isolated: yes/);
  });

  it("runs the overfit experiment with its defaults: the published numbers, and the CLI's doubles bit for bit", async () => {
    await runOverfit(page);
    const shown = await shownNumbers(page);
    for (const [metric, text] of Object.entries(PUBLISHED)) expect(shown[metric]?.text, metric).toBe(text);
    // every checkpoint of every seed, and every baseline: the same float64 value as the CLI's JSON on wasm
    const [overfit] = cli;
    const r = json(overfit);
    let compared = 0;
    for (const run of r.runs)
      for (const c of run.checkpoints)
        for (const split of ["train", "validation"]) {
          expect(shown[`run:${run.seed}:${c.update}:${split}:nll`]?.exact, `seed ${run.seed} update ${c.update} ${split}`).toBe(
            c[split].nll,
          );
          compared++;
        }
    for (const b of r.baselines) expect(shown[`baseline:${b.name}:validation:nll`]?.exact, b.name).toBe(b.validation.nll);
    expect(compared).toBe(3 * 5 * 2);
    expect(shown["layout:largest_difference"].exact).toBe(0);
    // the live figure is the CLI's: one solid and one dashed line per seed, baselines as labelled lines
    const figure = await page.$eval("#curves svg", (s) => s.outerHTML);
    for (const label of ["seed 39, validation", "seed 41, train", "bigram"]) expect(figure).toContain(label);
  });

  it("downloads the run's JSON in the CLI's shape, with provenance saying browser, backend and threads", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
    const got = JSON.parse(readFileSync(await download.path(), "utf8"));
    const cliResult = json(cli[0]);
    const extra = ["runtime", "threads", "simd", "cross_origin_isolated", "user_agent"].map((k) => `$.provenance.${k}`);
    expect(shape(got).filter((p) => !extra.some((e) => p.startsWith(e)))).toEqual(shape(cliResult));
    expect(got.provenance).toMatchObject({
      runtime: "browser",
      backend: "wasm",
      threads: (await pageEngine(page)).threads,
      simd: true,
      cross_origin_isolated: true,
      node: "none (browser)",
    });
    expect(got.provenance.command).toMatch(/^tinylab overfit --seeds 39,40,41 --updates 80 --checkpoints 0,10,20,40,80 --lr 0.02/);
    expect(got.runs.map((x: { checkpoints: { validation: { nll: number } }[] }) => x.checkpoints[4].validation.nll)).toEqual(
      cliResult.runs.map((x: { checkpoints: { validation: { nll: number } }[] }) => x.checkpoints[4].validation.nll),
    );
  });

  /** Drop the fixture on the page's drop zone, press Re-score, and compare with `tinylab evaluate --batch-rows 1`. */
  async function rescoreMatchesEvaluate(p: Page): Promise<void> {
    const bytes = [...readFileSync(FIXTURE)];
    await p.evaluate((b) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(b)], "seed39-format2.safetensors"));
      document.getElementById("drop")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    await p.click("#rescore");
    await p.waitForSelector("#rescore-status[data-done], #rescore-status.error");
    const shown = await shownNumbers(p);
    const evaluate = json(cli[1]);
    expect(await p.textContent("#model-sha256")).toBe(evaluate.model_sha256);
    for (const split of ["train", "validation"]) {
      expect(shown[`rescore:${split}:nll`]?.exact, split).toBe(evaluate.splits[split].nll);
      expect(shown[`rescore:${split}:perplexity`]?.exact, split).toBe(evaluate.splits[split].perplexity);
    }
    expect(shown["rescore:validation:nll"].text).toBe("4.364098");
  }

  it("re-scores the dropped seed-39 model file exactly as tinylab evaluate does, and shows its sha256", async () => {
    await rescoreMatchesEvaluate(page);
  });

  it("a refused re-score names its field (--stride) and leaves no earlier model's sha256 or table under the error", async () => {
    await rescoreMatchesEvaluate(page);
    await page.fill("#stride", "9");
    await page.click("#rescore");
    await page.waitForSelector("#rescore-status.error");
    expect(await page.textContent("#rescore-status")).toBe("error: --stride must be an integer in [1, 8] (the model's context), got 9");
    expect([await page.$("#model-sha256"), await page.innerHTML("#rescore-result")]).toEqual([null, ""]);
    await page.fill("#stride", "");
    await rescoreMatchesEvaluate(page); // the page's rule: no stride = the context, as every scorer
    expect(await page.textContent("#rescore-stride")).toBe("stride 8 (= the context)");
  });

  it("re-scores it to the same doubles with two XNNPACK threads (threads split work, not sums)", async () => {
    const two = await openLab(browser, `${server.url}?nthreads=2`);
    try {
      expect(await pageEngine(two.page)).toMatchObject({ backend: "wasm", threads: 2 });
      await rescoreMatchesEvaluate(two.page);
      expect(two.errors).toEqual([]);
    } finally {
      await two.page.close();
    }
  });

  it("checks every gradient of the overfit config and shows the per-tensor table", async () => {
    await page.click("#run-gradcheck");
    await page.waitForSelector("#gradcheck-status[data-passed], #gradcheck-status.error", { timeout: 120_000 });
    expect(await page.getAttribute("#gradcheck-status", "data-passed")).toBe("true");
    expect(await page.textContent("#gradcheck-status")).toMatch(/^PASSED: 2808 coordinates/);
    const rows = await page.$$eval("[data-metric^='gradcheck:']", (els) => els.map((e) => [e.getAttribute("data-metric"), e.textContent]));
    expect(rows).toHaveLength(16);
    expect(rows.every(([, ok]) => ok === "ok")).toBe(true);
  });

  it("draws a CLI report.json with the report page's own code", async () => {
    const [, , report] = cli;
    expect(report.code).toBe(0);
    await page.setInputFiles("#report-file", join(dir, "report", "report.json"));
    await page.waitForSelector("#report-frame:not([hidden])");
    const html = await page.getAttribute("#report-frame", "srcdoc");
    expect(html).toBe(readFileSync(join(dir, "report", "report.html"), "utf8"));
  });

  it("logged no console error and threw no page error", () => {
    expect(errors).toEqual([]);
  });
});
