// The report as a standalone HTML page: the headline (model beside every baseline, per split and source, with
// intervals) first, then figures, then the detailed sections, identities and provenance last. Presentation only.
import { barChartWithIntervals, lineChart } from "../util/charts.ts";
import { escapeHtml, flatEntries, htmlPage, htmlTable, keyValueTable, type Cell, type HtmlSection } from "../util/html.ts";
import { paletteColor, dashFor } from "../util/svg.ts";
import { continuationText, tokenText, visibleText } from "../util/text_view.ts";
import { reliabilityDiagram } from "./figures.ts";
import type { Report } from "./report.ts";

type Interval = { lo: number; hi: number } | null | undefined;
// a quantity without a value is null in the report (reasoned.ts); the page says n/a, the JSON keeps the reason
const fixed = (x: number | null | undefined, d = 4): string => (x !== null && x !== undefined && Number.isFinite(x) ? x.toFixed(d) : "n/a");
const withIv = (x: number | null | undefined, iv: Interval, f: (v: number) => number = (v) => v, d = 4): string =>
  `${fixed(x === null || x === undefined ? x : f(x), d)}${iv ? ` [${fixed(f(iv.lo), d)}, ${fixed(f(iv.hi), d)}]` : ""}`;
const para = (s: string) => `<p>${escapeHtml(s)}</p>`;

/** One row of the headline: a scorer (the model or a baseline) on one split and source. */
export interface HeadlineRow {
  readonly split: string;
  readonly source: string;
  readonly scorer: string;
  readonly targets: number;
  readonly nll: number | null;
  readonly nllInterval: Interval;
  readonly bitsPerByte: number | null;
  readonly bpbInterval: Interval;
  /** Lowest NLL of its split and source. */
  readonly best: boolean;
}

/** More sources than this and the headline keeps the merged groups only; the by-source table holds the rest. */
export const HEADLINE_MAX_SOURCES = 3;

const sourcesOf = (r: Report) => new Set(r.perplexity.groups.map((g) => g.source).filter((x) => x !== "(all sources)"));

/** Model and baselines per (split, source), the merged "(all sources)" group of each split first. */
export function headlineRows(r: Report): HeadlineRow[] {
  const mergedOnly = sourcesOf(r).size > HEADLINE_MAX_SOURCES && r.perplexity.groups.some((g) => g.source === "(all sources)");
  const groups = r.perplexity.groups.map((g, i) => ({ g, i })).filter(({ g }) => !mergedOnly || g.source === "(all sources)")
    .sort((a, b) => Number(b.g.source === "(all sources)") - Number(a.g.source === "(all sources)") || a.i - b.i);
  return groups.flatMap(({ g, i }) => {
    const bpb = r.bits_per_byte.groups[i];
    const rows: Omit<HeadlineRow, "best">[] = [{
      split: g.split, source: g.source, scorer: "model", targets: g.targets, nll: g.nll, nllInterval: r.intervals.perplexity_by_group[i].block_bootstrap_95,
      bitsPerByte: bpb.bits_per_byte, bpbInterval: r.intervals.bits_per_byte_by_group[i].block_bootstrap_95,
    }];
    if ("groups" in r.baselines) {
      for (const b of r.baselines.groups.filter((x) => x.split === g.split && x.source === g.source)) {
        rows.push({ split: g.split, source: g.source, scorer: b.baseline, targets: b.targets, nll: b.nll, nllInterval: null, bitsPerByte: b.bits_per_byte, bpbInterval: null });
      }
    }
    const best = Math.min(...rows.map((x) => (x.nll !== null && Number.isFinite(x.nll) ? x.nll : Infinity)));
    return rows.map((x) => ({ ...x, best: x.nll === best }));
  });
}

export const HEADLINE_COLUMNS = ["split", "source", "scorer", "targets", "NLL (nats/target) [95%]", "perplexity [95%]", "bits per byte [95%]"];

/** The headline's cells, shared by the page and the Markdown report card; the best NLL of each group is marked. */
export function headlineCells(row: HeadlineRow): [string, string, string, string, string, string, string] {
  return [row.split, row.source, row.scorer, String(row.targets), withIv(row.nll, row.nllInterval), withIv(row.nll, row.nllInterval, Math.exp, 2), withIv(row.bitsPerByte, row.bpbInterval)];
}

export const HEADLINE_NOTE = "Intervals: 95% moving-block bootstrap over windows (model only; the count baselines are fixed functions of the training split and get none). Bold: the lowest NLL of its split and source.";

/**
 * Source × scorer: one row per (split, source), the model's NLL with its interval beside each baseline's, the
 * lowest in bold (for Brown: genre × model and baselines, instead of one long table per baseline).
 */
export function bySourceHtml(r: Report): string {
  const baselines = "groups" in r.baselines ? [...new Set(r.baselines.groups.map((g) => g.baseline))] : [];
  const rows = r.perplexity.groups.map((g, i): Cell[] => {
    const base = baselines.map((b) => ("groups" in r.baselines ? r.baselines.groups.find((x) => x.baseline === b && x.split === g.split && x.source === g.source)?.nll ?? null : null));
    const best = Math.min(g.nll, ...base.map((x) => x ?? Infinity));
    return [g.split, g.source, g.targets, { num: withIv(g.nll, r.intervals.perplexity_by_group[i].block_bootstrap_95), bold: g.nll === best }, ...base.map((x): Cell => ({ num: fixed(x), bold: x === best }))];
  });
  return htmlTable(["split", "source", "targets", "model NLL [95%]", ...baselines], rows, "by-source") +
    para(`NLL in nats per target at stride ${r.perplexity.stride}; bold: the lowest of its row.`);
}

function headlineHtml(r: Report): string {
  const rows = headlineRows(r).map((row): Cell[] => {
    const c = headlineCells(row);
    return [c[0], c[1], { text: c[2], bold: row.best }, row.targets, { num: c[4], bold: row.best }, { num: c[5], bold: row.best }, { num: c[6], bold: row.best }];
  });
  return htmlTable(HEADLINE_COLUMNS, rows, "headline") + para(`${HEADLINE_NOTE} Stride ${r.perplexity.stride}, context ${r.perplexity.context_length}; ${r.test_split}.`);
}

/** The page's figures as standalone SVG strings with a file name each (the report card links them). */
export function reportFigures(r: Report): { name: string; title: string; svg: string }[] {
  const nllBars = barChartWithIntervals(
    r.intervals.perplexity_by_group.map((g) => ({ label: `${g.split} / ${g.source}`, value: g.nll, lo: g.block_bootstrap_95?.lo ?? g.nll, hi: g.block_bootstrap_95?.hi ?? g.nll, note: g.block_bootstrap_95 ? `n=${g.targets}` : `n=${g.targets}, one window: no interval` })),
    { title: `Model NLL per split and source (stride ${r.perplexity.stride})`, valueLabel: "NLL (nats per target)", notes: [`95% moving-block bootstrap over windows, ${r.intervals.settings.replicates} replicates; n = scored targets`] },
  );
  const splits = r.loss_by_position.by_split;
  const byPosition = lineChart({
    title: `Loss by position in the window (stride ${r.loss_by_position.stride} = context)`,
    xLabel: "position p in the window (predicts from p + 1 tokens)", yLabel: "NLL (nats per target)", xInteger: true,
    series: splits.map((s, i) => ({
      name: s.split, points: s.positions.map((p) => [p.position, p.nll] as [number, number]), color: paletteColor(i), dash: dashFor(i), marker: true,
      tips: s.positions.map((p) => `${s.split}, position ${p.position}: ${fixed(p.nll)} nats over ${p.targets} targets`),
    })),
    // the last split's counts (held out, when scored): a spike resting on two or three targets shows as a short bar
    counts: splits.length > 0 ? { name: `targets per position (${splits.at(-1)!.split})`, points: splits.at(-1)!.positions.map((p) => [p.position, p.targets] as [number, number]) } : undefined,
    notes: [r.loss_by_position.note],
  });
  return [
    { name: "nll_by_group.svg", title: "Model NLL per split and source", svg: nllBars },
    { name: "loss_by_position.svg", title: "Loss by position", svg: byPosition },
    ...r.calibration.by_split.map((c) => ({ name: `reliability_${c.split}.svg`, title: `Reliability, ${c.split}`, svg: reliabilityDiagram(c.report.bins, { title: `Reliability, ${c.split} (stride ${c.stride})`, ece: c.report.ece ?? undefined }) })),
  ];
}

/** What a lab adds to its page (the Brown lab: verdict, loss curve): sections placed right after the headline. */
export interface PageExtras {
  readonly title?: string;
  readonly afterHeadline?: readonly HtmlSection[];
}

export function reportHtml(r: Report, extras: PageExtras = {}): string {
  const ids = r.identities;
  const figures = reportFigures(r);
  const figure = (f: { title: string; svg: string }) => `<figure>${f.svg}<figcaption>${escapeHtml(f.title)}</figcaption></figure>`;
  const sections: HtmlSection[] = [
    { heading: "Headline: the model beside every baseline", html: headlineHtml(r) },
    ...(extras.afterHeadline ?? []),
    { heading: "By source: the model beside each baseline", html: bySourceHtml(r) },
    { heading: "Figures", html: figures.map(figure).join("\n") },
    {
      heading: `Perplexity by split and source (stride ${r.perplexity.stride}, context ${r.perplexity.context_length})`,
      html: htmlTable(["split", "source", "documents", "windows", "targets", "NLL (nats/target)", "perplexity", "95% block bootstrap (NLL)"],
        r.perplexity.groups.map((g, i) => [g.split, g.source, g.documents, g.windows, g.targets, { num: fixed(g.nll) }, { num: fixed(g.perplexity, 2) }, intervalCell(r.intervals.perplexity_by_group[i].block_bootstrap_95, r.intervals.perplexity_by_group[i].block_bootstrap_95_reason)])),
    },
    {
      heading: `Bits per byte (stride ${r.bits_per_byte.stride})`,
      html: para(r.bits_per_byte.definition) + htmlTable(["split", "source", "targets", "bytes", "chars", "bytes/target", "bits per byte", "95% block bootstrap", "bits per char"],
        r.bits_per_byte.groups.map((g, i) => {
          const iv = r.intervals.bits_per_byte_by_group[i];
          return [g.split, g.source, g.targets, g.bytes, g.chars, { num: fixed(g.bytes_per_target) }, { num: fixed(g.bits_per_byte) }, intervalCell(iv.block_bootstrap_95, iv.block_bootstrap_95_reason), { num: fixed(g.bits_per_char) }];
        })),
    },
    {
      heading: `Next-token calibration (stride ${r.calibration.stride}, ${r.calibration.bins} ${r.calibration.scheme} ${r.calibration.bins === 1 ? "bin" : "bins"})`,
      html: r.calibration.by_split.map((c, i) => {
        const w = r.intervals.next_token_accuracy[i].wilson95;
        const populated = `${c.report.populatedBins} populated ${c.report.populatedBins === 1 ? "bin" : "bins"}`;
        return `<h3>${escapeHtml(c.split)}</h3>` + para(`${c.definition}. Accuracy ${c.accuracy.correct}/${c.accuracy.predictions}${w ? ` (Wilson 95% [${fixed(w.lo)}, ${fixed(w.hi)}])` : ""}; ECE ${c.report.ece === null ? `n/a (${c.report.ece_reason})` : fixed(c.report.ece)} over ${populated}; Brier ${fixed(c.report.brier)}.`) +
          htmlTable(["bin", "predictions", "mean confidence", "accuracy"], c.report.bins.map((b) => [`[${fixed(b.lo, 2)}, ${fixed(b.hi, 2)}]`, b.count, { num: fixed(b.meanConfidence) }, { num: fixed(b.accuracy) }]));
      }).join("\n"),
    },
    {
      heading: "Generation: samples and greedy margins",
      html: para("Text as generated: ⟨EOS⟩ where generation stopped at the end-of-sequence token, control characters as escapes (\\n), ⟨?⟩ for bytes that are not valid UTF-8 on their own, (empty) for nothing.") +
        htmlTable(["document", "sample", "prompt", "continuation"], r.generation.samples.map((s) => [s.doc, s.sample, visibleText(s.prompt), continuationText(s.text, s.stopped)])) +
        htmlTable(["document", "prompt", "greedy token", "p", "runner-up", "margin (logits)"], r.generation.greedy_margins.map((m) => [m.doc, visibleText(m.prompt), tokenText(m.token, m.token_text), { num: fixed(m.probability) }, tokenText(m.runner_up, m.runner_up_text), { num: fixed(m.margin_logits) }])),
    },
    {
      heading: "N-gram overlap of samples with training text, by order",
      html: para(r.overlap.definition) + htmlTable(["n", "mean overlap", "samples scored"], r.overlap.orders.map((o) => [o.n, { num: fixed(o.mean_overlap) }, o.samples_scored])),
    },
    {
      heading: "Diversity of samples",
      html: htmlTable(["distinct-1", "distinct-2", "unique sequences", "mean pairwise 2-gram Jaccard", "samples"], [[{ num: fixed(r.diversity.distinct_1) }, { num: fixed(r.diversity.distinct_2) }, { num: fixed(r.diversity.unique_sequence_ratio) }, { num: fixed(r.diversity.mean_pairwise_jaccard_2) }, r.diversity.samples]]),
    },
    { heading: "Memorization", html: verbatimHtml(r) + "<h3>canary</h3>" + keyValueTable(flatEntries(r.memorization.canary).map(([k, v]) => [k, visibleText(v)])) },
    { heading: "Contamination: word n-gram audit against the training documents", html: contaminationHtml(r) },
    {
      heading: `Count baselines, every group (stride ${"groups" in r.baselines ? r.baselines.stride : r.perplexity.stride})`,
      html: "groups" in r.baselines
        ? htmlTable(["baseline", "split", "source", "targets", "NLL", "perplexity", "bits per byte"], r.baselines.groups.map((g) => [g.baseline, g.split, g.source, g.targets, { num: fixed(g.nll) }, { num: fixed(g.perplexity, 2) }, { num: fixed(g.bits_per_byte) }]))
        : para(r.baselines.status),
    },
    {
      heading: "Identities",
      html: keyValueTable([
        ["model", ids.model.path ?? ids.model.name],
        ["model sha256", ids.model.sha256 ?? "in memory, no file"],
        ["data", r.data.description],
      ]) + htmlTable(["evaluator", "id", "settings"], Object.entries(ids.evaluators).map(([k, e]): Cell[] => [k, e.id, flatEntries(e.settings).map(([a, b]) => `${a}=${b}`).join("; ")])),
    },
    { heading: "Provenance", html: keyValueTable(flatEntries(r.provenance)) },
  ];
  const name = ids.model.path ?? ids.model.name;
  return htmlPage({ title: extras.title ?? `tinylab evaluation report: ${name}`, lead: leadSentence(r), sections });
}

/** The one line under the title: the merged validation result (or the first group) against the best baseline. */
function leadSentence(r: Report): string {
  const rows = headlineRows(r);
  const first = rows.find((x) => x.split === "validation" && x.source === "(all sources)") ?? rows.find((x) => x.split === "validation") ?? rows[0];
  if (!first) return "";
  const same = rows.filter((x) => x.split === first.split && x.source === first.source);
  const model = same.find((x) => x.scorer === "model")!;
  const base = same.filter((x) => x.scorer !== "model" && x.nll !== null).sort((a, b) => a.nll! - b.nll!)[0];
  const vs = base ? `; best baseline ${base.scorer} ${fixed(base.nll)}` : "";
  return `${first.split}, ${first.source}: model NLL ${withIv(model.nll, model.nllInterval)} nats per target over ${model.targets} targets${vs}.`;
}

function intervalCell(iv: Interval, reason?: string): Cell {
  return iv ? { num: `[${fixed(iv.lo)}, ${fixed(iv.hi)}]` } : `n/a (${reason ?? "undefined"})`;
}

function verbatimHtml(r: Report): string {
  const v = r.memorization.verbatim;
  if (!("train_prompts" in v)) return para(v.status);
  const rows = [...v.train_prompts.rows, ...v.held_out_prompts.rows].map((x) => [x.split, x.doc, visibleText(x.prompt), visibleText(x.continuation), x.longest_match, visibleText(x.match)]);
  return para(`Longest verbatim match with training text, in ${v.unit}: training prompts mean ${fixed(v.train_prompts.mean_longest_match)} (max ${v.train_prompts.max_longest_match}), held-out prompts mean ${fixed(v.held_out_prompts.mean_longest_match)} (max ${v.held_out_prompts.max_longest_match}).`) +
    htmlTable(["split", "document", "prompt", "greedy continuation", "longest match", "match"], rows);
}

function contaminationHtml(r: Report): string {
  const c = r.contamination;
  if (!("splits" in c)) return para(c.status);
  return para(`${c.n}-grams, flagged at any shared ${c.n}-gram, against ${c.against}; ${c.note}.`) +
    htmlTable(["split", "documents", "flagged", "unauditable", "NLL, all documents", "NLL, unflagged only", "flagged ids"],
      c.splits.map((s) => [s.split, s.documents, s.flagged.length, s.unauditable, `${fixed(s.all_documents.nll)} (${s.all_documents.targets} targets)`, `${fixed(s.unflagged_documents.nll)} (${s.unflagged_documents.targets} targets)`, s.flagged.length > 0 ? s.flagged.join(", ") : "none"]));
}
