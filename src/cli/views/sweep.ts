// The sweep's table across runs (experiments/sweep.ts, src/node/sweep_runner.ts). Presentation only.
import type { SweepRow } from "../../node/sweep_results.ts";
import { csvTable } from "../../util/formats/csv.ts";

/** The table across runs, in row order. */
export function formatSweep(rows: readonly SweepRow[]): string {
  const f = (x: number | null) => (x === null ? "n/a" : x.toFixed(6));
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.grid)))];
  const head = [
    "run".padEnd(Math.max(3, ...rows.map((r) => r.name.length))),
    "recipe ",
    "seed".padStart(6),
    ...keys.map((k) => k.padStart(10)),
    "train NLL".padStart(11),
    "valid NLL".padStart(11),
  ];
  const lines = [head.join("  ")];
  for (const r of rows)
    lines.push(
      [
        r.name.padEnd(head[0].length),
        r.recipe.padEnd(7),
        String(r.seed).padStart(6),
        ...keys.map((k) => (r.grid[k] ?? "").padStart(10)),
        f(r.train_nll).padStart(11),
        f(r.validation_nll).padStart(11),
      ].join("  "),
    );
  const reasons = [
    ...new Set(
      rows
        .flatMap((r) => [
          r.train_nll === null ? `train NLL n/a: ${r.train_nll_reason ?? "not reported by the run"}` : "",
          r.validation_nll === null ? `valid NLL n/a: ${r.validation_nll_reason ?? "not reported by the run"}` : "",
        ])
        .filter((x) => x),
    ),
  ];
  return [...lines, ...reasons].join("\n");
}

/** The same table for a spreadsheet (sweep.csv): one row per run, a column per grid option, full-precision NLLs and the reasons beside an empty one. */
export function sweepCsv(rows: readonly SweepRow[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.grid)))];
  return csvTable(
    ["run", "recipe", "seed", ...keys, "train_nll", "train_nll_reason", "validation_nll", "validation_nll_reason", "result"],
    rows.map((r) => [
      r.name,
      r.recipe,
      r.seed,
      ...keys.map((k) => r.grid[k] ?? null),
      r.train_nll,
      r.train_nll_reason ?? null,
      r.validation_nll,
      r.validation_nll_reason ?? null,
      r.result,
    ]),
  );
}
