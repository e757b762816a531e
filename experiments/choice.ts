// `tinylab choice` as a recipe: multiple-choice questions from a JSONL file (src/data/choice_file.ts) scored by a
// model file's candidate log-likelihoods (src/eval/metrics/multiple_choice.ts): acc and acc_norm with chance and Wilson intervals.
import { parseChoiceJsonl } from "../src/data/choice_file.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { proportion, type WilsonBounds } from "../src/eval/metrics/aggregate.ts";
import { continuationLogProb, type ContinuationScore } from "../src/eval/passes/memorization.ts";
import { choiceTask, lmEvalModel, type LmEvalModel, type LmEvalTask } from "../src/eval/loggers/lm_eval.ts";
import { parameterCount } from "../src/model/config.ts";
import { scoreMultipleChoice } from "../src/eval/metrics/multiple_choice.ts";
import { decodeModelFile } from "../src/lab/model_file.ts";
import { FILE_LIMIT } from "../src/node/files.ts";
import { readFileText, readModelFileBytes } from "../src/node/disk.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Engine } from "../src/util/engine.ts";
import type { AnyTokenizer } from "../src/data/tokenizer.ts";
import type { ScoringModel } from "../src/model/scoring.ts";
import { isModelDir, openModelDir } from "../src/node/model_dir.ts";
import { dirTokenizer, type DirOptions } from "./model_dir.ts";
import { conventionRecord, type ConventionRecord } from "../src/eval/passes/convention.ts";
import { MODEL_DIR_DEFAULTS } from "./options.ts";

export interface ChoiceOptions extends Partial<DirOptions> {
  model: string;
  data: string;
  /** The engine that computes (src/util/engine.ts); absent: tfjs's own kernels of the current backend. */
  engine?: Engine;
}

export interface ChoiceReport {
  model: string;
  model_sha256: string;
  data: string;
  questions: number;
  acc: { value: number; correct: number } & ChoiceWilson;
  acc_norm: { value: number; correct: number; normalised_by: string } & ChoiceWilson;
  chance: number;
  /** A model directory's BOS/EOS convention (the question follows its prefix); absent for a model file. */
  convention?: ConventionRecord;
  items: {
    id: string;
    gold: number;
    predicted: number;
    predicted_norm: number;
    sum_log_lik: readonly number[];
    per_token_log_lik: readonly number[];
  }[];
  provenance: Provenance;
}

/** Wilson's interval of a 0/1 per question, or null and the reason under MIN_INTERVAL_DOCUMENTS questions. */
type ChoiceWilson = { wilson: WilsonBounds | null; wilson_reason?: string };
function wilsonOf(successes: readonly number[]): ChoiceWilson {
  const p = proportion(successes);
  return { wilson: p.interval, ...(p.interval_reason ? { wilson_reason: p.interval_reason } : {}) };
}

/**
 * The questions scored by `model`, each question after `tokenizer`'s BOS (a model directory's: its convention's
 * prefix), and the same questions as an lm-evaluation-harness multiple_choice task (`task` names it): each
 * candidate's summed log-likelihood and whether it is the greedy continuation, acc and acc_norm as the harness counts them.
 */
function scoreQuestions(
  o: ChoiceOptions,
  model: ScoringModel,
  tokenizer: Pick<AnyTokenizer, "bos" | "encode">,
  sha256: string,
  task: string,
): { report: ChoiceReport; lmEval: LmEvalTask } {
  const questions = parseChoiceJsonl(readFileText(o.data, "choice file", FILE_LIMIT), tokenizer, o.data);
  const scores = new Map<readonly number[], ContinuationScore>(); // by candidate: each is scored once
  const r = scoreMultipleChoice(questions, (ctx, cont) => {
    const s = continuationLogProb(model, ctx, cont);
    scores.set(cont, s);
    return s.perToken;
  });
  const lmEval = choiceTask(
    task,
    questions.map((q, i) => ({
      doc: { id: q.id, question: q.text.question, candidates: q.text.candidates, answer: q.gold },
      context: q.text.question,
      choices: q.text.candidates,
      gold: q.gold,
      loglikelihoods: r.items[i].sumLogLik,
      greedy: q.candidates.map((c) => scores.get(c)!.greedy),
    })),
    { dataset_path: o.data },
  );
  const correct = r.items.filter((i) => i.correct).length,
    correctNorm = r.items.filter((i) => i.correctNorm).length;
  const report: ChoiceReport = {
    model: o.model,
    model_sha256: sha256,
    data: o.data,
    questions: r.count,
    acc: { value: r.acc, correct, ...wilsonOf(r.items.map((i) => (i.correct ? 1 : 0))) },
    acc_norm: {
      value: r.accNorm,
      correct: correctNorm,
      ...wilsonOf(r.items.map((i) => (i.correctNorm ? 1 : 0))),
      normalised_by: "candidate tokens (summed log-likelihood / token count)",
    },
    chance: r.chance,
    items: r.items.map((it, i) => ({
      id: questions[i].id,
      gold: questions[i].gold,
      predicted: it.predicted,
      predicted_norm: it.predictedNorm,
      sum_log_lik: it.sumLogLik,
      per_token_log_lik: it.perTokenLogLik,
    })),
    provenance: provenance(o.engine ?? tfjsOnly()),
  };
  return { report, lmEval };
}

export function runChoice(o: ChoiceOptions): ChoiceReport {
  return scoreChoices(o).report;
}

/**
 * The report and its lm-evaluation-harness task; `lmEvalModel` (the harness's model record) for a model file only:
 * a model directory has no tinylab seed or update to record.
 */
export function scoreChoices(
  o: ChoiceOptions,
  task = "tinylab_choice",
): { report: ChoiceReport; lmEval: LmEvalTask; lmEvalModel?: LmEvalModel } {
  if (isModelDir(o.model)) {
    const convention = o.convention ?? MODEL_DIR_DEFAULTS.convention;
    const m = openModelDir(o.model, o);
    const { report, lmEval } = scoreQuestions(o, m.model, dirTokenizer(m, convention), m.provenance.sha256, task);
    return { report: { ...report, convention: conventionRecord(convention, m.special) }, lmEval };
  }
  const loaded = decodeModelFile(readModelFileBytes(o.model), o.model, o.engine);
  try {
    return {
      ...scoreQuestions(o, decoderAdapter(loaded.model), loaded.tokenizer, loaded.sha256, task),
      lmEvalModel: lmEvalModel(o.model, loaded, parameterCount(loaded.config)),
    };
  } finally {
    loaded.model.dispose();
  }
}
