// Benchmark: CPU time of the calling thread's part of an update, `applyGradients` (the float64 reduction of the
// microbatch terms, global norm, AdamW's bound and update, the weights' assignment), at a config's size with two
// microbatch terms per parameter (as `--workers 2` hands it), and a digest of the weights after the updates (equal
// digests: the same numbers bit for bit). Prints one JSON line; not a test.
// Usage: npx tsx bench/update.ts [--config xl] [--updates 30] [--src DIR]   (DIR: the checkout whose src/ is measured)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "xl" },
    updates: { type: "string", default: "30" },
    src: { type: "string", default: resolve(import.meta.dirname, "..") },
  },
});
const src = values.src!;
const mod = async <M>(path: string): Promise<M> => import(pathToFileURL(resolve(src, path)).href) as Promise<M>;
const { initBackend } = await mod<typeof import("../src/util/backend.ts")>("src/util/backend.ts");
const { PRESETS } = await mod<typeof import("../src/model/config.ts")>("src/model/config.ts");
const { initParameters } = await mod<typeof import("../src/model/init.ts")>("src/model/init.ts");
const { GPT } = await mod<typeof import("../src/model/gpt.ts")>("src/model/gpt.ts");
const { AdamW } = await mod<typeof import("../src/train/adamw.ts")>("src/train/adamw.ts");
const { applyGradients } = await mod<typeof import("../src/train/trainer.ts")>("src/train/trainer.ts");
const { Rng } = await mod<typeof import("../src/util/primitives/rng.ts")>("src/util/primitives/rng.ts");
const { sha256Hex } = await mod<typeof import("../src/util/primitives/sha256.ts")>("src/util/primitives/sha256.ts");

const CONFIGS = {
  medium: PRESETS.medium,
  large: { ...PRESETS.medium, contextLength: 256, nLayers: 6, dModel: 256, nHeads: 8, dFF: 1024 },
  xl: { ...PRESETS.medium, contextLength: 256, nLayers: 6, dModel: 384, nHeads: 6, dFF: 1536 },
} as const;
const config = CONFIGS[values.config as keyof typeof CONFIGS];
if (!config) throw new Error(`--config: unknown config "${values.config}" (known: ${Object.keys(CONFIGS).join(", ")})`);
const updates = Number(values.updates);
if (!Number.isInteger(updates) || updates < 1) throw new Error(`--updates must be a positive integer, got "${values.updates}"`);

await initBackend("wasm");
const model = new GPT(config, initParameters(config, Rng.fromSeed(1)));
const optimizer = new AdamW(model.params);
const names = [...model.params.keys()];
const rng = Rng.fromSeed(2);
const term = () => names.map((n) => Float32Array.from({ length: model.params.get(n)!.size }, () => rng.next() - 0.5));
const [a, b] = [term(), term()];
const cpu: number[] = [];
for (let u = 0; u < updates + 2; u++) {
  // fresh arrays at every update, as the graph hands its gradients out
  const results = [a, b].map((t) => ({ lossSum: 1, count: 2048, grads: t.map((g) => g.slice()) }));
  const c0 = process.cpuUsage();
  applyGradients({ names, results, optimizer, lr: 1e-3, clipNorm: 1 });
  const c = process.cpuUsage(c0);
  if (u >= 2) cpu.push((c.user + c.system) / 1000); // two warm-up updates compile the loops
}
const weights = [...model.read().values()];
const bytes = new Uint8Array(weights.reduce((n, w) => n + w.byteLength, 0));
weights.reduce((at, w) => (bytes.set(new Uint8Array(w.buffer, w.byteOffset, w.byteLength), at), at + w.byteLength), 0);
const sorted = [...cpu].sort((x, y) => x - y);
console.log(
  JSON.stringify({
    src,
    config: values.config,
    updates,
    cpu_ms_median: +sorted[Math.floor(sorted.length / 2)].toFixed(1),
    cpu_ms_min: +sorted[0].toFixed(1),
    weights_sha256: sha256Hex(bytes).slice(0, 16),
  }),
);
