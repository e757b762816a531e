// Node-only: tinylab's onnxruntime addon (native/tinylab_ort.c, compiled into dist/native by bin/build.js where gcc and
// Node's headers are present), which opens onnxruntime sessions with tinylab's causal attention operator on the same
// onnxruntime library as onnxruntime-node's binding, as a GraphLoader; or the reason it cannot. Not the choice of
// whether a model uses it (src/util/engine.ts usesCausalAttention) nor the graph (src/model/onnx.ts).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { CausalAttention, GraphFeed } from "../util/engine.ts";

// Compiled (dist/src/node/causal_attention.js), the addon is dist/native/; from source, the build's copy of it.
const ADDON = new URL(
  import.meta.url.endsWith(".ts") ? "../../dist/native/tinylab_ort.node" : "../../native/tinylab_ort.node",
  import.meta.url,
);

interface Addon {
  unready(): string | null;
  open(bytes: Uint8Array, intraOpThreads: number): unknown;
  run(session: unknown, names: string[], arrays: GraphFeed["data"][], dims: number[][], outputs: readonly string[]): Float32Array[];
}

let loaded: Addon | string | undefined;

function load(): Addon | string {
  let addon: Addon;
  try {
    addon = createRequire(import.meta.url)(fileURLToPath(ADDON)) as Addon;
  } catch (err) {
    // the build's note says why it made none (bin/build.js buildAddon), else the loader's error
    const note = new URL("build.json", ADDON);
    const built = existsSync(note) ? (JSON.parse(readFileSync(note, "utf8")) as { why?: string }) : undefined;
    const why = built?.why ?? (err instanceof Error ? err.message.split("\n")[0] : String(err));
    return `tinylab's onnxruntime addon is not available (${why})`;
  }
  const unready = addon.unready();
  return unready === null ? addon : `tinylab's onnxruntime addon cannot run: ${unready}`;
}

/**
 * Scoring graphs with tinylab's causal attention on `intraOp` threads per session, or the reason they cannot be
 * had. Load onnxruntime-node's binding first (src/node/onnxruntime.ts): the addon links the library it ships.
 */
export function causalAttention(intraOp: number): CausalAttention | string {
  const addon = (loaded ??= load());
  if (typeof addon === "string") return addon;
  // one loader per thread and thread count, as native_kernels.ts keeps the binding's: an engine opened again keeps its
  // sessions (graph_session.ts caches them by loader)
  let made = loaders.get(intraOp);
  if (!made) loaders.set(intraOp, (made = loader(addon, intraOp)));
  return made;
}

const loaders = new Map<number, CausalAttention>();

function loader(addon: Addon, intraOp: number): CausalAttention {
  return {
    graphs: (bytes) => {
      const session = addon.open(bytes, intraOp);
      return (feeds: Record<string, GraphFeed>, outputs: readonly string[]) => {
        const entries = Object.entries(feeds);
        return addon.run(
          session,
          entries.map(([name]) => name),
          entries.map(([, f]) => f.data),
          entries.map(([, f]) => f.dims),
          outputs,
        );
      };
    },
  };
}
