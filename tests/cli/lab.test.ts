// `tinylab lab`'s server and guards without a browser: the isolation headers on every response, nothing outside the
// built directory, a refused --out that is not a lab build, and the page's form fields parsed as the CLI parses flags.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { BUILD_LIST, buildLab, checkLabOut } from "../../src/cli/lab_build.ts";
import { serveLab, type LabServer } from "../../src/cli/lab_server.ts";
import { parseOptionText } from "../../src/cli/options.ts";
import { DIRECTORY_LOCK } from "../../src/node/lock.ts";
import { lockModelPath } from "../../src/node/model_output.ts";

/** A raw request (no URL normalisation, so ../ reaches the server as written). */
function get(
  url: string,
  path: string,
  method = "GET",
  host?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers: host === undefined ? {} : { Host: host } }, (res) => {
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
    symlinkSync(join(dir, "secret.txt"), join(site, "link.txt"));
    symlinkSync(dir, join(site, "linkdir"));
    server = await serveLab(site, 0, { headers: 300, request: 1000, idle: 1000 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page on 127.0.0.1 with COOP/COEP on every response, wasm as application/wasm", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    for (const [path, status, type] of [
      ["/", 200, "text/html; charset=utf-8"],
      ["/wasm/x.wasm", 200, "application/wasm"],
      ["/missing.js", 404, "text/plain; charset=utf-8"],
    ] as const) {
      const r = await get(server.url, path);
      expect([r.status, r.headers["content-type"]], path).toEqual([status, type]);
      expect(r.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(r.headers["cross-origin-embedder-policy"]).toBe("require-corp");
    }
  });

  it("hands out nothing outside the built directory and only answers GET and HEAD", async () => {
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/wasm/../../secret.txt", "/%E0%A4%A"])
      expect((await get(server.url, path)).status, path).toBe(404);
    expect((await get(server.url, "/", "HEAD")).status).toBe(200);
  });

  it("answers only requests addressed to this machine: any other Host (a DNS-rebinding page's name) is refused 421", async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost"])
      expect((await get(server.url, "/", "GET", host)).status, host).toBe(200);
    for (const host of [`evil.example:${port}`, "attacker.test", `127.0.0.1.evil.example:${port}`, `localhost.:${port}`]) {
      const r = await get(server.url, "/", "GET", host);
      expect([r.status, r.body], host).toEqual([
        421,
        `Host ${JSON.stringify(host)} is not this machine: the lab answers 127.0.0.1, localhost and [::1] only\n`,
      ]);
    }
  });

  it("answers another method 405 with an Allow header, saying so", async () => {
    const r = await get(server.url, "/", "POST");
    expect([r.status, r.headers.allow, r.body]).toEqual([405, "GET, HEAD", "method POST not allowed (GET and HEAD only)\n"]);
  });

  it("follows no symbolic link inside the build (to a file or a directory outside it)", async () => {
    for (const path of ["/link.txt", "/linkdir/secret.txt"]) expect((await get(server.url, path)).status, path).toBe(404);
  });

  it("drops a client that stalls in its headers (here after 300 ms; LAB_TIMEOUTS_MS in use)", async () => {
    const u = new URL(server.url);
    const t0 = Date.now();
    const closed = await new Promise<number>((ok) => {
      const socket = connect(Number(u.port), u.hostname, () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n")); // never finishes its headers
      socket.on("data", () => {});
      socket.on("close", () => ok(Date.now() - t0));
      socket.on("error", () => {});
    });
    expect(closed).toBeLessThan(5000);
  });

  it("refuses a port in use, naming it", async () => {
    const port = Number(new URL(server.url).port);
    await expect(serveLab(site, port)).rejects.toThrow(`--port ${port} is in use; pass another, or --port 0 for any free port`);
  });

  it("builds only into a new, empty or earlier lab directory (the build empties it)", () => {
    expect(() => checkLabOut(join(dir, "new"))).not.toThrow();
    const old = join(dir, "old-build"); // a build from before the build list: index.html, assets/, wasm/
    mkdirSync(join(old, "wasm"), { recursive: true });
    writeFileSync(join(old, "index.html"), "<title>tinylab lab</title>");
    writeFileSync(join(old, "wasm", "x.wasm"), "w");
    expect(() => checkLabOut(old)).not.toThrow();
    // the links the server tests put beside the build are not the build's: a rebuild would delete them
    expect(() => checkLabOut(site)).toThrow(
      `--out ${site} holds "link.txt", "linkdir" beside a lab page build, which building would delete (it replaces the directory whole): move them away, or choose a new or empty directory (default results/lab)`,
    );
    expect(() => checkLabOut(dir)).toThrow(`--out ${dir} holds files that are not a lab page build, and building empties it`);
    expect(() => checkLabOut(join(dir, "secret.txt"))).toThrow("is a file");
    // unwritable places are refused before the bundler runs (the bundler would crash there with a backtrace)
    expect(() => checkLabOut("/proc/tinylab-lab")).toThrow(
      "--out /proc/tinylab-lab: /proc is a kernel pseudo-filesystem; nothing can be written there",
    );
  });

  it("a build that fails midway (a full disk) leaves the earlier build whole and no partial bundle or temp", async () => {
    const out = join(dir, "built");
    const good = async (to: string) => {
      mkdirSync(join(to, "wasm"), { recursive: true });
      writeFileSync(join(to, "index.html"), "<title>tinylab lab</title> v1");
      writeFileSync(join(to, "wasm", "tfjs-backend-wasm-simd.wasm"), "w");
    };
    await buildLab(out, good);
    const full = async (to: string) => {
      mkdirSync(join(to, "assets"), { recursive: true });
      writeFileSync(join(to, "assets", "worker.js"), "truncat");
      throw Object.assign(new Error("ENOSPC: no space left on device, write\n    at rust backtrace…"), { code: "ENOSPC" });
    };
    await expect(buildLab(out, full)).rejects.toThrow(
      /^could not build the lab page into .*built \(ENOSPC: no space left on device, write; [\d.]+ MiB free on its file system\); nothing was left there but what was before$/,
    );
    expect(readFileSync(join(out, "index.html"), "utf8")).toBe("<title>tinylab lab</title> v1");
    expect(existsSync(join(out, "assets"))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("lab-build"))).toEqual([]);
    await expect(buildLab(join(dir, "fresh"), full)).rejects.toThrow(/ENOSPC/);
    expect(existsSync(join(dir, "fresh"))).toBe(false);
  });

  it("never deletes what a user put beside a build (notes.txt, mydata/): refused, both kept; a clean rebuild replaces the build whole", async () => {
    const out = join(dir, "user-site");
    const good = (v: string) => async (to: string) => {
      mkdirSync(join(to, "wasm"), { recursive: true });
      writeFileSync(join(to, "index.html"), `<title>tinylab lab</title> ${v}`);
      writeFileSync(join(to, "wasm", "tfjs-backend-wasm-simd.wasm"), "w");
      if (v === "v1") writeFileSync(join(to, "wasm", "only-in-v1.wasm"), "w");
    };
    await buildLab(out, good("v1"));
    expect(JSON.parse(readFileSync(join(out, BUILD_LIST), "utf8"))).toEqual([
      "index.html",
      "wasm/only-in-v1.wasm",
      "wasm/tfjs-backend-wasm-simd.wasm",
    ]);
    writeFileSync(join(out, "notes.txt"), "mine");
    mkdirSync(join(out, "mydata"));
    writeFileSync(join(out, "mydata", "a.txt"), "mine too");
    // the build's files are listed: a file a user put inside the build's own folders is named too
    writeFileSync(join(out, "wasm", "mine.wasm"), "mine");
    const refusal = `--out ${out} holds "mydata/", "notes.txt", "wasm/mine.wasm" beside a lab page build, which building would delete (it replaces the directory whole): move them away, or choose a new or empty directory (default results/lab)`;
    expect(() => checkLabOut(out)).toThrow(refusal);
    await expect(buildLab(out, good("v2"))).rejects.toThrow(refusal);
    expect([
      readFileSync(join(out, "notes.txt"), "utf8"),
      readFileSync(join(out, "mydata", "a.txt"), "utf8"),
      readFileSync(join(out, "index.html"), "utf8"),
    ]).toEqual(["mine", "mine too", "<title>tinylab lab</title> v1"]);
    for (const f of ["notes.txt", "mydata", "wasm/mine.wasm"]) rmSync(join(out, f), { recursive: true });
    await buildLab(out, good("v2"));
    expect(readdirSync(out).sort()).toEqual([BUILD_LIST, "index.html", "wasm"]);
    expect(readdirSync(join(out, "wasm"))).toEqual(["tfjs-backend-wasm-simd.wasm"]);
  });
});

describe("tinylab lab holds --out while it serves", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-lab-held-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a rebuild and a model saved into it, naming the serving process; SIGINT ends it and releases the lock, the build kept", async () => {
    const site = join(dir, "site");
    // the command's own flow (runLab) with a stand-in bundler, in a process of its own: the holder is another pid
    const holder = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./lab_holder.ts", import.meta.url)), site], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    onTestFinished(() => {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill("SIGKILL");
    }); // a failed check never leaves it serving
    let printed = "";
    const ended = new Promise<number | null>((res) => holder.on("close", (code) => res(code)));
    await new Promise<void>((res, fail) => {
      holder.stdout!.on("data", (d: Buffer) => {
        printed += d.toString();
        if (/Ctrl-C stops the server\n/.test(printed)) res();
      }); // the last of its start lines, which may come in a later chunk
      holder.on("close", (code) => fail(new Error(`the lab ended (${code}) before serving: ${printed}`)));
    });
    expect(printed).toContain(`--out ${site} is locked while it is served; Ctrl-C stops the server`);
    const lockFile = join(site, DIRECTORY_LOCK);
    const inUse = (what: string) =>
      `${what} is in use by process ${holder.pid} (lock file ${lockFile}); wait for it to finish, or remove the lock file if that process is not tinylab`;
    const rebuild = async (to: string) => {
      mkdirSync(join(to, "wasm"), { recursive: true });
      writeFileSync(join(to, "index.html"), "<title>tinylab lab</title> rebuilt");
      writeFileSync(join(to, "wasm", "tfjs-backend-wasm-simd.wasm"), "w");
    };
    await expect(buildLab(site, rebuild)).rejects.toThrow(inUse(`lab output directory ${site}`));
    expect(() => lockModelPath(join(site, "model.safetensors"))).toThrow(inUse(`model directory ${site}`));
    expect(readFileSync(join(site, "index.html"), "utf8")).toBe("<title>tinylab lab</title> served");
    holder.kill("SIGINT");
    expect(await ended).toBe(130);
    expect(existsSync(lockFile)).toBe(false);
    expect(readdirSync(site).sort()).toEqual([BUILD_LIST, "index.html", "wasm"]);
    await buildLab(site, rebuild); // free again: rebuilt, and let go
    expect(readdirSync(site).sort()).toEqual([BUILD_LIST, "index.html", "wasm"]);
  }, 60_000);
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

  it("parse a --grid's values the same way: a boolean is true or false, a choice one of its choices", () => {
    expect([parseOptionText("shuffle", "true"), parseOptionText("shuffle", " false")]).toEqual([true, false]);
    expect(() => parseOptionText("shuffle", "yes")).toThrow('--shuffle must be true or false, got "yes"');
    expect(parseOptionText("backend", "cpu")).toBe("cpu");
    expect(() => parseOptionText("backend", "gpu")).toThrow('--backend must be one of auto, tensorflow, wasm, cpu, got "gpu"');
  });
});
