// Console summary of a `tinylab train` run with validation (experiments/train.ts): the last whole-split validation
// NLL beside every baseline on the same targets, and the files written. Presentation only.

interface Summary {
  validation: { update: number; nll: number; targets: number } | null;
  initial_validation_nll: number | null;
  baselines: { name: string; validation_nll: number }[];
  files: { history: string | null; curve: string | null } | null;
}

export function formatTrainSummary(s: Summary): string[] {
  if (!s.validation) return [];
  const lines = [`validation (whole split, ${s.validation.targets} targets, stride = context), nats per token:`];
  const row = (name: string, nll: number) => `  ${name.padEnd(28)} ${nll.toFixed(6)}`;
  if (s.initial_validation_nll !== null) lines.push(row("model at update 0", s.initial_validation_nll));
  lines.push(row(`model at update ${s.validation.update}`, s.validation.nll));
  for (const b of s.baselines) lines.push(row(b.name, b.validation_nll));
  if (s.files?.history) lines.push(`history ${s.files.history}, curve ${s.files.curve}`);
  return lines;
}
