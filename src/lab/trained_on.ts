// Whether the documents a command scores are the ones its model was trained against, read from the model file's
// provenance `data` (written by train --text). One refusal (no data for a text model) and one-line notes; no scoring.
import type { TextDataProvenance } from "../data/text_split.ts";
import type { ModelProvenance } from "./model_metadata.ts";

/** The documents a scorer was given: the built-in fixture, a JSONL documents file, or a run's text split. */
export type GivenData =
  { kind: "fixture" } | { kind: "documents"; path: string } | { kind: "text"; source: string; manifestSha256: string };

const short = (hex: string) => `${hex.slice(0, 12)}…`;
const named = (d: TextDataProvenance) =>
  `${d.files.length === 1 ? d.files[0] : `${d.files.length} text files`}, manifest sha256 ${short(d.manifest_sha256)}`;

/**
 * Refuses to score a text-trained model on the overfit fixture (naming --run and --text); otherwise a one-line
 * note when the data is not the split the model trained on, or undefined when it is (or the model records nothing).
 */
export function trainedOnNote(model: string, prov: ModelProvenance, given: GivenData): string | undefined {
  const d = prov.data;
  if (d === undefined) return undefined;
  if (given.kind === "fixture") {
    throw new Error(
      `${model} was trained on text (${named(d)}): give --run DIR (the directory train --text wrote) or --text PATH to score its own split, or --data FILE for other documents`,
    );
  }
  if (given.kind === "documents")
    return `note: ${model} was trained on text (${named(d)}), not on ${given.path}: these are not its own splits`;
  if (given.manifestSha256 !== d.manifest_sha256) {
    return `note: ${model} was trained on another split (${named(d)}); ${given.source} has manifest sha256 ${short(given.manifestSha256)}: not the data it was trained against`;
  }
  return undefined;
}
