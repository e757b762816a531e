// Vitest's global setup, not a test: compiles dist/ when it does not match the sources (bin/build.js), so every
// CLI the tests spawn, each sweep child and each pool worker starts from JavaScript instead of through tsx.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const r = spawnSync(process.execPath, ["bin/build.js", "--if-stale"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bin/build.js --if-stale failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
}
