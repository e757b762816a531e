// Console summary of `tinylab report` (experiments/report.ts). Presentation only; the HTML page is src/eval/report_page.ts.
// A quantity without a value (null in report.json, src/eval/reasoned.ts) prints as "n/a (its reason)".
import { round6 } from "../../util/provenance.ts";
import { count, formatTable } from "./table.ts";
import { reasonOf } from "../../eval/reasoned.ts";
import type { Report } from "../../eval/report.ts";
import type { PerplexityByStride } from "../../../experiments/report.ts";

const f = (x: number) => round6(x).toFixed(4);
/** `record[key]` to 4 decimals, or "n/a (reason)" when it is null. */
export function shown(record: object, key: string, format: (x: number) => string = f): string {
  const v = (record as Record<string, unknown>)[key];
  return typeof v === "number" ? format(v) : `n/a (${reasonOf(record, key)})`;
}
/** An interval record as "[lo, hi]", or "[n/a (reason)]" when it could not be computed. */
export function interval(record: object, key: string): string {
  const v = (record as Record<string, unknown>)[key] as { lo: number; hi: number } | null;
  return v ? `[${f(v.lo)}, ${f(v.hi)}]` : `[n/a (${reasonOf(record, key)})]`;
}

/** The readable summary printed on stdout; every number sits beside its stride and its count. */
export function formatReport(r: Report & { perplexity_by_stride?: PerplexityByStride }): string {
  const m = r.identities.model;
  const lines = [
    `model ${m.name}${m.sha256 ? `  sha256 ${m.sha256}` : ""}`,
    `data: ${r.data.description}`,
    ...("note" in r.data && r.data.note ? [String(r.data.note)] : []),
    `perplexity by split/source (stride ${r.perplexity.stride}, context ${r.perplexity.context_length}; NLL in nats per target, bits per byte of UTF-8 text; 95% moving-block bootstrap over windows):`,
  ];
  // in the table an interval without a value shows the first clause of its reason; the whole reason follows once
  const reasons = new Set<string>();
  const cellOf = (record: object, key: string) => {
    const s = interval(record, key);
    if (!s.startsWith("[n/a (")) return s;
    const why = reasonOf(record, key);
    reasons.add(why);
    return `n/a (${why.split(":")[0]})`;
  };
  lines.push(...formatTable(
    ["split/source", "NLL", "NLL 95%", "perplexity", "targets", "bits/byte", "bits/byte 95%", "bytes", "bits/char", "chars"],
    r.perplexity.groups.map((g, i) => {
      const bpb = r.bits_per_byte.groups[i];
      return [`${g.split}/${g.source}`, f(g.nll), cellOf(r.intervals.perplexity_by_group[i], "block_bootstrap_95"), f(g.perplexity), String(g.targets),
        shown(bpb, "bits_per_byte"), cellOf(r.intervals.bits_per_byte_by_group[i], "block_bootstrap_95"), String(bpb.bytes), shown(bpb, "bits_per_char"), String(bpb.chars)];
    }),
    ["l", "r", "l", "r", "r", "r", "l", "r", "r", "r"],
  ));
  for (const why of reasons) lines.push(`  n/a interval: ${why}`);
  for (const c of r.calibration.by_split) {
    lines.push(`calibration ${c.split} (stride ${c.stride}): accuracy ${c.accuracy.correct}/${c.accuracy.predictions}, ECE ${shown(c.report, "ece")} over ${count(c.report.populatedBins, "populated bin")}, Brier ${f(c.report.brier)}`);
  }
  const d = r.diversity, skippedGen = r.generation.prompt_documents_skipped_too_short;
  if (r.overlap.samples === 0) {
    // every quantity below is undefined for the same reason: say it once per line
    lines.push(`overlap with training text: ${shown(d, "unique_sequence_ratio")}`, `diversity: ${shown(d, "unique_sequence_ratio")}`);
  } else {
    lines.push(`overlap of ${r.overlap.samples} samples with training text: ${r.overlap.orders.map((o) => `n=${o.n} ${shown(o, "mean_overlap")}`).join(", ")}`);
    lines.push(`diversity: distinct-1 ${shown(d, "distinct_1")}, distinct-2 ${shown(d, "distinct_2")}, unique ${shown(d, "unique_sequence_ratio")}, pairwise 2-gram Jaccard ${shown(d, "mean_pairwise_jaccard_2")}`);
    if (skippedGen > 0) lines.push(`  ${skippedGen} prompt document(s) skipped: too short to leave a continuation after the prompt`);
  }
  const v = r.memorization.verbatim;
  if ("train_prompts" in v && v.train_prompts.prompts + v.held_out_prompts.prompts === 0) {
    lines.push(`verbatim recall: n/a (${v.train_prompts.mean_longest_match_reason}; ${v.held_out_prompts.mean_longest_match_reason})`);
  } else if ("train_prompts" in v) {
    const skipped = v.train_prompts.skipped_too_short + v.held_out_prompts.skipped_too_short;
    lines.push(`verbatim recall: longest match with training text in characters, mean ${shown(v.train_prompts, "mean_longest_match")} on ${v.train_prompts.prompts} train prompts vs ${shown(v.held_out_prompts, "mean_longest_match")} on ${v.held_out_prompts.prompts} held-out prompts` +
      (skipped > 0 ? `; skipped, too short to leave a continuation: ${v.train_prompts.skipped_too_short} train, ${v.held_out_prompts.skipped_too_short} held-out documents` : ""));
  }
  const k = r.contamination;
  if ("splits" in k) {
    for (const s of k.splits) lines.push(`contamination (${k.n}-grams vs ${k.against}): ${s.split} ${s.flagged.length} of ${s.documents} documents flagged, ${s.unauditable} too short to audit; NLL ${shown(s.all_documents, "nll")} on all ${s.all_documents.targets} targets, ${shown(s.unflagged_documents, "nll")} on ${s.unflagged_documents.targets} unflagged`);
  } else lines.push(`contamination: ${k.status}`);
  const c = r.memorization.canary;
  lines.push("evaluated" in c ? `canary: log p(secret | prefix) ${f(c.evaluated.log_prob)}, greedy recovery ${c.evaluated.recovered}${c.log_prob_gain !== null ? `, gain over model without it ${f(c.log_prob_gain)}` : ""}` : `canary: ${c.status}`);
  if (r.perplexity_by_stride) {
    lines.push(`perplexity by stride (${r.perplexity_by_stride.note}):`);
    for (const { stride, groups } of r.perplexity_by_stride.strides) {
      lines.push(`  stride ${String(stride).padStart(4)}: ${groups.map((g) => `${g.split}/${g.source} NLL ${f(g.nll)} (${g.targets} targets, ${g.windows} windows)`).join("; ")}`);
    }
  }
  if (!r.final_test && r.test_split.startsWith("not scored: ")) lines.push(`test split: ${r.test_split.slice("not scored: ".length)}`);
  return lines.join("\n");
}
