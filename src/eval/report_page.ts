// The report as a standalone HTML page: tables of every namespace and SVG figures (per-source NLL with
// intervals, loss by position, reliability diagrams with the diagonal). Presentation only: no metric here.
import { barChartWithIntervals, lineChart } from "../util/charts.ts";
import { escapeHtml, htmlPage, htmlTable, type Cell, type HtmlSection } from "../util/html.ts";
import { PALETTE } from "../util/svg.ts";
import { reliabilityDiagram } from "./figures.ts";
import type { Report } from "./report.ts";

// a quantity without a value is null in the report (reasoned.ts); the page says n/a, the JSON keeps the reason
const r4 = (x: number | null): Cell => (x !== null && Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : "n/a");
const ivl = (b: { lo: number; hi: number } | null, reason?: string): string => (b ? `[${r4(b.lo)}, ${r4(b.hi)}]` : `n/a (${reason ?? "undefined"})`);
const pre = (x: unknown) => `<pre>${escapeHtml(JSON.stringify(x, null, 2))}</pre>`;
const para = (s: string) => `<p>${escapeHtml(s)}</p>`;

export function reportHtml(r: Report): string {
  const ids = r.identities;
  const sections: HtmlSection[] = [
    {
      heading: "Identities",
      html: htmlTable(["what", "identity", "settings"], [
        ["model", `${ids.model.name}${ids.model.path ? ` (${ids.model.path})` : ""}`, ids.model.sha256 ? `sha256 ${ids.model.sha256}` : "in memory, no file"],
        ["data", r.data.description, r.data.path ?? ""],
        ...Object.entries(ids.evaluators).map(([k, e]): Cell[] => [k, e.id, JSON.stringify(e.settings)]),
      ]),
    },
    {
      heading: `Perplexity by split and source (stride ${r.perplexity.stride}, context ${r.perplexity.context_length})`,
      html:
        htmlTable(["split", "source", "documents", "windows", "targets", "NLL (nats/target)", "perplexity", "95% block bootstrap", "stride"],
          r.perplexity.groups.map((g, i) => {
            const iv = r.intervals.perplexity_by_group[i];
            return [g.split, g.source, g.documents, g.windows, g.targets, r4(g.nll), r4(g.perplexity), ivl(iv.block_bootstrap_95, iv.block_bootstrap_95_reason), g.stride];
          })) +
        barChartWithIntervals(
          r.intervals.perplexity_by_group.map((g) => ({ label: `${g.split} / ${g.source}`, value: g.nll, lo: g.block_bootstrap_95?.lo ?? g.nll, hi: g.block_bootstrap_95?.hi ?? g.nll, note: g.block_bootstrap_95 ? `n=${g.targets}` : `n=${g.targets}, one window: no interval` })),
          { title: `NLL per split and source, stride ${r.perplexity.stride}`, valueLabel: "NLL (nats per target)", notes: [`95% moving-block bootstrap over windows, ${r.intervals.settings.replicates} replicates; n = scored targets`] },
        ),
    },
    {
      heading: `Bits per byte (stride ${r.bits_per_byte.stride})`,
      html: para(r.bits_per_byte.definition) + htmlTable(["split", "source", "targets", "bytes", "chars", "bytes/target", "bits per byte", "95% block bootstrap", "bits per char", "stride"],
        r.bits_per_byte.groups.map((g, i) => {
          const iv = r.intervals.bits_per_byte_by_group[i];
          return [g.split, g.source, g.targets, g.bytes, g.chars, r4(g.bytes_per_target), r4(g.bits_per_byte), ivl(iv.block_bootstrap_95, iv.block_bootstrap_95_reason), r4(g.bits_per_char), g.stride];
        })),
    },
    {
      heading: `Loss by position within the window (stride ${r.loss_by_position.stride})`,
      html: lineChart({
        title: `Loss by position, non-overlapping windows (stride ${r.loss_by_position.stride})`,
        xLabel: "position in window (tokens of context − 1)",
        yLabel: "NLL (nats per target)",
        series: r.loss_by_position.by_split.map((s, i) => ({ name: s.split, points: s.positions.map((p) => [p.position, p.nll] as [number, number]), color: PALETTE[i % PALETTE.length], marker: true })),
        notes: [r.loss_by_position.note],
      }),
    },
    {
      heading: `Next-token calibration (stride ${r.calibration.stride}, ${r.calibration.bins} ${r.calibration.scheme} bins)`,
      html: r.calibration.by_split.map((c, i) => {
        const w = r.intervals.next_token_accuracy[i].wilson95;
        return `<h3>${escapeHtml(c.split)}</h3>` + para(`${c.definition}. Accuracy ${c.accuracy.correct}/${c.accuracy.predictions}${w ? ` (Wilson 95% [${r4(w.lo)}, ${r4(w.hi)}])` : ""}; ECE ${c.report.ece === null ? `n/a (${c.report.ece_reason})` : r4(c.report.ece)} over ${c.report.populatedBins} populated bins; Brier ${r4(c.report.brier)}.`) +
          reliabilityDiagram(c.report.bins, { title: `Reliability, ${c.split} (stride ${c.stride})`, ece: c.report.ece ?? undefined }) +
          htmlTable(["bin", "count", "mean confidence", "accuracy"], c.report.bins.map((b) => [`[${r4(b.lo)}, ${r4(b.hi)}]`, b.count, r4(b.meanConfidence), r4(b.accuracy)]));
      }).join("\n"),
    },
    {
      heading: "Generation: samples and greedy margins",
      html: htmlTable(["document", "sample", "prompt", "continuation"], r.generation.samples.map((s) => [s.doc, s.sample, s.prompt, s.text])) +
        htmlTable(["document", "prompt", "greedy token", "p", "runner-up", "margin (logits)"], r.generation.greedy_margins.map((m) => [m.doc, m.prompt, JSON.stringify(m.token_text), r4(m.probability), JSON.stringify(m.runner_up_text), r4(m.margin_logits)])),
    },
    {
      heading: "N-gram overlap of samples with training text, by order",
      html: para(r.overlap.definition) + htmlTable(["n", "mean overlap", "samples scored"], r.overlap.orders.map((o) => [o.n, r4(o.mean_overlap), o.samples_scored])),
    },
    {
      heading: "Diversity of samples",
      html: htmlTable(["distinct-1", "distinct-2", "unique sequences", "mean pairwise 2-gram Jaccard", "samples"], [[r4(r.diversity.distinct_1), r4(r.diversity.distinct_2), r4(r.diversity.unique_sequence_ratio), r4(r.diversity.mean_pairwise_jaccard_2), r.diversity.samples]]),
    },
    { heading: "Memorization", html: verbatimHtml(r) + `<h3>canary</h3>` + pre(r.memorization.canary) },
    { heading: "Contamination: word n-gram audit against the training documents", html: contaminationHtml(r) },
    { heading: "Count baselines (same windows, same stride)", html: "groups" in r.baselines ? htmlTable(["baseline", "split", "source", "targets", "NLL", "stride"], r.baselines.groups.map((g) => [g.baseline, g.split, g.source, g.targets, r4(g.nll), g.stride])) : para(r.baselines.status) },
    { heading: "Provenance", html: pre(r.provenance) },
  ];
  return htmlPage({ title: `tinylab evaluation report: ${ids.model.name}`, sections });
}

function verbatimHtml(r: Report): string {
  const v = r.memorization.verbatim;
  if (!("train_prompts" in v)) return para(v.status);
  const rows = [...v.train_prompts.rows, ...v.held_out_prompts.rows].map((x) => [x.split, x.doc, x.prompt, x.continuation, x.longest_match, x.match]);
  return para(`Longest verbatim match with training text, in ${v.unit}: training prompts mean ${r4(v.train_prompts.mean_longest_match)} (max ${v.train_prompts.max_longest_match}), held-out prompts mean ${r4(v.held_out_prompts.mean_longest_match)} (max ${v.held_out_prompts.max_longest_match}).`) +
    htmlTable(["split", "document", "prompt", "greedy continuation", "longest match", "match"], rows);
}

function contaminationHtml(r: Report): string {
  const c = r.contamination;
  if (!("splits" in c)) return para(c.status);
  return para(`${c.n}-grams, flagged at any shared ${c.n}-gram, against ${c.against}; ${c.note}.`) +
    htmlTable(["split", "documents", "flagged", "unauditable", "NLL, all documents", "NLL, unflagged only", "flagged ids"],
      c.splits.map((s) => [s.split, s.documents, s.flagged.length, s.unauditable, `${r4(s.all_documents.nll)} (${s.all_documents.targets} targets)`, `${r4(s.unflagged_documents.nll)} (${s.unflagged_documents.targets} targets)`, s.flagged.join(", ")]));
}
