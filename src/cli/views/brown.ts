// Console summary of the Brown lab (experiments/brown.ts). Presentation only; its page is experiments/brown_page.ts.
import { engineLabel, engineRecord } from "../../util/engine.ts";
import { ALL_SOURCES } from "../../eval/passes/grouped.ts";
import { count, formatTable } from "./table.ts";
import type { BrownResult } from "../../../experiments/brown.ts";
import { tokenText, visibleText } from "../../util/render/text_view.ts";

/** The readable summary printed on stdout (the JSON and the HTML report hold everything). */
export function formatBrown(r: BrownResult): string {
  // null is a quantity without a value (src/eval/metrics/reasoned.ts); the JSON beside it holds the reason
  const f = (x: number | null, d = 4) => (x !== null && Number.isFinite(x) ? x.toFixed(d) : "n/a");
  const rep = r.report;
  const lines: string[] = [];
  if (r.options.finalTest)
    lines.push("=".repeat(78), "FINAL REPORT: the test split is scored. Do not tune anything on these numbers.", "=".repeat(78));
  lines.push(
    `brown: ${r.parameters.toLocaleString("en-US")} parameters (${count(r.model_config.nLayers, "layer")}, d_model ${r.model_config.dModel}, context ${r.model_config.contextLength}), BPE ${r.data.tokenizer.vocab}, backend ${engineLabel(engineRecord({ ...r.provenance, backend: r.backend }), r.model_config)}`,
  );
  lines.push(
    `data: ${r.data.documents.train} train / ${r.data.documents.validation} validation / ${r.data.documents.test} test documents; ${r.data.tokens.train.toLocaleString("en-US")} train tokens; manifest ${r.data.manifest}`,
  );
  lines.push(
    `training: ${r.training.updates} updates (from ${r.training.resumed_from}), ${Math.round(r.training.tokens_per_second)} training tokens/s; model_sha256 ${r.model_sha256}`,
  );
  if (r.best)
    lines.push(
      `  best on validation: update ${r.best.update}, whole-split NLL ${f(r.best.validation_nll)} (stride = context; optimistic: chosen on validation) → ${r.best.file}; the report below scores the last update`,
    );
  if (r.early_stop) lines.push(`  stopped early at update ${r.early_stop.at} (--patience ${r.early_stop.patience})`);
  lines.push(
    "",
    `perplexity by genre (stride ${rep.perplexity.stride}, context ${rep.perplexity.context_length}; 95% block bootstrap over windows):`,
  );
  const bpb = new Map(rep.bits_per_byte.groups.map((g) => [`${g.split}/${g.source}`, g]));
  const range = (x: { lo: number; hi: number } | null | undefined, reason = "undefined") =>
    x ? `[${f(x.lo)}, ${f(x.hi)}]` : `n/a (${reason.split(":")[0]})`;
  lines.push(
    ...formatTable(
      ["split/genre", "NLL", "NLL 95%", "perplexity", "bits/byte", "bits/byte 95%", "targets"],
      rep.perplexity.groups.map((g) => {
        const b = bpb.get(`${g.split}/${g.source}`);
        return [
          `${g.split}/${g.source}`,
          f(g.nll),
          range(g.block_bootstrap_95, g.block_bootstrap_95_reason),
          f(g.perplexity, 2),
          f(b?.bits_per_byte ?? NaN),
          range(b?.block_bootstrap_95, b?.block_bootstrap_95_reason),
          String(g.targets),
        ];
      }),
      ["l", "r", "l", "r", "r", "l", "r"],
    ),
  );
  if (rep.perplexity_at_stride_context) {
    const all = rep.perplexity_at_stride_context.groups.filter((g) => g.source === ALL_SOURCES);
    for (const g of all)
      lines.push(
        `  ${g.split} overall at stride ${rep.perplexity_at_stride_context.stride}: NLL ${f(g.nll)} over ${g.targets} targets (not comparable with stride ${rep.perplexity.stride} numbers)`,
      );
  }
  const b = r.bar;
  lines.push(
    "",
    `validation, all genres, stride ${b.stride} (nats per token): model ${f(b.model)}  unigram-prior bigram ${f(b.unigram_prior_bigram)}  add-one bigram ${f(b.bigram_add_one)}  unigram ${f(b.unigram)}  uniform ${f(b.uniform)}`,
  );
  const o = b.full_order,
    holds = (x: boolean) => (x ? "holds" : "FAILS");
  lines.push(
    `  bar (004) model < unigram-prior bigram − 0.3 < unigram − 1.0 < uniform: ${o.met ? "met" : "NOT met"}; ${f(b.model)} < ${f(b.unigram_prior_bigram - 0.3)} ${holds(o.model_below_prior_bigram_minus_0_3)}, ${f(b.unigram_prior_bigram - 0.3)} < ${f(b.unigram - 1)} ${holds(o.prior_bigram_minus_0_3_below_unigram_minus_1)}, ${f(b.unigram - 1)} < ${f(b.uniform)} ${holds(o.unigram_minus_1_below_uniform)}`,
  );
  lines.push(
    `  model vs unigram-prior bigram: margin ${f(b.margin_vs_unigram_prior_bigram)} nats (needs > 0.3); add-one bigram < unigram < uniform: ${b.bigram_below_unigram_below_uniform}`,
  );
  if ("groups" in rep.baselines) {
    const groups = rep.baselines.groups;
    const merged = groups.some((y) => y.source === ALL_SOURCES);
    lines.push("  baselines in bits per byte (same targets):");
    lines.push(
      ...formatTable(
        ["baseline", "split", "bits/byte"],
        groups.filter((x) => !merged || x.source === ALL_SOURCES).map((g) => [g.baseline, g.split, f(g.bits_per_byte)]),
        ["l", "l", "r"],
        "    ",
      ),
    );
  }
  lines.push(
    "",
    "loss by position (stride = context): " +
      rep.loss_by_position.by_split
        .map(
          (s) =>
            `${s.split}: p0 ${f(s.positions[0]?.nll ?? NaN, 2)}, p7 ${f(s.positions[7]?.nll ?? NaN, 2)}, p${s.positions.length - 1} ${f(s.positions[s.positions.length - 1]?.nll ?? NaN, 2)}`,
        )
        .join("; "),
  );
  for (const c of rep.calibration.by_split)
    lines.push(
      `calibration ${c.split} (stride ${rep.calibration.stride}): accuracy ${f(c.accuracy.rate)} (${c.accuracy.correct}/${c.accuracy.predictions}), ECE ${f(c.report.ece)} over ${count(c.report.populatedBins, "populated bin")}, Brier ${f(c.report.brier)}`,
    );
  const canary = rep.memorization.canary as { evaluated?: { log_prob: number; recovered?: boolean }; status?: string };
  lines.push(
    `canary ×${r.options.canary.repetitions}: ${canary.evaluated ? `log p(secret | prefix) ${f(canary.evaluated.log_prob)}, greedy recovery ${JSON.stringify(canary.evaluated.recovered ?? null)}` : canary.status}`,
  );
  lines.push(
    `13-gram contamination of validation against train: ${r.contamination.flagged.length} of ${r.contamination.items} documents flagged`,
  );
  lines.push("", "next-token table (top 5 after BOS + prompt):");
  for (const row of r.next_tokens)
    lines.push(
      `  ${visibleText(row.prompt).padEnd(20)} ${row.top.map((t) => `${tokenText(t.id, t.token)} ${t.p.toFixed(3)}`).join("  ")}   margin ${f(row.greedy_margin.margin, 2)} logits`,
    );
  return lines.join("\n");
}
