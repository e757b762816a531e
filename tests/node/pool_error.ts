// Helper process for pool.test.ts, not a test: a pool whose worker 1 throws. "caught": print the error and
// return (the process must then exit by itself); "uncaught": let it end the process.
import { initBackend } from "../../src/util/backend.ts";
import { paddedBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { initParameters } from "../../src/model/init.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { startPool } from "../../src/node/pool.ts";

await initBackend("wasm");
const config = PRESETS.overfit;
const model = new GPT(config, initParameters(config, Rng.fromSeed(1).child("init")));
const [ok] = paddedBatches(
  overfitDocuments(overfitTokenizer()).filter((d) => d.split === "train"),
  config,
  1,
);
const bad = { ...ok, input: { ...ok.input, ids: ok.input.ids.map(() => 10_000) } }; // outside the vocabulary
const pool = startPool(2, config, { backend: "wasm", kernels: "tfjs" });
const scorer = decoderAdapter(model, { pool });
if (process.argv[2] === "caught") {
  try {
    scorer.positionNlls!([ok, bad]); // batch 1 goes to worker 1
  } catch (err) {
    console.log(`caught: ${(err as Error).message}`);
  }
  model.dispose();
} else {
  scorer.positionNlls!([ok, bad]);
}
