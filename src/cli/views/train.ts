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
  if (s.initial_validation_nll !== null) lines.push(`  model at update 0 ${" ".repeat(10)} ${s.initial_validation_nll.toFixed(6)}`);
  lines.push(`  model at update ${String(s.validation.update).padEnd(10)} ${s.validation.nll.toFixed(6)}`);
  for (const b of s.baselines) lines.push(`  ${b.name.padEnd(27)} ${b.validation_nll.toFixed(6)}`);
  if (s.files?.history) lines.push(`history ${s.files.history}, curve ${s.files.curve}`);
  return lines;
}
