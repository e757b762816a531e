// `tinylab lab`'s server and guards without a browser: the isolation headers on every response, nothing outside the
// built directory, a refused --out that is not a lab build, and the page's form fields parsed as the CLI parses flags.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLabOut, serveLab, type LabServer } from "../../src/cli/lab_server.ts";
import { parseOptionText } from "../../src/cli/options.ts";

/** A raw request (no URL normalisation, so ../ reaches the server as written). */
function get(url: string, path: string, method = "GET"): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("the lab server", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-lab-server-"));
  const site = join(dir, "site");
  let server: LabServer;
  beforeAll(async () => {
    mkdirSync(join(site, "wasm"), { recursive: true });
    writeFileSync(join(site, "index.html"), "<title>tinylab lab</title>");
    writeFileSync(join(site, "wasm", "x.wasm"), new Uint8Array([0, 97, 115, 109]));
    writeFileSync(join(dir, "secret.txt"), "outside");
    server = await serveLab(site, 0);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page on 127.0.0.1 with COOP/COEP on every response, wasm as application/wasm", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    for (const [path, status, type] of [["/", 200, "text/html; charset=utf-8"], ["/wasm/x.wasm", 200, "application/wasm"], ["/missing.js", 404, "text/plain; charset=utf-8"]] as const) {
      const r = await get(server.url, path);
      expect([r.status, r.headers["content-type"]], path).toEqual([status, type]);
      expect(r.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(r.headers["cross-origin-embedder-policy"]).toBe("require-corp");
    }
  });

  it("hands out nothing outside the built directory and only answers GET and HEAD", async () => {
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/wasm/../../secret.txt", "/%E0%A4%A"]) expect((await get(server.url, path)).status, path).toBe(404);
    expect((await get(server.url, "/", "POST")).status).toBe(405);
    expect((await get(server.url, "/", "HEAD")).status).toBe(200);
  });

  it("refuses a port in use, naming it", async () => {
    const port = Number(new URL(server.url).port);
    await expect(serveLab(site, port)).rejects.toThrow(`--port ${port} is in use; pass another, or --port 0 for any free port`);
  });

  it("builds only into a new, empty or earlier lab directory (the build empties it)", () => {
    expect(() => checkLabOut(join(dir, "new"))).not.toThrow();
    expect(() => checkLabOut(site)).not.toThrow();
    expect(() => checkLabOut(dir)).toThrow(`--out ${dir} holds files that are not a lab page build, and building empties it`);
    expect(() => checkLabOut(join(dir, "secret.txt"))).toThrow("is a file");
  });
});

describe("the page's form fields", () => {
  it("are parsed and refused by the CLI's own option parsers", () => {
    expect(parseOptionText("seeds", "39, 40,41")).toEqual([39, 40, 41]);
    expect(parseOptionText("updates", " 80 ")).toBe(80);
    expect(parseOptionText("lr", "0.02")).toBe(0.02);
    expect(() => parseOptionText("updates", "0")).toThrow("--updates must be a positive integer, got 0");
    expect(() => parseOptionText("updates", "ten")).toThrow('--updates must be a number, got "ten"');
    expect(() => parseOptionText("lr", "")).toThrow('--lr must be a number, got ""');
    expect(() => parseOptionText("seeds", "39,39")).toThrow('--seeds: "39" is given twice');
    expect(() => parseOptionText("checkpoints", "0,-1")).toThrow('--checkpoints: "-1" is below 0');
  });
});
