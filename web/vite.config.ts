// Vite build of the lab page (web/): the page, its Web Worker and the tfjs-wasm binaries, with relative paths so
// the built directory works from any server or port, offline. Not the server: src/cli/lab_server.ts serves it.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const WEB = dirname(fileURLToPath(import.meta.url));
/** The headers that make the page cross-origin isolated, which wasm threads (SharedArrayBuffer) need. */
export const ISOLATION_HEADERS = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

/** tfjs-backend-wasm fetches its .wasm at run time (setWasmPaths): copy the three binaries into `wasm/` of the build. */
function wasmBinaries(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm"));
  return {
    name: "tinylab-wasm-binaries",
    generateBundle() {
      for (const name of readdirSync(dist)
        .filter((n) => n.endsWith(".wasm"))
        .sort()) {
        this.emitFile({ type: "asset", fileName: `wasm/${name}`, source: readFileSync(join(dist, name)) });
      }
    },
  };
}

export default defineConfig({
  root: WEB,
  base: "./",
  logLevel: "warn",
  plugins: [wasmBinaries()],
  worker: { format: "es" },
  // not minified: tfjs-wasm starts its pthreads from the source text of its own factory function
  build: {
    outDir: join(WEB, "../results/lab"),
    emptyOutDir: true,
    target: "es2022",
    minify: false,
    chunkSizeWarningLimit: 8000,
    reportCompressedSize: false,
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
});
