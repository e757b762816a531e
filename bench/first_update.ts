// Runs one command (the rest of the argument list) and prints, as one JSON line, the seconds to the first output
// line matching --until (default: a training update's line) and to the first matching --data (default: train's data
// line, `train: …`), the whole run's wall and CPU seconds (user + system,
// all threads: less moved by other processes on a shared machine than wall time) and its peak resident memory
// (GNU time's %M of the child), with the silences: first_line_s (seconds to the first line of either stream) and the
// GAPS (default 3) longest stretches without a line (start and exit included), each with the line it followed. A
// stopwatch for bench/data_scale.sh and the silence measurements of docs/benchmarks.md, not a test.
//
//   npx tsx bench/first_update.ts [--until REGEX] [--data REGEX] [--gaps N] -- node bin/tinylab.js train --text FILE --out DIR --updates 1
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
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 && at < sep ? args[at + 1] : fallback;
};
const until = new RegExp(option("--until", "^update +\\d+ "));
// train's data line (read, split, BPE, tokenizing done)
const dataLine = new RegExp(option("--data", "^train: "));
const gapCount = Number(option("--gaps", "3"));
const command = args.slice(sep + 1);
const dir = mkdtempSync(join(tmpdir(), "first-update-"));
const timeFile = join(dir, "time");

const start = process.hrtime.bigint();
const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
// GNU time measures the child's peak RSS, its own memory and nothing of this wrapper's
const child = spawn("/usr/bin/time", ["-f", "%e %M %U %S", "-o", timeFile, ...command], { stdio: ["ignore", "pipe", "pipe"] });
let first = null as number | null,
  data = null as number | null;
// CPU seconds (user + system, all threads) of the command so far, from /proc (GNU time's child): a gap's CPU time
// says what it would take on an idle machine, between cpu (one thread busy) and cpu / cores
let commandPid: number | undefined;
const cpuNow = (): number => {
  try {
    commandPid ??= Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/)[0]) || undefined;
    if (commandPid === undefined) return 0;
    const fields = readFileSync(`/proc/${commandPid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN; // exited
  }
};
const lines: { s: number; line: string; cpu: number }[] = [];
for (const stream of [child.stdout, child.stderr]) {
  let rest = "";
  stream.on("data", (b: Buffer) => {
    const parts = (rest + b.toString()).split("\n");
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push({ s: seconds(), line, cpu: cpuNow() });
      if (first === null && until.test(line)) first = seconds();
      if (data === null && dataLine.test(line)) data = seconds();
    }
  });
}
const code: number = await new Promise((r) => child.on("close", (c) => r(c ?? 1)));
const end = seconds();
// every silent stretch: start → first line, line → line, last line → exit
const marks = [{ s: 0, line: "(start)", cpu: 0 }, ...lines, { s: end, line: "(exit)", cpu: NaN }];
const gaps = marks
  .slice(1)
  .map((m, i) => ({
    s: +(m.s - marks[i].s).toFixed(2),
    cpu_s: +(m.cpu - marks[i].cpu).toFixed(2),
    after: marks[i].line.slice(0, 80),
    at: +marks[i].s.toFixed(2),
  }))
  .sort((a, b) => b.s - a.s)
  .slice(0, gapCount);
const [wall, kb, user, system] = readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-4).map(Number);
rmSync(dir, { recursive: true, force: true });
if (code !== 0) for (const l of lines.slice(-5)) console.error(`  ${l.line}`);
console.log(
  JSON.stringify({
    exit: code,
    first_s: first === null ? null : +first.toFixed(2),
    data_s: data === null ? null : +data.toFixed(2),
    wall_s: wall,
    cpu_s: +(user + system).toFixed(2),
    peak_rss_mb: Math.round(kb / 1024),
    first_line_s: lines.length > 0 ? +lines[0].s.toFixed(2) : null,
    longest_gaps: gaps,
    command: command.join(" "),
  }),
);
if (process.env.VERBOSE) for (const l of lines) console.error(`${l.s.toFixed(2).padStart(8)} ${l.cpu.toFixed(2).padStart(7)}  ${l.line}`);
