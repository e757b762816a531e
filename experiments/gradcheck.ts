// `tinylab gradcheck` as a recipe: every coordinate of every parameter of a preset, tfjs gradient vs float64
// central difference (src/model/gradcheck.ts), on the overfit training documents or random micro documents.
import { Rng } from "../src/util/primitives/rng.ts";
import { PRESETS } from "../src/model/config.ts";
import { gradcheck, gradcheckParameters, type GradcheckReport } from "../src/model/gradcheck.ts";
import { packedBatches } from "../src/data/batches.ts";
import { overfitDocuments, randomDocuments } from "../src/data/fixtures.ts";
import { GRADCHECK_DEFAULTS } from "./options.ts";
import type { Engine } from "../src/util/engine.ts";

/** The check's data: the overfit training documents, or random documents over the micro vocabulary; the model on `engine`. */
export function runGradcheck(configName: "overfit" | "micro", seed = GRADCHECK_DEFAULTS.seed, engine?: Engine): GradcheckReport {
  const config = PRESETS[configName];
  const rng = Rng.fromSeed(seed);
  const docs =
    configName === "overfit"
      ? overfitDocuments().filter((d) => d.split === "train")
      : randomDocuments(rng.child("docs"), config.vocabSize, 3, config.contextLength);
  const batches = packedBatches(docs, { vocabSize: config.vocabSize, contextLength: config.contextLength }, 4);
  return gradcheck(config, gradcheckParameters(config, rng.child("params")), batches, engine);
}
