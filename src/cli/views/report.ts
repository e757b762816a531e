// Console summary of `tinylab report` (experiments/report.ts). Presentation only; the HTML page is src/eval/report_page.ts.
import { round6 } from "../../util/provenance.ts";
import type { Report } from "../../eval/report.ts";

/** The readable summary printed on stdout; every number sits beside its stride and its count. */
export function formatReport(r: Report): string {
  const f = (x: number) => (Number.isFinite(x) ? round6(x).toFixed(4) : String(x));
  const m = r.identities.model;
  const lines = [
    `model ${m.name}${m.sha256 ? `  sha256 ${m.sha256}` : ""}`,
    `data: ${r.data.description}`,
    `perplexity by split/source (stride ${r.perplexity.stride}, context ${r.perplexity.context_length}; 95% moving-block bootstrap over windows):`,
  ];
  r.perplexity.groups.forEach((g, i) => {
    const b = r.intervals.perplexity_by_group[i].block_bootstrap_95;
    const bpb = r.bits_per_byte.groups[i], bb = r.intervals.bits_per_byte_by_group[i].block_bootstrap_95;
    lines.push(`  ${`${g.split}/${g.source}`.padEnd(28)} NLL ${f(g.nll)} [${f(b.lo)}, ${f(b.hi)}]  ppl ${f(g.perplexity).padStart(9)}  ${g.targets} targets  bpb ${f(bpb.bits_per_byte)} [${f(bb.lo)}, ${f(bb.hi)}] (${bpb.bytes} bytes)  bpc ${f(bpb.bits_per_char)} (${bpb.chars} chars)  stride ${g.stride}`);
  });
  for (const c of r.calibration.by_split) {
    lines.push(`calibration ${c.split} (stride ${c.stride}): accuracy ${c.accuracy.correct}/${c.accuracy.predictions}, ECE ${f(c.report.ece)} over ${c.report.populatedBins} bins, Brier ${f(c.report.brier)}`);
  }
  lines.push(`overlap of ${r.overlap.samples} samples with training text: ${r.overlap.orders.map((o) => `n=${o.n} ${f(o.mean_overlap)}`).join(", ")}`);
  lines.push(`diversity: distinct-1 ${f(r.diversity.distinct_1)}, distinct-2 ${f(r.diversity.distinct_2)}, unique ${f(r.diversity.unique_sequence_ratio)}, pairwise 2-gram Jaccard ${f(r.diversity.mean_pairwise_jaccard_2)}`);
  const v = r.memorization.verbatim;
  if ("train_prompts" in v) lines.push(`verbatim recall: longest match with training text in characters, mean ${f(v.train_prompts.mean_longest_match)} on ${v.train_prompts.prompts} train prompts vs ${f(v.held_out_prompts.mean_longest_match)} on ${v.held_out_prompts.prompts} held-out prompts`);
  const k = r.contamination;
  if ("splits" in k) {
    for (const s of k.splits) lines.push(`contamination (${k.n}-grams vs ${k.against}): ${s.split} ${s.flagged.length} of ${s.documents} documents flagged, ${s.unauditable} too short to audit; NLL ${f(s.all_documents.nll)} on all ${s.all_documents.targets} targets, ${f(s.unflagged_documents.nll)} on ${s.unflagged_documents.targets} unflagged`);
  } else lines.push(`contamination: ${k.status}`);
  const c = r.memorization.canary;
  lines.push("evaluated" in c ? `canary: log p(secret | prefix) ${f(c.evaluated.log_prob)}, greedy recovery ${c.evaluated.recovered}${c.log_prob_gain !== null ? `, gain over model without it ${f(c.log_prob_gain)}` : ""}` : `canary: ${c.status}`);
  if (!r.final_test && r.test_split.startsWith("not scored: ")) lines.push(`test split: ${r.test_split.slice("not scored: ".length)}`);
  return lines.join("\n");
}
