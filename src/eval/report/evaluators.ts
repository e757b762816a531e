// The report's metrics, in the order report.json holds them, the page shows them and the console prints them; the
// order means nothing else (no evaluator reads another's value).
// Adding a metric is one evaluator file (evaluator.ts says what it declares) and one line here.
import type { Evaluator } from "./evaluator.ts";
import { bpbEvaluator } from "./bpb.ts";
import { baselinesEvaluator } from "./baselines.ts";
import { calibrationEvaluator } from "./calibration.ts";
import { contaminationEvaluator } from "./contamination.ts";
import { diversityEvaluator, generationEvaluator, overlapEvaluator } from "./generation.ts";
import { canaryEvaluator, verbatimEvaluator } from "./memorization.ts";
import { perplexityAtContextEvaluator, perplexityByStrideEvaluator, perplexityEvaluator } from "./perplexity.ts";
import { lossByPositionEvaluator } from "./position.ts";

export const REPORT_EVALUATORS: readonly Evaluator[] = [
  perplexityEvaluator,
  perplexityAtContextEvaluator,
  bpbEvaluator,
  lossByPositionEvaluator,
  calibrationEvaluator,
  generationEvaluator,
  overlapEvaluator,
  diversityEvaluator,
  verbatimEvaluator,
  contaminationEvaluator,
  canaryEvaluator,
  baselinesEvaluator,
  perplexityByStrideEvaluator,
];
