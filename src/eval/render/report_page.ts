// The report as a standalone HTML page: the headline (model beside every baseline, per split and source, with
// intervals) first, then the evaluators' figures and sections in their list's order, identities and provenance
import { escapeHtml, flatEntries, htmlPage, htmlTable, keyValueTable, type Cell, type HtmlSection } from "../../util/render/html.ts";
import { presentEvaluators, type Evaluator, type Figure } from "../report/evaluator.ts";
import { fixed, para, withIv, type Interval } from "./format.ts";
import type { Report } from "../report/types.ts";
import { REPORT_EVALUATORS } from "../report/evaluators.ts";

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
  const groups = r.perplexity.groups
    .map((g, i) => ({ g, i }))
    .filter(({ g }) => !mergedOnly || g.source === "(all sources)")
    .sort((a, b) => Number(b.g.source === "(all sources)") - Number(a.g.source === "(all sources)") || a.i - b.i);
  return groups.flatMap(({ g, i }) => {
    const bpb = r.bits_per_byte.groups[i];
    const rows: Omit<HeadlineRow, "best">[] = [
      {
        split: g.split,
        source: g.source,
        scorer: "model",
        targets: g.targets,
        nll: g.nll,
        nllInterval: g.block_bootstrap_95,
        bitsPerByte: bpb.bits_per_byte,
        bpbInterval: bpb.block_bootstrap_95,
      },
    ];
    if ("groups" in r.baselines) {
      for (const b of r.baselines.groups.filter((x) => x.split === g.split && x.source === g.source)) {
        rows.push({
          split: g.split,
          source: g.source,
          scorer: b.baseline,
          targets: b.targets,
          nll: b.nll,
          nllInterval: null,
          bitsPerByte: b.bits_per_byte,
          bpbInterval: null,
        });
      }
    }
    const best = Math.min(...rows.map((x) => (x.nll !== null && Number.isFinite(x.nll) ? x.nll : Infinity)));
    return rows.map((x) => ({ ...x, best: x.nll === best }));
  });
}

export const HEADLINE_COLUMNS = [
  "split",
  "source",
  "scorer",
  "targets",
  "NLL (nats/target) [95%]",
  "perplexity [95%]",
  "bits per byte [95%]",
];

/** The headline's cells, shared by the page and the Markdown report card; the best NLL of each group is marked. */
export function headlineCells(row: HeadlineRow): [string, string, string, string, string, string, string] {
  return [
    row.split,
    row.source,
    row.scorer,
    String(row.targets),
    withIv(row.nll, row.nllInterval),
    withIv(row.nll, row.nllInterval, Math.exp, 2),
    withIv(row.bitsPerByte, row.bpbInterval),
  ];
}

export const HEADLINE_NOTE =
  "Intervals: 95% moving-block bootstrap over windows (model only; the count baselines are fixed functions of the training split and get none). Bold: the lowest NLL of its split and source.";

/**
 * Source × scorer: one row per (split, source), the model's NLL with its interval beside each baseline's, the
 * lowest in bold (for Brown: genre × model and baselines, instead of one long table per baseline).
 */
export function bySourceHtml(r: Report): string {
  const baselines = "groups" in r.baselines ? [...new Set(r.baselines.groups.map((g) => g.baseline))] : [];
  const rows = r.perplexity.groups.map((g): Cell[] => {
    const base = baselines.map((b) =>
      "groups" in r.baselines
        ? (r.baselines.groups.find((x) => x.baseline === b && x.split === g.split && x.source === g.source)?.nll ?? null)
        : null,
    );
    const best = Math.min(g.nll, ...base.map((x) => x ?? Infinity));
    return [
      g.split,
      g.source,
      g.targets,
      { num: withIv(g.nll, g.block_bootstrap_95), bold: g.nll === best },
      ...base.map((x): Cell => ({ num: fixed(x), bold: x === best })),
    ];
  });
  return (
    htmlTable(["split", "source", "targets", "model NLL [95%]", ...baselines], rows, "by-source") +
    para(`NLL in nats per target at stride ${r.perplexity.stride}; bold: the lowest of its row.`)
  );
}

function headlineHtml(r: Report): string {
  const rows = headlineRows(r).map((row): Cell[] => {
    const c = headlineCells(row);
    return [
      c[0],
      c[1],
      { text: c[2], bold: row.best },
      row.targets,
      { num: c[4], bold: row.best },
      { num: c[5], bold: row.best },
      { num: c[6], bold: row.best },
    ];
  });
  return (
    htmlTable(HEADLINE_COLUMNS, rows, "headline") +
    para(`${HEADLINE_NOTE} Stride ${r.perplexity.stride}, context ${r.perplexity.context_length}; ${r.test_split}.`)
  );
}

/** The page's figures as standalone SVG strings with a file name each (the report card links them). */
export function reportFigures(r: Report, evaluators: readonly Evaluator[] = REPORT_EVALUATORS): Figure[] {
  return presentEvaluators(r, evaluators).flatMap(({ e, value }) => e.render.figures(value, r));
}

/** The evaluators' sections, one per namespace in list order; sections of one namespace with one heading merge. */
export function evaluatorSections(r: Report, evaluators: readonly Evaluator[]): HtmlSection[] {
  const byNamespace = new Map<string, { heading: string; html: string }[]>();
  for (const { e, value } of presentEvaluators(r, evaluators)) {
    const ns = e.key.split(".")[0];
    const sections = byNamespace.get(ns) ?? [];
    byNamespace.set(ns, sections);
    for (const s of e.render.html(value, r)) {
      const same = sections.find((x) => x.heading === s.heading);
      if (same) same.html += s.html;
      else sections.push({ heading: s.heading, html: s.html });
    }
  }
  return [...byNamespace.values()].flat();
}

/** What a lab adds to its page (the Brown lab: verdict, loss curve): sections placed right after the headline. */
export interface PageExtras {
  readonly title?: string;
  readonly afterHeadline?: readonly HtmlSection[];
}

export function reportHtml(r: Report, extras: PageExtras = {}, evaluators: readonly Evaluator[] = REPORT_EVALUATORS): string {
  const ids = r.identities;
  const figure = (f: { title: string; svg: string }) => `<figure>${f.svg}<figcaption>${escapeHtml(f.title)}</figcaption></figure>`;
  const sections: HtmlSection[] = [
    { heading: "Headline: the model beside every baseline", html: headlineHtml(r) },
    ...(extras.afterHeadline ?? []),
    { heading: "By source: the model beside each baseline", html: bySourceHtml(r) },
    { heading: "Figures", html: reportFigures(r, evaluators).map(figure).join("\n") },
    ...evaluatorSections(r, evaluators),
    {
      heading: "Identities",
      html:
        keyValueTable([
          ["model", ids.model.path ?? ids.model.name],
          ["model sha256", ids.model.sha256 ?? "in memory, no file"],
          ["data", r.data.description],
        ]) +
        htmlTable(
          ["evaluator", "id", "settings"],
          Object.entries(ids.evaluators).map(([k, e]): Cell[] => [
            k,
            e.id,
            flatEntries(e.settings)
              .map(([a, b]) => `${a}=${b}`)
              .join("; "),
          ]),
        ),
    },
    { heading: "Provenance", html: keyValueTable(flatEntries(r.provenance)) },
  ];
  const name = ids.model.path ?? ids.model.name;
  return htmlPage({ title: extras.title ?? `tinylab evaluation report: ${name}`, lead: leadSentence(r), sections });
}

/** The one line under the title: the merged validation result (or the first group) against the best baseline. */
function leadSentence(r: Report): string {
  const rows = headlineRows(r);
  const first =
    rows.find((x) => x.split === "validation" && x.source === "(all sources)") ?? rows.find((x) => x.split === "validation") ?? rows[0];
  if (!first) return "";
  const same = rows.filter((x) => x.split === first.split && x.source === first.source);
  const model = same.find((x) => x.scorer === "model")!;
  const base = same.filter((x) => x.scorer !== "model" && x.nll !== null).sort((a, b) => a.nll! - b.nll!)[0];
  const vs = base ? `; best baseline ${base.scorer} ${fixed(base.nll)}` : "";
  return `${first.split}, ${first.source}: model NLL ${withIv(model.nll, model.nllInterval)} nats per target over ${model.targets} targets${vs}.`;
}
