// Runs one command (the rest of the argument list) and prints, as one JSON line, the seconds to the first output
// line matching --until (default: a training update's line), the whole run's wall and CPU seconds (user + system,
// all threads: less moved by other processes on a shared machine than wall time) and its peak resident memory
// (GNU time's %M of the child). A stopwatch for bench/data_scale.sh, not a test.
//
//   npx tsx bench/first_update.ts [--until REGEX] -- node bin/tinylab.js train --text FILE --out DIR --updates 1
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const sep = args.indexOf("--");
if (sep < 0 || sep === args.length - 1) {
  console.error("usage: first_update.ts [--until REGEX] -- COMMAND ARGS...");
  process.exit(2);
}
const untilAt = args.indexOf("--until");
const until = new RegExp(untilAt >= 0 && untilAt < sep ? args[untilAt + 1] : "^update +\\d+ ");
const command = args.slice(sep + 1);
const dir = mkdtempSync(join(tmpdir(), "first-update-"));
const timeFile = join(dir, "time");

const start = process.hrtime.bigint();
const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
// GNU time measures the child's peak RSS, its own memory and nothing of this wrapper's
const child = spawn("/usr/bin/time", ["-f", "%e %M %U %S", "-o", timeFile, ...command], { stdio: ["ignore", "pipe", "pipe"] });
let first = null as number | null;
const lines: { s: number; line: string }[] = [];
for (const stream of [child.stdout, child.stderr]) {
  let rest = "";
  stream.on("data", (b: Buffer) => {
    const parts = (rest + b.toString()).split("\n");
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push({ s: seconds(), line });
      if (first === null && until.test(line)) first = seconds();
    }
  });
}
const code: number = await new Promise((r) => child.on("close", (c) => r(c ?? 1)));
const [wall, kb, user, system] = readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-4).map(Number);
rmSync(dir, { recursive: true, force: true });
if (code !== 0) for (const l of lines.slice(-5)) console.error(`  ${l.line}`);
console.log(
  JSON.stringify({
    exit: code,
    first_s: first === null ? null : +first.toFixed(2),
    wall_s: wall,
    cpu_s: +(user + system).toFixed(2),
    peak_rss_mb: Math.round(kb / 1024),
    command: command.join(" "),
  }),
);
if (process.env.VERBOSE) for (const l of lines) console.error(`${l.s.toFixed(2).padStart(8)}  ${l.line}`);
