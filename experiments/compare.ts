// `tinylab compare` as a recipe: two model files, or a model file and a count baseline, scored on the same targets
// of one split (src/eval/compare/compare.ts: per-document paired bootstrap of the NLL and bits-per-byte differences, McNemar).
import { allBaselines, DEFAULT_SMOOTHING_K, MAX_BASELINE_TABLE } from "../src/baselines/ngram.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { compareSides, type CompareResult, type CompareSide, type CompareTokens } from "../src/eval/compare/compare.ts";
import { MIN_REPLICATES } from "../src/eval/metrics/intervals.ts";
import { decodeModelFile, type LoadedModel } from "../src/lab/model_file.ts";
import { readModelFileBytes, requireFile } from "../src/node/disk.ts";
import { readDocumentsBytes } from "../src/node/files.ts";
import { provenance } from "../src/util/runtime/provenance.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import { isModelDir, openModelDir } from "../src/node/model_dir.ts";
import { dirDocuments } from "./model_dir.ts";
import { conventionRecord, type Convention } from "../src/eval/passes/convention.ts";
import { MODEL_DIR_DEFAULTS } from "./options.ts";
import { COMPARE_DEFAULTS, type CompareOptions } from "./options.ts";
import { COMPARE_BASELINES } from "./option_catalogue.ts";
import { scoringDocuments, type ScoringDocuments } from "./scoring_data.ts";
import { chosenSplits } from "./evaluate.ts";
export { COMPARE_DEFAULTS, COMPARE_BASELINES, type CompareOptions, type CompareResult, type CompareTokens };

function checkOptions(o: CompareOptions): void {
  if ((o.b === undefined) === (o.baseline === undefined))
    throw new Error("compare needs exactly one of a second model file (B) or --baseline NAME");
  if (o.baseline !== undefined && !(COMPARE_BASELINES as readonly string[]).includes(o.baseline))
    throw new Error(`--baseline must be one of ${COMPARE_BASELINES.join(", ")}, got ${JSON.stringify(o.baseline)}`);
  chosenSplits(o.split, o.finalTest); // the test split only with --final-test: evaluate's rule, refused in its words
  if (!Number.isInteger(o.replicates) || o.replicates < MIN_REPLICATES)
    throw new Error(`--replicates must be an integer ≥ ${MIN_REPLICATES}, got ${o.replicates}`);
}

/** A model file's documents are always tinylab's: BOS + text + EOS, the EOS a target (src/data/documents.ts). */
const FILE_CONVENTION: Convention = "tinylab";
const dirConvention = (o: CompareOptions): Convention => o.convention ?? MODEL_DIR_DEFAULTS.convention;

/**
 * A directory against a model file is scored under one convention only when one is named: by default the directory
 * would go without its EOS target (rolling) and the file with it (tinylab), and B − A would count EOS on one side only.
 * A --convention the user names is theirs to choose, and each side's is printed and recorded.
 */
function checkConventions(o: CompareOptions): void {
  if (o.b === undefined || o.convention !== undefined || isModelDir(o.a) === isModelDir(o.b)) return;
  const d = dirConvention(o);
  if (d === FILE_CONVENTION) return;
  throw new Error(
    `compare a model directory with a model file: by default the directory is scored under --convention ${d} (no EOS target) and the model file under ${FILE_CONVENTION} (BOS + text + EOS, the EOS a target); pass --convention ${FILE_CONVENTION} to score both the same way, or --convention ${d} to keep the two`,
  );
}

/**
 * A model directory as one side: the documents under its tokenizer and `o.convention`; its tokenizer is named by
 * tokenizer.json's sha256 and the convention, so it shares targets only with a directory of the same two.
 */
function dirSide(o: CompareOptions, path: string): { side: CompareSide; data: ScoringDocuments } {
  const convention = dirConvention(o);
  const m = openModelDir(path, { graph: o.graph, allowNonFloat32: o.allowNonFloat32 });
  const { docs, source } = dirDocuments(m, convention, { data: o.data, text: o.text });
  const tokenizerSha = m.provenance.files.find((f) => f.name === "tokenizer.json")!.sha256;
  const recorded = conventionRecord(convention, m.special);
  const side = {
    name: path,
    path,
    model_sha256: m.provenance.sha256,
    tokenizer: { kind: "tokenizer.json", sha256: tokenizerSha, convention: recorded },
    tokenizerObj: m.tokenizer,
    convention: recorded,
    scorer: m.model,
    docs,
  };
  return { side, data: { docs, source, given: { kind: "documents", path: source } } };
}

/** A model file as one side: its documents (a run's text, a documents file or the fixture) under its own tokenizer. */
function modelSide(o: CompareOptions, path: string, what: string, loaded: LoadedModel[]): { side: CompareSide; data: ScoringDocuments } {
  if (isModelDir(path)) return dirSide(o, path);
  const l = decodeModelFile(readModelFileBytes(path, what), path, o.engine);
  loaded.push(l);
  const documents = o.data ? { name: o.data, bytes: readDocumentsBytes(requireFile(o.data, "documents file")) } : undefined;
  const data = scoringDocuments(path, l, { text: o.text, documents });
  const side = {
    name: path,
    path,
    model_sha256: l.sha256,
    tokenizer: l.tokenizer.toJSON(),
    tokenizerObj: l.tokenizer,
    convention: conventionRecord(FILE_CONVENTION, l.tokenizer),
    scorer: decoderAdapter(l.model, { name: path }),
    docs: data.docs,
  };
  return { side, data };
}

/** Compare A with B (a model file or a baseline fitted on the data's train split); every model is disposed. */
export function runCompare(o: CompareOptions): { result: CompareResult; tokens: CompareTokens | null } {
  checkOptions(o);
  checkConventions(o);
  const loaded: LoadedModel[] = [];
  try {
    const { side: a, data } = modelSide(o, o.a, "model file A", loaded);
    const notes = data.note ? [data.note] : [];
    let b: CompareSide;
    if (o.b !== undefined) {
      const other = modelSide(o, o.b, "model file B", loaded);
      if (other.data.note) notes.push(other.data.note);
      b = other.side;
    } else {
      const train = a.docs.filter((d) => d.split === "train");
      const V = a.scorer.binding.vocabSize;
      if (V * V > MAX_BASELINE_TABLE)
        throw new Error(
          `--baseline ${o.baseline}: a count baseline of A's ${V}-token vocabulary holds a ${V} × ${V} table, more than MAX_BASELINE_TABLE (${MAX_BASELINE_TABLE}) entries; compare A with a second model instead`,
        );
      if (train.length === 0) throw new Error(`--baseline ${o.baseline}: no train documents in ${data.source} to fit it on`);
      const scorer = allBaselines(train, a.scorer.binding, DEFAULT_SMOOTHING_K)[
        COMPARE_BASELINES.indexOf(o.baseline as (typeof COMPARE_BASELINES)[number])
      ];
      b = { ...a, name: `${scorer.name}, fitted on ${train.length} train documents`, path: null, model_sha256: null, scorer };
    }
    return compareSides(a, b, o, { source: data.source, notes }, provenance(o.engine ?? tfjsOnly()));
  } finally {
    for (const l of loaded) l.model.dispose();
  }
}
