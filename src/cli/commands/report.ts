// `tinylab report`: the composed evaluation report of a model file, as one JSON and one HTML page with SVG
// figures. A thin layer over buildReport (src/eval/report.ts); the model file alone supplies the tokenizer.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { loadModel, type LoadedModel } from "../../checkpoint/model_file.ts";
import { encodeDocument, type Document } from "../../data/documents.ts";
import { readDocumentsFile } from "../../data/files.ts";
import { OVERFIT_TEXTS } from "../../data/fixtures.ts";
import { decoderAdapter } from "../../eval/adapter.ts";
import { modelIdentity } from "../../eval/identity.ts";
import { buildReport, type Report } from "../../eval/report.ts";
import { allBaselines } from "../../baselines/ngram.ts";
import { reportHtml } from "../../eval/report_page.ts";
import { round6 } from "../../util/provenance.ts";
import { requireFile, startEngine, toJson, withBackend, writeOutput } from "../common.ts";

export const DEFAULT_DATA_DESCRIPTION = "built-in overfit fixture (OVERFIT_TEXTS in src/data/fixtures.ts: 2 train, 2 validation documents), encoded with the model file's tokenizer";

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
  return lines.join("\n");
}

export const reportCommand: CommandModule = {
  command: "report",
  describe: "Compose the evaluation report of a model file: JSON plus an HTML page with SVG figures",
  builder: (y) =>
    withBackend(y)
      .option("model", { type: "string", demandOption: true, describe: "model file (.safetensors) written by tinylab train/overfit" })
      .option("data", { type: "string", describe: "documents file (JSONL, src/data/files.ts); default: the built-in overfit fixture" })
      .option("out", { type: "string", default: "results/report", describe: "output directory for report.json and report.html" })
      .option("stride", { type: "number", describe: "headline window stride (default: half the context, rounded up)" })
      .option("seed", { type: "number", default: 0, describe: "seed of sampling and bootstrap streams" })
      .option("replicates", { type: "number", default: 1000, describe: "bootstrap replicates" })
      .option("canary", { type: "string", describe: "canary string to probe (its last --canary-secret tokens given the rest)" })
      .option("canary-secret", { type: "number", default: 2, describe: "tokens of the canary treated as its secret" })
      .option("canary-reference", { type: "string", describe: "model file fitted WITHOUT the canary, for the with/without comparison" }),
  handler: async (argv) => {
    const modelPath = requireFile(argv.model as string, "model file");
    await startEngine(argv.backend as string);
    const loaded: LoadedModel[] = [];
    try {
      const main = loadModel(modelPath);
      loaded.push(main);
      const dataPath = argv.data as string | undefined;
      const docs: Document[] = dataPath ? readDocumentsFile(requireFile(dataPath, "documents file"), main.tokenizer) : OVERFIT_TEXTS.map((d) => encodeDocument(main.tokenizer, d));
      let without;
      if (argv["canary-reference"]) {
        const ref = loadModel(requireFile(argv["canary-reference"] as string, "canary reference model"));
        loaded.push(ref);
        without = decoderAdapter(ref.model, { name: `without canary (${argv["canary-reference"]})` });
      }
      const report = buildReport(decoderAdapter(main.model, { name: modelPath }), main.tokenizer, docs, {
        baselines: allBaselines(docs.filter((d) => d.split === "train"), { vocabSize: main.model.config.vocabSize, contextLength: main.model.config.contextLength }),
        stride: argv.stride as number | undefined,
        seed: argv.seed as number,
        replicates: argv.replicates as number,
        canary: argv.canary ? { text: argv.canary as string, secretTokens: argv["canary-secret"] as number, without } : undefined,
        model: modelIdentity(modelPath, { path: modelPath, sha256: main.sha256 }),
        data: dataPath ? { description: `documents file ${dataPath}`, path: dataPath } : { description: DEFAULT_DATA_DESCRIPTION },
        progress: process.stderr,
      });
      const out = argv.out as string;
      writeOutput(join(out, "report.json"), toJson(report));
      writeOutput(join(out, "report.html"), reportHtml(report));
      console.log(formatReport(report));
      console.log(`\nwrote ${join(out, "report.json")}\nwrote ${join(out, "report.html")}`);
    } finally {
      for (const l of loaded) l.model.dispose();
    }
  },
};
