// `tinylab export` as a recipe: a model file decoded (validated, no model built, no engine started), its forward
// probed as evaluate probes it, and written as a Hugging Face GPT-2 directory with its ONNX graph (what
// transformers.js loads), sealed by a manifest of its files' sha256s, or as the ONNX graph alone. Not a converter
// back (src/node/model_dir.ts scores the directory as it is).
import { decodeModelParts } from "../src/lab/model_file.ts";
import { ModelFileError } from "../src/lab/file_checks.ts";
import { readFileBytes, readFileText, readModelFileBytes } from "../src/node/disk.ts";
import { checkOutputDir } from "../src/node/writable.ts";
import { entriesOneDeep, writeFilesAtomic } from "../src/node/output_files.ts";
import { claimOutputDir, type OutputDir } from "../src/node/output_dir.ts";
import { FILE_LIMIT } from "../src/node/files.ts";
import { encodeSafetensors } from "../src/util/formats/safetensors.ts";
import { gpt2Config, gpt2Tensors, hfSpecialTokens, hfTokenizer, hfTokenizerConfig } from "../src/model/hf_gpt2.ts";
import { onnxModel, readOnnxMetadata } from "../src/model/onnx.ts";
import { MANIFEST_FILE, manifestText } from "../src/model/dir_manifest.ts";
import type { ModelConfig } from "../src/model/config.ts";
import { GPT } from "../src/model/gpt.ts";
import type { ParamArrays } from "../src/model/init.ts";
import { refuseNonFiniteForward } from "../src/lab/finite_forward.ts";
import { EXPORT_FORMATS, type ExportFormat } from "./option_catalogue.ts";
import { phase, type Progress, type ProgressStream } from "../src/util/runtime/progress.ts";

/** The key in config.json that marks a directory as written by this recipe (transformers keeps unknown keys as attributes). */
export const EXPORT_MARKER = "tinylab_export";
/**
 * Every file an hf-gpt2 export writes; config.json first, so a directory cut short is still recognisably an export,
 * and the manifest of the others' sha256s last, so a directory cut short is never sealed.
 */
export const EXPORT_FILES = [
  "config.json",
  "model.safetensors",
  "tokenizer.json",
  "tokenizer_config.json",
  "special_tokens_map.json",
  "onnx/model.onnx",
  MANIFEST_FILE,
] as const;
/** The one file `--format onnx` writes. */
export const ONNX_FILE = "model.onnx";

export interface ExportOptions {
  model: string;
  out: string;
  format: ExportFormat;
  /** An earlier export of the same format in `out` may be replaced (refused otherwise, naming --overwrite). */
  overwrite?: boolean;
  /** Where progress goes (stderr from the CLI; none for a test or --json's callers that pass none). */
  progress?: ProgressStream;
}

export interface ExportReport {
  model: string;
  model_sha256: string;
  integrity: string;
  out: string;
  format: string;
  files: { name: string; bytes: number; sha256: string }[];
}

/** Whether an existing file carries EXPORT_MARKER: config.json as a key, model.onnx in its metadata_props. */
function marked(path: string, kind: "config" | "onnx"): boolean {
  try {
    if (kind === "config") return Object.hasOwn(JSON.parse(readFileText(path, "config.json", FILE_LIMIT)), EXPORT_MARKER);
    return Object.hasOwn(readOnnxMetadata(readFileBytes(path, "ONNX file", Error, FILE_LIMIT)), EXPORT_MARKER);
  } catch {
    return false; // absent, or not JSON / not ONNX: not ours
  }
}

/**
 * The rule for --out: absent or empty, or a previous export of the same format: every file one the format
 * writes (temp files of killed writers are swept first) and config.json (hf-gpt2) or model.onnx (onnx) carrying
 * EXPORT_MARKER, which is replaced only with --overwrite (claimOutputDir). Anything else is refused, named.
 */
export function checkExportDir(dir: string, format: ExportFormat = "hf-gpt2"): void {
  checkOutputDir(dir, "--out");
  const entries = entriesOneDeep(dir);
  if (entries.length === 0) return;
  const allowed: readonly string[] = format === "onnx" ? [ONNX_FILE] : [...EXPORT_FILES, "onnx/"];
  const foreign = entries.filter((e) => !allowed.includes(e));
  const why = `only an empty directory or a previous ${format} export is overwritten`;
  if (foreign.length > 0)
    throw new Error(`--out ${dir}: holds ${foreign.map((e) => `"${e}"`).join(", ")}, which an ${format} export does not write; ${why}`);
  const key = format === "onnx" ? ONNX_FILE : "config.json";
  if (!marked(`${dir}/${key}`, format === "onnx" ? "onnx" : "config")) {
    throw new Error(
      `--out ${dir}: is not empty and its ${key} has no "${EXPORT_MARKER}" ${format === "onnx" ? "metadata entry" : "key"}, so it was not written by tinylab export; ${why}`,
    );
  }
}

/** The probe evaluate and sample apply (src/lab/finite_forward.ts), on the weights about to be exported: a graph whose forward overflows is not written. */
function refuseOverflowing(config: ModelConfig, weights: ParamArrays, path: string): void {
  const model = new GPT(config, weights);
  try {
    refuseNonFiniteForward(model, `model file ${path}`, ModelFileError);
  } catch (err) {
    throw new ModelFileError(`${(err as Error).message}; nothing exported`);
  } finally {
    model.dispose();
  }
}

/** Decode the model file, check --out by the rule above, and write the format's files (each atomically). */
export function exportModel(o: ExportOptions): ExportReport {
  if (!(EXPORT_FORMATS as readonly string[]).includes(o.format))
    throw new Error(`--format must be one of ${EXPORT_FORMATS.join(", ")}, got ${o.format}`);
  checkExportDir(o.out, o.format);
  // locked, and every write confined to it (a link inside, such as onnx/ pointing elsewhere, is refused); a
  // previous export is replaced only when the user said so, as every command's output is
  const outputs = claimOutputDir(o.out, {
    option: "--out",
    what: "export directory",
    kind: { noun: "an export", files: o.format === "onnx" ? [ONNX_FILE] : [...EXPORT_FILES, "onnx/"] },
    replace: o.overwrite === true,
  });
  try {
    return exportInto(o, outputs);
  } finally {
    outputs.release();
  }
}

function exportInto(o: ExportOptions, outputs: OutputDir): ExportReport {
  // steps: the decode, the probe, each file built, and the writes
  const bar = phase(o.progress, "export", 3 + (o.format === "onnx" ? 1 : EXPORT_FILES.length - 1), "steps");
  try {
    const files = exportSteps(o, outputs, bar);
    bar?.done();
    return files;
  } catch (err) {
    bar?.clear();
    throw err;
  }
}

function exportSteps(o: ExportOptions, outputs: OutputDir, bar: Progress | undefined): ExportReport {
  const parts = decodeModelParts(readModelFileBytes(o.model), o.model);
  const { config, tokenizer, weights } = parts;
  bar?.tick(1, { step: "decoded" });
  refuseOverflowing(config, weights, o.model);
  bar?.tick(1, { step: "probed" });
  const marker = {
    format: `tinylab-${o.format}/1`,
    source_format: parts.metadata.format,
    model_sha256: parts.sha256,
    trained: parts.provenance,
  };
  const onnx = () => onnxModel(config, weights, { metadata: { [EXPORT_MARKER]: JSON.stringify(marker) } });
  const contents: [string, () => string | Uint8Array][] =
    o.format === "onnx"
      ? [[ONNX_FILE, onnx]]
      : [
          ["config.json", () => JSON.stringify(gpt2Config(config, { [EXPORT_MARKER]: marker }), null, 2) + "\n"],
          ["model.safetensors", () => encodeSafetensors(gpt2Tensors(weights, config), { format: "pt" })],
          ["tokenizer.json", () => JSON.stringify(hfTokenizer(tokenizer, config.vocabSize)) + "\n"],
          ["tokenizer_config.json", () => JSON.stringify(hfTokenizerConfig(config), null, 2) + "\n"],
          ["special_tokens_map.json", () => JSON.stringify(hfSpecialTokens(), null, 2) + "\n"],
          ["onnx/model.onnx", onnx],
        ];
  // every file built before any is written, so a refusal while building one leaves the directory as it was
  const built = contents.map(([name, make]): [string, string | Uint8Array] => {
    const data = make();
    bar?.tick(1, { step: name });
    return [name, data];
  });
  const written = writeFilesAtomic(outputs, built);
  const files = o.format === "onnx" ? written : [...written, ...writeFilesAtomic(outputs, [[MANIFEST_FILE, manifestText(written)]])];
  bar?.tick(1, { step: "written" });
  return { model: o.model, model_sha256: parts.sha256, integrity: parts.integrity, out: o.out, format: o.format, files };
}
