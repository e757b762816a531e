// The HTML page of `tinylab compare`: the paired differences, and each document's tokens coloured by how much
import { round6 } from "../../util/runtime/provenance.ts";
import { escapeHtml, htmlPage, htmlTable } from "../../util/render/html.ts";
import type { CompareResult, CompareTokens } from "../compare/compare.ts";
import { visibleToken } from "./visible.ts";

const f = (x: number) => round6(x).toFixed(6);
/** The interval and p-value cells, or the reason there are none (too few documents). */
const intervalCells = (d: CompareResult["bits_per_byte"]["difference"]): [string, string] =>
  d.lo === null ? [`n/a (${d.interval_reason})`, "n/a"] : [`[${f(d.lo)}, ${f(d.hi)}]`, d.p_one_sided.toPrecision(4)];
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

/**
 * What follows a side's name: its BOS/EOS convention, said on both sides whenever either is a model directory (whose
 * tokenizer record is tokenizer.json's and whose convention was chosen); two model files, or one and its baseline,
 * are both scored tinylab's way, a choice no one made, and say nothing.
 */
export function conventionSuffix(r: CompareResult, side: CompareResult["a"]): string {
  const isDir = (tokenizer: unknown) => (tokenizer as { kind?: string } | null)?.kind === "tokenizer.json";
  return isDir(r.a.tokenizer) || isDir(r.b.tokenizer) ? `; convention ${side.convention.label}` : "";
}

/** Blue where A predicts the token better (B − A > 0), orange where B does; intensity by |diff| / scale. */
function colour(diff: number, scale: number): string {
  const t = scale === 0 ? 0 : Math.min(1, Math.abs(diff) / scale);
  const [r, g, b] = diff > 0 ? [49, 130, 189] : [230, 85, 13];
  const mix = (c: number) => Math.round(255 + t * (c - 255));
  return `rgb(${mix(r)}, ${mix(g)}, ${mix(b)})`;
}

const TOKEN_CSS = `<style>.tok{white-space:pre-wrap;font-family:monospace;padding:0 1px;border-radius:2px}.doc{line-height:2;margin:.5em 0 1.5em}.legend span{display:inline-block;padding:.2em .6em;margin-right:.3em;font-family:monospace}</style>`;

/** The page: summary tables, a legend, then each document with every target token coloured by its loss difference. */
export function compareHtml(r: CompareResult, tokens: CompareTokens | null): string {
  const summary = htmlTable(
    ["quantity", "A", "B", "B − A", "95% interval", "one-sided p"],
    [
      ...(r.nll ? [["NLL (nats/target)", f(r.nll.a), f(r.nll.b), f(r.nll.difference.estimate), ...intervalCells(r.nll.difference)]] : []),
      [
        "bits per byte",
        f(r.bits_per_byte.a),
        f(r.bits_per_byte.b),
        f(r.bits_per_byte.difference.estimate),
        ...intervalCells(r.bits_per_byte.difference),
      ],
      ...(r.accuracy
        ? [
            [
              "next-token accuracy",
              pct(r.accuracy.a.acc),
              pct(r.accuracy.b.acc),
              pct(r.accuracy.b.acc - r.accuracy.a.acc),
              "—",
              r.accuracy.mcnemar.p_two_sided === null
                ? `McNemar: no p-value (${r.accuracy.mcnemar.p_reason})`
                : `McNemar exact p ${r.accuracy.mcnemar.p_two_sided.toPrecision(4)} (two-sided)`,
            ],
          ]
        : []),
    ],
  );
  const sections = [
    {
      heading: "Models and data",
      html: `<p>A: <code>${escapeHtml(r.a.name)}</code>${escapeHtml(conventionSuffix(r, r.a))}<br>B: <code>${escapeHtml(r.b.name)}</code>${escapeHtml(conventionSuffix(r, r.b))}<br>${escapeHtml(`${r.data.source}, split ${r.data.split}: ${r.data.documents} documents, ${r.data.targets ?? "—"} targets, ${r.data.bytes} bytes`)}</p>`,
    },
    {
      heading: "Paired differences",
      html: `${summary}<p>${escapeHtml(`${r.bootstrap.replicates} bootstrap replicates over ${r.bootstrap.resampled}, seed ${r.bootstrap.seed}. ${r.bootstrap.note}.`)}</p>`,
    },
  ];
  if (tokens) {
    const diffs = tokens.documents.flatMap((d) => Array.from(d.b, (x, i) => x - d.a[i]));
    const scale = Math.max(0, ...diffs.map(Math.abs));
    const legend = `<p class="legend">${TOKEN_CSS}<span style="background:${colour(scale, scale)}">A better by ${f(scale)}</span><span style="background:${colour(scale / 2, scale)}">A by ${f(scale / 2)}</span><span style="background:#fff;border:1px solid #ddd">equal</span><span style="background:${colour(-scale / 2, scale)}">B by ${f(scale / 2)}</span><span style="background:${colour(-scale, scale)}">B better by ${f(scale)}</span></p><p>Each target token is coloured by its loss difference B − A in nats (−ln p under B minus under A), the scale set by the largest |difference| here (${f(scale)}). Hover a token for both losses (its title).</p>`;
    const docs = tokens.documents.map((d) => {
      const spans = d.ids.slice(1).map((id, i) => {
        const diff = d.b[i] - d.a[i];
        const title = `target ${i + 1} ${visibleToken(tokens.tokenizer, id)}: A ${f(d.a[i])} nats, B ${f(d.b[i])} nats, B − A ${f(diff)}`;
        return `<span class="tok" style="background:${colour(diff, scale)}" title="${escapeHtml(title)}">${escapeHtml(visibleToken(tokens.tokenizer, id))}</span>`;
      });
      return `<h3>${escapeHtml(d.id)}</h3><div class="doc">${spans.join("")}</div>`;
    });
    sections.push({ heading: "Tokens coloured by loss difference", html: legend + docs.join("\n") });
  } else sections.push({ heading: "Tokens", html: `<p>${escapeHtml(r.nll_reason ?? "")}: no per-token view.</p>` });
  return htmlPage({ title: "tinylab compare", sections });
}
