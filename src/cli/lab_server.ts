// The lab page's build and its server: Vite builds web/ into a directory, and a small node:http static server
// hands it out on localhost with the headers that make it cross-origin isolated (wasm threads). It computes nothing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const CONFIG = fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url));
/** What the built index.html says of itself, so a rebuild empties only a directory that holds a previous build. */
const MARKER = "<title>tinylab lab</title>";

/** Same values as web/vite.config.ts's ISOLATION_HEADERS (not imported: that file loads vite). */
export const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
} as const;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".json": "application/json",
  ".wasm": "application/wasm", ".svg": "image/svg+xml", ".png": "image/png",
};

/** Refuse an --out that holds anything but an earlier lab build: Vite empties the directory it builds into. */
export function checkLabOut(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new Error(`--out ${dir} is a file; the lab page is built into a directory`);
  if (readdirSync(dir).length === 0) return;
  const index = join(dir, "index.html");
  if (!existsSync(index) || !readFileSync(index, "utf8").includes(MARKER)) {
    throw new Error(`--out ${dir} holds files that are not a lab page build, and building empties it: choose a new or empty directory (default results/lab)`);
  }
}

/** Build web/ into `outDir` (vite is imported here only, so no other command loads it). */
export async function buildLab(outDir: string): Promise<void> {
  checkLabOut(outDir);
  const { build } = await import("vite");
  await build({ configFile: CONFIG, logLevel: "warn", build: { outDir: resolve(outDir), emptyOutDir: true } });
  if (!existsSync(join(outDir, "wasm", "tfjs-backend-wasm-simd.wasm"))) throw new Error(`the lab build in ${outDir} has no wasm binaries`);
}

/** The file a URL path names inside `root`, or undefined (outside it, or absent). */
function fileFor(root: string, urlPath: string): string | undefined {
  let p: string;
  try {
    p = decodeURIComponent(urlPath.split("?")[0]);
  } catch {
    return undefined;
  }
  const full = resolve(root, `.${p.endsWith("/") ? `${p}index.html` : p}`);
  if (full !== root && !full.startsWith(root + sep)) return undefined;
  return existsSync(full) && statSync(full).isFile() ? full : undefined;
}

export interface LabServer {
  url: string;
  close(): Promise<void>;
}

/** Serve `dir` on 127.0.0.1:`port` (0: any free port) with the isolation headers; GET and HEAD only. */
export function serveLab(dir: string, port: number): Promise<LabServer> {
  const root = resolve(dir);
  if (!existsSync(join(root, "index.html"))) throw new Error(`${dir} has no index.html: build the page first (tinylab lab --build-only --out ${dir})`);
  const server: Server = createServer((req, res) => {
    const file = req.method === "GET" || req.method === "HEAD" ? fileFor(root, req.url ?? "/") : undefined;
    const headers = { ...ISOLATION_HEADERS, "Cache-Control": "no-store" };
    if (!file) {
      res.writeHead(req.method === "GET" || req.method === "HEAD" ? 404 : 405, { ...headers, "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { ...headers, "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Content-Length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise((ok, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      fail(new Error(err.code === "EADDRINUSE" ? `--port ${port} is in use; pass another, or --port 0 for any free port` : `cannot serve on port ${port}: ${err.message}`)));
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      const bound = typeof addr === "object" && addr ? addr.port : port;
      ok({ url: `http://127.0.0.1:${bound}/`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
