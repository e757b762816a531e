// Benchmark: compute time of the default overfit experiment in the lab page (wasm single-thread and threaded) against
// Node (the CLI's runOverfit on wasm), in interleaved rounds, one fresh process or page per measurement. Not a test.
// Usage: npx tsx bench/lab.ts [--rounds 3] [--threads 2]; prints JSON with per-round page/Node ratios and their medians.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { buildLab } from "../src/cli/lab_build.ts";
import { serveLab } from "../src/cli/lab_server.ts";
import { launch, openLab, pageEngine, runOverfit } from "../web/drive.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: "2" },
    once: { type: "boolean", default: false },
  },
});

if (values.once) {
  // one Node measurement, in its own process (the parent spawns this): runOverfit as `tinylab overfit` calls it
  const { initBackend } = await import("../src/util/backend.ts");
  const { runOverfit: run } = await import("../experiments/overfit.ts");
  await initBackend("wasm");
  const t0 = performance.now();
  run();
  console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000 }));
  process.exit(0);
}

function nodeSeconds(): number {
  const r = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--once"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`node measurement failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!).seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), "tinylab-bench-lab-"));
await buildLab(dir);
const server = await serveLab(dir, 0);
const browser = await launch();
// single: the single-thread SIMD binary; default: the page as it opens (threaded binary, tfjs-wasm's own thread count,
// hardwareConcurrency / 2); threaded: the threaded binary with --threads XNNPACK threads
const variants = { single: "?threads=0", default: "", threaded: `?nthreads=${values.threads}` } as const;
const rounds: Record<string, number | string>[] = [];
try {
  for (let i = 0; i < Number(values.rounds); i++) {
    // the order rotates each round so no variant always runs first (or right after the build)
    const order = [["node", ""], ...Object.entries(variants)] as [string, string][];
    const row: Record<string, number | string> = { round: i + 1 };
    for (const [name, query] of [...order.slice(i % order.length), ...order.slice(0, i % order.length)]) {
      if (name === "node") {
        row.node_s = +nodeSeconds().toFixed(3);
        continue;
      }
      const { page } = await openLab(browser, server.url + query);
      const e = await pageEngine(page);
      row[`page_${name}_s`] = +(await runOverfit(page)).toFixed(3);
      row[`page_${name}_threads`] = e.threads;
      await page.close();
    }
    for (const name of Object.keys(variants))
      row[`ratio_${name}_to_node`] = +((row[`page_${name}_s`] as number) / (row.node_s as number)).toFixed(3);
    rounds.push(row);
    console.error(JSON.stringify(row));
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
const medians = Object.fromEntries(
  Object.keys(variants).map((n) => [`median_ratio_${n}_to_node`, median(rounds.map((r) => r[`ratio_${n}_to_node`] as number))]),
);
console.log(
  JSON.stringify(
    { what: "default overfit experiment (3 seeds × 80 updates), compute only (engine started, page loaded)", rounds, ...medians },
    null,
    2,
  ),
);
