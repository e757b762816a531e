// The documents a scorer (evaluate, report, compare, the lab page) is given, encoded with the model file's own
// tokenizer: a run's text split (already rebuilt and sha256-checked by src/node/text_files.ts or the page), a
// JSONL documents file's bytes, or the overfit fixture; with the check that the model trained on them. Pure.
import { encodeDocument, type Document, type TextDocument } from "../src/data/documents.ts";
import { parseDocumentsBytes } from "../src/data/documents_jsonl.ts";
import { OVERFIT_TEXTS } from "../src/data/fixtures.ts";
import type { Tokenizer } from "../src/data/tokenizer.ts";
import type { ModelProvenance } from "../src/lab/model_metadata.ts";
import { trainedOnNote, type GivenData } from "../src/lab/trained_on.ts";

/** A run's split as text: every document of every split, and what it is (src/node/text_files.ts RunText, flattened). */
export interface ScoringText {
  source: string;
  manifestSha256: string;
  docs: TextDocument[];
}

/** What a scorer scores: the text of a run, a documents file (its name and bytes), or neither (the fixture). */
export interface ScoringInput {
  text?: ScoringText;
  documents?: { name: string; bytes: Uint8Array };
}

export interface ScoringDocuments {
  docs: Document[];
  /** How the data is named in the result. */
  source: string;
  given: GivenData;
  /** One line when the model was not trained on these documents (src/lab/trained_on.ts); absent when it was, or cannot say. */
  note?: string;
}

/** The documents, encoded with `tokenizer`; refused for a text-trained model given none (it names --run and --text). */
export function scoringDocuments(
  model: string,
  loaded: { tokenizer: Tokenizer; provenance: ModelProvenance },
  input: ScoringInput,
): ScoringDocuments {
  if (input.text && input.documents) throw new Error("give one of --run/--text (a run's text) and --data (a JSONL documents file)");
  const given: GivenData = input.text
    ? { kind: "text", source: input.text.source, manifestSha256: input.text.manifestSha256 }
    : input.documents
      ? { kind: "documents", path: input.documents.name }
      : { kind: "fixture" };
  const note = trainedOnNote(model, loaded.provenance, given);
  const docs = input.text
    ? input.text.docs.map((d) => encodeDocument(loaded.tokenizer, d))
    : input.documents
      ? parseDocumentsBytes(input.documents.bytes, loaded.tokenizer, input.documents.name)
      : OVERFIT_TEXTS.map((d) => encodeDocument(loaded.tokenizer, d));
  const source = input.text?.source ?? input.documents?.name ?? "overfit fixture";
  return { docs, source, given, ...(note ? { note } : {}) };
}
