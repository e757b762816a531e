// The scoring commands' documents as lm-evaluation-harness tasks (evaluate's and report's --lm-eval-out): one
// loglikelihood_rolling task per split. Not the file format (src/eval/loggers/lm_eval.ts) and not the scoring (src/eval/passes/rolling.ts).
import type { Document, Split } from "../src/data/documents.ts";
import type { Tokenizer } from "../src/data/tokenizer.ts";
import type { ScoringModel } from "../src/model/scoring.ts";
import { lmEvalDataName, rollingTask, type LmEvalTask } from "../src/eval/loggers/lm_eval.ts";
import { rollingDocument, rollingLoglikelihoods } from "../src/eval/passes/rolling.ts";

/**
 * One split as a loglikelihood_rolling task named `<data>_<split>`, all of the split's documents in it: each text (the
 * content ids decoded; an `ids` row's trailing EOS is not text) scored after BOS with no EOS, its loglikelihood and identity.
 */
export function rollingSplitTask(
  adapter: ScoringModel,
  docs: readonly Document[],
  tokenizer: Tokenizer,
  source: string,
  split: Split,
  rows: number,
): LmEvalTask {
  const content = docs.map((d) => d.ids.slice(1, d.ids.at(-1) === tokenizer.eos ? -1 : undefined));
  const rolled = docs.map((d, i) => rollingDocument(d, content[i], tokenizer.bos));
  const present = rolled.filter((d) => d !== undefined);
  const scored = present.length === 0 ? [] : rollingLoglikelihoods(adapter, present, rows);
  let next = 0;
  const name = `${lmEvalDataName(source)}_${split}`;
  return rollingTask(
    name,
    docs.map((d, i) => {
      const text = tokenizer.decode(content[i]);
      return {
        doc: { id: d.id, split: d.split, source: d.source, text },
        text,
        loglikelihood: rolled[i] ? scored[next++].loglikelihood : 0,
      };
    }),
    {
      dataset_path: source,
      [`${split === "train" ? "training" : split}_split`]: split,
      metadata: { version: 1.0, convention: "the text's tokens after BOS, no EOS (loglikelihood_rolling)" },
    },
  );
}
