// The lab page's server: `tinylab lab` whole (--out held, built by lab_build.ts, served), and a small node:http
// static server handing the build out on localhost with the headers that make it cross-origin isolated (wasm
// threads). It computes nothing.
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { basename, extname, join, resolve, sep } from "node:path";
import { isBookkeeping } from "../node/output_dir.ts";
import { INTERRUPTED_EXIT_CODE } from "./interrupt.ts";
import { buildLab, holdLabOut, viteBuild, type LabBuilder } from "./lab_build.ts";

/** Same values as web/vite.config.ts's ISOLATION_HEADERS (not imported: that file loads vite). */
export const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
} as const;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/**
 * `tinylab lab` whole: --out held from before the build until the process ends, built, and (unless `buildOnly`)
 * served until SIGINT or SIGTERM, which end the process through process.exit, whose hooks release the lock.
 */
export async function runLab(
  outDir: string,
  port: number,
  buildOnly: boolean,
  log: (line: string) => void,
  builder: LabBuilder = viteBuild,
): Promise<LabServer | undefined> {
  const held = holdLabOut(outDir);
  let server: LabServer;
  try {
    await buildLab(outDir, builder, held);
    log(`built the lab page → ${outDir}`);
    if (buildOnly) {
      held.release();
      return undefined;
    }
    server = await serveLab(outDir, port);
  } catch (err) {
    held.release();
    throw err;
  }
  const stop = () => process.exit(INTERRUPTED_EXIT_CODE);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  log(`serving ${outDir} at ${server.url}`);
  log(
    "  cross-origin isolated (COOP same-origin, COEP require-corp): wasm threads on where the browser allows; everything is computed in the page",
  );
  log(`  --out ${outDir} is locked while it is served; Ctrl-C stops the server`);
  return server;
}

/**
 * The file a URL path names inside `root` (a real path), or undefined: outside it, absent, not a regular file, or
 * reached through a symbolic link (the build holds none, so one is something put there).
 */
function fileFor(root: string, urlPath: string): string | undefined {
  let p: string;
  try {
    p = decodeURIComponent(urlPath.split("?")[0]);
  } catch {
    return undefined;
  }
  const full = resolve(root, `.${p.endsWith("/") ? `${p}index.html` : p}`);
  if (full !== root && !full.startsWith(root + sep)) return undefined;
  if (isBookkeeping(basename(full))) return undefined; // the lock file and temp files are no part of the page
  try {
    if (!lstatSync(full).isFile() || realpathSync(full) !== full) return undefined;
  } catch {
    return undefined;
  }
  return full;
}

/**
 * Whether a request's Host header names this machine. A page on another site can point its own name at 127.0.0.1
 * (DNS rebinding) and then read what this server answers as same-origin; its requests carry that name as Host,
 * so any name but the loopback ones is refused (a missing Host too: every browser sends one).
 */
export function isLocalHost(host: string | undefined): boolean {
  const m = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i.exec(host ?? "");
  return m !== null;
}

/** How long a client may take: to send its headers, its whole request, and to stay idle between requests. */
export const LAB_TIMEOUTS_MS = { headers: 10_000, request: 30_000, idle: 30_000 } as const;

export interface LabServer {
  url: string;
  close(): Promise<void>;
}

/** Serve `dir` on 127.0.0.1:`port` (0: any free port) with the isolation headers; GET and HEAD only. */
export function serveLab(
  dir: string,
  port: number,
  timeouts: { headers: number; request: number; idle: number } = LAB_TIMEOUTS_MS,
): Promise<LabServer> {
  if (!existsSync(join(resolve(dir), "index.html")))
    throw new Error(`${dir} has no index.html: build the page first (tinylab lab --build-only --out ${dir})`);
  const root = realpathSync(resolve(dir));
  // a stalled client is dropped: headers and requests have deadlines, checked every second
  const server: Server = createServer(
    { headersTimeout: timeouts.headers, requestTimeout: timeouts.request, connectionsCheckingInterval: Math.min(1000, timeouts.headers) },
    (req, res) => {
      const headers = { ...ISOLATION_HEADERS, "Cache-Control": "no-store" };
      const text = { ...headers, "Content-Type": "text/plain; charset=utf-8" };
      if (!isLocalHost(req.headers.host)) {
        res
          .writeHead(421, text)
          .end(`Host ${JSON.stringify(req.headers.host ?? "")} is not this machine: the lab answers 127.0.0.1, localhost and [::1] only\n`);
        return;
      }
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405, { ...text, Allow: "GET, HEAD" }).end(`method ${req.method} not allowed (GET and HEAD only)\n`);
        return;
      }
      const file = fileFor(root, req.url ?? "/");
      if (!file) {
        res.writeHead(404, text).end("not found\n");
        return;
      }
      const body = readFileSync(file);
      res.writeHead(200, { ...headers, "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Content-Length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
    },
  );
  server.setTimeout(timeouts.idle, (socket) => socket.destroy());
  server.keepAliveTimeout = 5000;
  return new Promise((ok, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      fail(
        new Error(
          err.code === "EADDRINUSE"
            ? `--port ${port} is in use; pass another, or --port 0 for any free port`
            : `cannot serve on port ${port}: ${err.message}`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      const bound = typeof addr === "object" && addr ? addr.port : port;
      ok({ url: `http://127.0.0.1:${bound}/`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
