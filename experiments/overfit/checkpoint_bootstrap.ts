// Multi-Bootstrap intervals of a validation NLL at each scored update (checkpoint) of several seeds, over seeds ×
// documents and over each alone, from one "bootstrap" stream. Pure; the overfit recipe reports it.
import { Rng } from "../../src/util/primitives/rng.ts";
import { gatedMultiBootstrap, type Arm } from "../../src/eval/metrics/multi_bootstrap.ts";

/** One document's cell at one checkpoint: its summed NLL and target count. */
export type DocumentCell = { total_nll: number; targets: number };

/** What the intervals are computed from: per seed, per checkpoint, the validation documents' cells. */
export type SeedCheckpoints = { seed: number; checkpoints: { update: number; validation_by_document: DocumentCell[] }[] };

/**
 * The validation NLL at each checkpoint with Multi-Bootstrap intervals over seeds × validation documents (both
 * resampled), and, beside it, seeds only and documents only, from the "bootstrap" stream of `bootstrapSeed`.
 */
export function checkpointBootstrap(
  runs: readonly SeedCheckpoints[],
  o: { checkpoints: readonly number[]; replicates: number; bootstrapSeed: number },
  note: string,
) {
  const rng = Rng.fromSeed(o.bootstrapSeed).child("bootstrap");
  const opts = { replicates: o.replicates };
  const checkpoints = o.checkpoints.map((update) => {
    const cells = runs.map((r) => r.checkpoints.find((c) => c.update === update)!.validation_by_document);
    const arm: Arm = {
      seeds: runs.map((r) => r.seed),
      nll: cells.map((row) => row.map((c) => c.total_nll)),
      targets: cells.map((row) => row.map((c) => c.targets)),
    };
    // under MIN_INTERVAL_DOCUMENTS validation documents each is the estimate alone, with the reason
    return {
      update,
      both: gatedMultiBootstrap(arm, rng, opts),
      seeds_only: gatedMultiBootstrap(arm, rng, { ...opts, resample: "seeds" }),
      documents_only: gatedMultiBootstrap(arm, rng, { ...opts, resample: "documents" }),
    };
  });
  return {
    statistic: "validation NLL, token-weighted over the resampled seeds × documents (Σ NLL / Σ targets)",
    level: 0.95,
    replicates: o.replicates,
    bootstrap_seed: o.bootstrapSeed,
    seeds: runs.length,
    documents: runs[0].checkpoints[0].validation_by_document.length,
    note,
    checkpoints,
  };
}
