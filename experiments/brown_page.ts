// The Brown lab's HTML page: the report page (src/eval/render/report_page.ts) with the verdict against the bar, the loss
// curve and the next-token table after the headline. Presentation only; experiments/brown.ts computes the result.
import type { BrownResult } from "./brown.ts";
import { reportHtml } from "../src/eval/render/report_page.ts";
import { lossCurve } from "../src/util/render/loss_curve.ts";
import { escapeHtml } from "../src/util/render/html.ts";
import { tokenText, visibleText } from "../src/util/render/text_view.ts";

const fx = (x: number | null, d = 4) => (x !== null && Number.isFinite(x) ? x.toFixed(d) : "n/a");

/** The bar (004) as one sentence with its numbers: met or not, and which link of the chain fails. */
export function barVerdict(b: BrownResult["bar"]): string {
  const o = b.full_order;
  const links = [
    [`model ${fx(b.model)} < unigram-prior bigram − 0.3 = ${fx(b.unigram_prior_bigram - 0.3)}`, o.model_below_prior_bigram_minus_0_3],
    [`${fx(b.unigram_prior_bigram - 0.3)} < unigram − 1.0 = ${fx(b.unigram - 1)}`, o.prior_bigram_minus_0_3_below_unigram_minus_1],
    [`${fx(b.unigram - 1)} < uniform ${fx(b.uniform)}`, o.unigram_minus_1_below_uniform],
  ] as const;
  const failed = links.filter(([, ok]) => !ok).map(([s]) => `${s} is false`);
  const m = b.margin_vs_unigram_prior_bigram;
  const where = m >= 0 ? `${fx(m)} nats below` : `${fx(-m)} nats above`;
  return (
    `The bar (model < unigram-prior bigram − 0.3 < unigram − 1.0 < uniform, validation, all genres, stride ${b.stride}, nats per token) is ${o.met ? "met" : "NOT met"}: ` +
    `the model (${fx(b.model)}) is ${where} the unigram-prior bigram (${fx(b.unigram_prior_bigram)}; the bar needs more than 0.3 below)` +
    (failed.length > 0 ? `; failing: ${failed.join("; ")}.` : `; ${links.map(([s]) => s).join("; ")}.`)
  );
}

/** The Brown lab's page: the report page with the verdict and the loss curve right after the headline. */
export function brownPageHtml(r: BrownResult, curveNote: string): string {
  const title = `Brown lab: training loss and validation probe over ${r.training.updates} updates (${r.parameters.toLocaleString("en-US")} parameters)`;
  const curve = lossCurve(r.training.history as { train: [number, number][]; validation: [number, number][] }, title, curveNote);
  const next = r.next_tokens
    .map(
      (row) =>
        `<tr><td>${escapeHtml(visibleText(row.prompt))}</td><td>${escapeHtml(row.top.map((t) => `${tokenText(t.id, t.token)} ${t.p.toFixed(3)}`).join("   "))}</td></tr>`,
    )
    .join("");
  return reportHtml(r.report, {
    title: `tinylab Brown lab: ${r.parameters.toLocaleString("en-US")} parameters, ${r.training.updates} updates`,
    afterHeadline: [
      { heading: "Verdict against the bar", html: `<p id="bar-verdict">${escapeHtml(barVerdict(r.bar))}</p>` },
      { heading: "Training and validation loss", html: `<figure>${curve}</figure>` },
      {
        heading: "Next tokens after BOS + prompt (top 5, probability)",
        html: `<table><thead><tr><th>prompt</th><th>top tokens</th></tr></thead><tbody>${next}</tbody></table>`,
      },
    ],
  });
}
