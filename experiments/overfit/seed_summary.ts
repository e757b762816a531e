// Summary of one number per seed (e.g. final validation NLL): count, mean, sample SD (K − 1), min, max.
// It describes initialization variation only; it is not a confidence interval over data.

import { reasoned } from "../../src/eval/metrics/reasoned.ts";

export function seedSummary(values: readonly number[]) {
  if (values.length === 0) throw new Error("seed summary needs at least one value");
  for (const v of values) if (!Number.isFinite(v)) throw new Error(`seed summary got a non-finite value ${v}`);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sample_sd = values.length > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1)) : NaN;
  return {
    count: values.length,
    mean,
    ...reasoned("sample_sd", sample_sd, "one seed: a sample SD needs at least two"),
    min: Math.min(...values),
    max: Math.max(...values),
    interpretation:
      "Spread across initialization seeds on this one fixed split and training policy only; not a confidence interval over documents or a population.",
  };
}
