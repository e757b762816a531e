// Draws a figure for docs/benchmarks.md from bench/scale.sh's JSON lines (stdin): training and scoring tokens/s against the

//
//   (bash bench/scale.sh 3; bash bench/scale.sh 3 medium,large,xl 2 2 tfjs) | tee /tmp/scale.jsonl
//   npx tsx bench/scale_chart.ts < /tmp/scale.jsonl > scale.svg
import { readFileSync } from "node:fs";
import { lineChart, type Series } from "../src/util/render/line_chart.ts";

interface Line {
  config: string;
  parameters: number;
  engine: string;
  workers: number;
  peer_threads: number;
  tinylab_train_tokens_per_s: number;
  peer_train_tokens_per_s: number;
  tinylab_eval_tokens_per_s: number;
  peer_eval_tokens_per_s: number;
  peer_openblas_coretype_env: string | null;
  peer_openblas_coretype_inherited: string | null;
  peer_other_cpu_load: number;
}
const lines: Line[] = readFileSync(0, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
  .filter((l) => !("summary" in l)); // the per-config summaries after the pairs
if (lines.length === 0) throw new Error("scale_chart: no bench/scale.sh lines on stdin");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const params = [...new Set(lines.map((l) => l.parameters))].sort((a, b) => a - b);
const at = (of: Line[], key: keyof Line) =>
  params.flatMap((p) => {
    const xs = of.filter((l) => l.parameters === p).map((l) => l[key] as number);
    return xs.length > 0 ? [[p, median(xs)] as const] : [];
  });
const engines = [...new Set(lines.map((l) => l.engine))];
const ofEngine = (e: string) => lines.filter((l) => l.engine === e);
const series: Series[] = [
  ...engines.map((e): Series => ({
    name: `tinylab ${e}, ${ofEngine(e)[0].workers} workers: training`,
    points: at(ofEngine(e), "tinylab_train_tokens_per_s"),
  })),
  { name: `PyTorch, ${lines[0].peer_threads} threads: training`, points: at(lines, "peer_train_tokens_per_s") },
  ...engines.map((e): Series => ({ name: `tinylab ${e}: scoring`, points: at(ofEngine(e), "tinylab_eval_tokens_per_s"), dash: "6 3" })),
  { name: "PyTorch: scoring", points: at(lines, "peer_eval_tokens_per_s"), dash: "6 3" },
];
const cores = [...new Set(lines.map((l) => `${l.peer_openblas_coretype_env} (inherited ${l.peer_openblas_coretype_inherited})`))].join(
  ", ",
);
process.stdout.write(
  lineChart({
    title: "tokens/s against parameters (median of each config's pairs)",
    series,
    logY: true,
    xLabel: "parameters",
    yLabel: "tokens/s",
    xTicks: params,
    notes: [
      `configs ${[...new Set(lines.map((l) => l.config))].join(", ")}; ${lines.length} pairs (bash bench/scale.sh, one run per tinylab engine)`,
      `peer OpenBLAS kernel ${cores}; other CPU load the peer saw: ${Math.min(...lines.map((l) => l.peer_other_cpu_load))}–${Math.max(...lines.map((l) => l.peer_other_cpu_load))} CPUs`,
    ],
  }),
);
