// Console summary of a `tinylab train` run with validation (experiments/train.ts): the update validation chose and
// the last one beside every baseline on the same targets, and the files written. Presentation only.

interface Summary {
  validation: { update: number; nll: number; targets: number } | null;
  initial_validation_nll: number | null;
  best: { update: number; validation_nll: number; file: string | null } | null;
  early_stop: { at: number; patience: number } | null;
  baselines: { name: string; validation_nll: number }[];
  files: { history: string | null; curve: string | null } | null;
}

export function formatTrainSummary(s: Summary): string[] {
  if (!s.validation) return [];
  const lines = [`validation (whole split, ${s.validation.targets} targets, stride = context), nats per token:`];
  const row = (name: string, nll: number, note = "") => `  ${name.padEnd(28)} ${nll.toFixed(6)}${note}`;
  const best = s.best;
  if (s.initial_validation_nll !== null && best?.update !== 0) lines.push(row("model at update 0", s.initial_validation_nll));
  if (best && best.update !== s.validation.update)
    lines.push(row(`model at update ${best.update}`, best.validation_nll, "  best on validation (optimistic: chosen on it)"));
  lines.push(
    row(
      `model at update ${s.validation.update}`,
      s.validation.nll,
      best?.update === s.validation.update ? "  last, and best on validation" : best ? "  last" : "",
    ),
  );
  for (const b of s.baselines) lines.push(row(b.name, b.validation_nll));
  if (best?.file)
    lines.push(`best model (update ${best.update}, selected on validation: only --final-test's test split is unbiased) → ${best.file}`);
  if (s.early_stop)
    lines.push(
      `stopped early at update ${s.early_stop.at} (--patience ${s.early_stop.patience}: no new best in ${s.early_stop.patience} scorings)`,
    );
  if (s.files?.history) lines.push(`history ${s.files.history}, curve ${s.files.curve}`);
  return lines;
}
