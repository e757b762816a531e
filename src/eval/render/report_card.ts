// The report card: one Markdown page beside report.json and report.html (in the style of nanochat's report),
// readable on GitHub as is: provenance, the headline table, each evaluator's Markdown, the key figures as linked
// SVGs, each evaluator's id. Pure: the caller (experiments/report.ts) reads git and writes the files.
import { presentEvaluators, type Evaluator } from "../report/evaluator.ts";
import { HEADLINE_COLUMNS, HEADLINE_NOTE, headlineCells, headlineRows } from "./report_page.ts";
import type { Report } from "../report/types.ts";
import { REPORT_EVALUATORS } from "../report/evaluators.ts";
import { markdownTable as table, md } from "./format.ts";
import { CAUSAL_ATTENTION_HEAD_SIZES } from "../../util/engine.ts";

/** Where the run came from, as far as the caller could tell; `git` is null outside a checkout. */
export interface CardContext {
  readonly git: { readonly commit: string; readonly dirty: boolean } | null;
  /** Figures written beside the card, linked relative to it. */
  readonly figures: readonly { readonly file: string; readonly title: string }[];
}

export function reportCard(r: Report, ctx: CardContext, evaluators: readonly Evaluator[] = REPORT_EVALUATORS): string {
  const p = r.provenance;
  const ids = r.identities;
  const hashes = r.data.split_sha256;
  const git = ctx.git
    ? `${ctx.git.commit}${ctx.git.dirty ? " (dirty: uncommitted changes in the checkout)" : " (clean)"}`
    : "not run from a git checkout";
  const provenance: [string, string][] = [
    ["tinylab", p.tinylab],
    ["git commit", git],
    [
      "backend",
      `${p.backend} (tfjs ${p.tfjs}, node ${p.node})${p.kernels === "onnxruntime" ? `, matrix products and scoring on onnxruntime-node ${p.onnxruntime}${p.attention === "tinylab" ? `, scoring's attention on tinylab's causal kernel at head sizes ${CAUSAL_ATTENTION_HEAD_SIZES.join(" and ")}` : ""}` : `, matrix products on tfjs's own ${p.backend} kernels`}`,
    ],
    ["workers", p.workers !== undefined ? String(p.workers) : "not recorded by this version"],
    ["command", p.command],
    ["date", p.date],
    ["model", ids.model.path ?? ids.model.name],
    ["model sha256", ids.model.sha256 ?? "in memory, no file"],
    ["data", r.data.description],
    ...Object.entries(hashes).map(([split, h]): [string, string] => [
      `${split} split sha256`,
      h ?? (split === "test" && !r.final_test ? "not read (no --final-test)" : "no documents"),
    ]),
  ];
  const headline = headlineRows(r).map((x) => {
    const c = headlineCells(x);
    return x.best ? [c[0], c[1], `**${c[2]}**`, c[3], `**${c[4]}**`, `**${c[5]}**`, `**${c[6]}**`] : c;
  });
  const lines = [
    `# tinylab report card: ${md(ids.model.path ?? ids.model.name)}`,
    "",
    `Written beside \`report.json\` (every number) and \`report.html\` (every section). ${r.final_test ? "**FINAL REPORT: the test split is scored; choose nothing on it.**" : `Test split: ${r.test_split}.`}`,
    "",
    "## Provenance",
    "",
    ...table(["", ""], provenance),
    "",
    `## Headline (stride ${r.perplexity.stride}, context ${r.perplexity.context_length})`,
    "",
    ...table(HEADLINE_COLUMNS, headline, [false, false, false, true, true, true, true]),
    "",
    HEADLINE_NOTE,
    "",
    ...presentEvaluators(r, evaluators).flatMap(({ e, value }) => e.render.markdown(value, r)),
    "## Figures",
    "",
    ...ctx.figures.flatMap((f) => [`[![${md(f.title)}](${f.file})](${f.file})`, ""]),
    "## Evaluators",
    "",
    ...table(
      ["namespace", "evaluator", "version", "id"],
      Object.entries(ids.evaluators).map(([k, e]) => [k, e.name, e.version, `\`${e.id}\``]),
    ),
    "",
  ];
  return lines.join("\n");
}
