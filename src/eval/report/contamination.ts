// The report's contamination audit: each scored held-out split's documents checked for word 13-grams shared
// with the training documents given, with the token-weighted NLL of the headline pass on all documents and on
// the unflagged ones only. Exact matches only: a clean audit is no proof of a clean split.
import { htmlTable } from "../../util/render/html.ts";
import { contaminationAudit } from "../metrics/contamination.ts";
import type { ContaminationValue } from "./types.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { reasoned } from "../metrics/reasoned.ts";
import { fixed, para, shown } from "../render/format.ts";
import { meanNll } from "../metrics/summary.ts";

const CONTAMINATION_N = 13;

export const contaminationEvaluator: Evaluator<ContaminationValue> = {
  key: "contamination",
  id: "ngram-contamination",
  version: 1,
  aggregation: {
    kind: "ratio-of-sums",
    numerator: "total_nll",
    denominator: "targets",
    over: "the headline windows of the documents kept",
  },
  identity: {
    key: "contamination",
    settings: () => ({ n: CONTAMINATION_N, threshold: 0, words: "lowercased runs of letters, digits and _" }),
  },
  compute: ({ train, tokenizer, bySplit, headline }) => {
    if (train.length === 0) return { status: "not run: no training documents to audit against" };
    const trainTexts = train.map((d) => tokenizer.decode(d.ids));
    const nllOf = (ws: readonly { totalNll: number; scored: number }[]) => {
      const sums = { totalNll: ws.reduce((t, w) => t + w.totalNll, 0), targets: ws.reduce((n, w) => n + w.scored, 0) };
      return { targets: sums.targets, ...reasoned("nll", meanNll(sums), "no targets: every document is flagged") };
    };
    const splits = bySplit.flatMap(([split, docs], i) => {
      if (split === "train") return [];
      const audit = contaminationAudit(
        docs.map((d) => ({ id: d.id, text: tokenizer.decode(d.ids) })),
        trainTexts,
        { n: CONTAMINATION_N },
      );
      const flagged = new Set(audit.flaggedIds);
      const windows = headline[i].windows;
      return [
        {
          split,
          documents: docs.length,
          flagged: audit.flaggedIds,
          flagged_fraction: audit.flaggedFraction,
          unauditable: audit.unauditable,
          all_documents: nllOf(windows),
          unflagged_documents: nllOf(windows.filter((w) => !flagged.has(w.doc))),
        },
      ];
    });
    return {
      n: CONTAMINATION_N,
      threshold: 0,
      against: `${train.length} training documents`,
      note: "exact word n-gram matches only: paraphrases and text not given are invisible; an unauditable document is shorter than n words",
      splits,
    };
  },
  render: {
    html: (c) => [
      {
        heading: "Contamination: word n-gram audit against the training documents",
        html: !("splits" in c)
          ? para(c.status)
          : para(`${c.n}-grams, flagged at any shared ${c.n}-gram, against ${c.against}; ${c.note}.`) +
            htmlTable(
              ["split", "documents", "flagged", "unauditable", "NLL, all documents", "NLL, unflagged only", "flagged ids"],
              c.splits.map((s) => [
                s.split,
                s.documents,
                s.flagged.length,
                s.unauditable,
                `${fixed(s.all_documents.nll)} (${s.all_documents.targets} targets)`,
                `${fixed(s.unflagged_documents.nll)} (${s.unflagged_documents.targets} targets)`,
                s.flagged.length > 0 ? s.flagged.join(", ") : "none",
              ]),
            ),
      },
    ],
    markdown: notShown,
    figures: notShown,
    console: (c) =>
      "splits" in c
        ? c.splits.map(
            (s) =>
              `contamination (${c.n}-grams vs ${c.against}): ${s.split} ${s.flagged.length} of ${s.documents} documents flagged, ${s.unauditable} too short to audit; NLL ${shown(s.all_documents, "nll")} on all ${s.all_documents.targets} targets, ${shown(s.unflagged_documents, "nll")} on ${s.unflagged_documents.targets} unflagged`,
          )
        : [`contamination: ${c.status}`],
  },
};
