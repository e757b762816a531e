// Helper process for lab.test.ts, not a test: `tinylab lab` as its command runs it (runLab), with a stand-in for
// the bundler; prints the server's URL once it serves, and serves until a signal ends it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLab } from "../../src/cli/lab_server.ts";

const [out] = process.argv.slice(2);
await runLab(
  out,
  0,
  false,
  (line) => console.log(line),
  async (to) => {
    mkdirSync(join(to, "wasm"), { recursive: true });
    writeFileSync(join(to, "index.html"), "<title>tinylab lab</title> served");
    writeFileSync(join(to, "wasm", "tfjs-backend-wasm-simd.wasm"), "w");
  },
);
