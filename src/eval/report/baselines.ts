// The report's count baselines: the caller's reference scorers (fitted on the training documents) scored on the
// same windows at the same stride as the model, by the same code, so the headline sets them side by side.
import { DEFAULT_SMOOTHING_K } from "../../baselines/ngram.ts";
import { htmlTable } from "../../util/render/html.ts";
import { bitsPerByte } from "../metrics/bpb.ts";
import type { BaselinesValue } from "./types.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { groupBpb, groupRecord, groupWindowsWithOverall } from "../passes/grouped.ts";
import { reasoned } from "../metrics/reasoned.ts";
import { fixed, para } from "../render/format.ts";
import { TOKEN_WEIGHTED } from "./perplexity.ts";

const NO_BYTES = "the scored targets stand for no bytes (BOS, EOS and PAD count 0)";

export const baselinesEvaluator: Evaluator<BaselinesValue> = {
  key: "baselines",
  id: "count-baselines",
  version: 1,
  aggregation: TOKEN_WEIGHTED,
  identity: {
    key: "baselines",
    settings: ({ settings: s }) => ({
      stride: s.stride,
      k: s.baselineSmoothing?.k ?? DEFAULT_SMOOTHING_K,
      ...(s.baselineSmoothing?.lambda !== undefined ? { lambda: s.baselineSmoothing.lambda } : {}),
    }),
  },
  check: ({ model, settings }) => {
    for (const b of settings.baselines) {
      if (b.binding.vocabSize !== model.binding.vocabSize || b.binding.contextLength !== model.binding.contextLength) {
        throw new Error(
          `report: baseline "${b.name}" is bound to vocab ${b.binding.vocabSize}/context ${b.binding.contextLength}, the model to ${model.binding.vocabSize}/${model.binding.contextLength}`,
        );
      }
    }
  },
  compute: ({ train, settings, tokenizer, bySplit, score }) => {
    if (settings.baselinesNotRun) return { status: `not run: ${settings.baselinesNotRun}` };
    if (train.length === 0) return { status: "not run: no training documents to fit baselines on" };
    const splits = bySplit.map(([, d]) => d),
      docs = splits.flat();
    const groups = settings.baselines.flatMap((b) =>
      groupWindowsWithOverall(splits.map((d) => score(b, d, settings.stride, { tokenizer }))).map((g) => {
        const r = groupRecord(g);
        return {
          baseline: b.name,
          ...r,
          ...reasoned("bits_per_byte", bitsPerByte(r.total_nll, groupBpb(g, docs, tokenizer).bytes), NO_BYTES),
        };
      }),
    );
    return { stride: settings.stride, fitted_on: "train documents", groups };
  },
  render: {
    html: (b, r) => [
      {
        heading: `Count baselines, every group (stride ${"groups" in b ? b.stride : r.perplexity.stride})`,
        html:
          "groups" in b
            ? htmlTable(
                ["baseline", "split", "source", "targets", "NLL", "perplexity", "bits per byte"],
                b.groups.map((g) => [
                  g.baseline,
                  g.split,
                  g.source,
                  g.targets,
                  { num: fixed(g.nll) },
                  { num: fixed(g.perplexity, 2) },
                  { num: fixed(g.bits_per_byte) },
                ]),
              )
            : para(b.status),
      },
    ],
    // the page and the card show them in the headline, beside the model; the console summary leaves them out.
    // Baselines not run leave the headline without them, so the card and the console say why
    markdown: (b) => ("groups" in b ? [] : [`Count baselines: ${b.status}.`, ""]),
    console: (b) => ("groups" in b ? [] : [`count baselines: ${b.status}`]),
    figures: notShown,
  },
};
