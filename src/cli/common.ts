// Shared CLI pieces: engine start-up (loaded only when a command runs), output files and JSON. Not commands
// (src/cli/commands/*) and not option definitions (options.ts).
import { dirname, join } from "node:path";
import type { Engine } from "../util/engine.ts";
import { writeFileAtomic } from "../node/atomic.ts";
import { ensureDir } from "../node/writable.ts";
import { TEXT_DEFAULTS as t } from "../../experiments/train_options.ts";
import { optionKey, type ScoringDataValues } from "./options.ts";

/** The options that make a split of --text, as train --text makes it. */
const SPLIT_FLAGS = ["split-seed", "validation-fraction", "test-fraction"] as const;

/**
 * Open the engine the command's --backend, --kernels and --workers chose (src/node/engine.ts): the first heavy
 * import of any command. The returned value is handed to the recipe, which records it in every result's provenance.
 */
export async function startEngine(choice: { backend: string; kernels: string; workers?: number }): Promise<Engine> {
  const { backend, kernels, workers } = choice; // a command's other values are not the engine's
  return (await import("../node/engine.ts")).openEngine({ backend, kernels, workers });
}

/** Write a result file atomically, creating its directory. */
export function writeOutput(path: string, content: string | Uint8Array): void {
  ensureDir(dirname(path));
  writeFileAtomic(path, content);
}

export { toJson } from "../util/formats/json.ts";
/**
 * The one timing every command prints, measured the same way everywhere: wall-clock seconds since the process
 * started (module loading, engine start-up, the work and writing files), so it matches a stopwatch around the command.
 */
export function wallTimeLine(): string {
  return `wall time ${process.uptime().toFixed(1)} s (since the process started: start-up, work and writing files)`;
}

/** The scoring data a command reads (--text, --data), as the inputs its output directory must stay clear of. */
export function scoringInputs(v: Pick<ScoringDataValues, "text" | "data">): { paths: (readonly [string, string])[] } {
  return { paths: [...(v.text ? [["--text", v.text] as const] : []), ...(v.data ? [["--data", v.data] as const] : [])] };
}

/**
 * The run's text split a scorer was asked for (--run DIR and/or --text PATH with the split options), rebuilt and
 * sha256-checked by src/node/text_files.ts; undefined when neither was given (then --data, or the fixture).
 */
export async function scoringText(v: ScoringDataValues): Promise<import("../../experiments/scoring_data.ts").ScoringText | undefined> {
  const { run, text } = v;
  // the split options make a split of --text; a run's manifest already fixes its split, so one given with it would be ignored
  const splitFlag = SPLIT_FLAGS.find((f) => v[optionKey(f) as keyof ScoringDataValues] !== undefined);
  if (splitFlag && run !== undefined)
    throw new Error(
      `--run and --${splitFlag}: the run's manifest.json fixes the split; drop --${splitFlag}, or give --text without --run to split the text afresh`,
    );
  if (splitFlag && text === undefined) throw new Error(`--${splitFlag} needs --text (the text to split)`);
  if (run === undefined && text === undefined) {
    if (v.onePerLine) throw new Error("--one-per-line needs --text or --run");
    return undefined;
  }
  if (v.data !== undefined) throw new Error("give one of --run/--text (a run's text) and --data (a JSONL documents file)");
  const { readRunText } = await import("../node/text_files.ts");
  const split = {
    seed: v.splitSeed ?? t.splitSeed,
    validation: v.validationFraction ?? t.validationFraction,
    test: v.testFraction ?? t.testFraction,
  };
  const r = readRunText({ run, text, onePerLine: v.onePerLine ? true : undefined, split });
  return { source: r.source, manifestSha256: r.manifestSha256, docs: [...r.bySplit.train, ...r.bySplit.validation, ...r.bySplit.test] };
}

/** --model, or with --run the run's model.safetensors; `flag` names what is missing. */
export function modelOfRun(v: { model?: string; run?: string }, flag = "--model"): string {
  if (v.model !== undefined) return v.model;
  if (v.run !== undefined) return join(v.run, "model.safetensors");
  throw new Error(`give ${flag} FILE, or --run DIR (its model.safetensors)`);
}
