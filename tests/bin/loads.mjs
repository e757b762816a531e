// Test helper, not a test: preloaded with `node --import`, it lists in the file $TINYLAB_LOADS every module the
// process loads: each ES module's URL as it is resolved (by a hook, which writes before the module loads, so a
// process.exit loses none), and as the process ends, the CommonJS files in require's cache.
import { appendFileSync, writeFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const file = process.env.TINYLAB_LOADS;
writeFileSync(file, "");
register("./loads_hook.mjs", import.meta.url, { data: { file } });
process.on("exit", () =>
  appendFileSync(
    file,
    Object.keys(createRequire(import.meta.url).cache)
      .map((p) => `cjs ${p}\n`)
      .join(""),
  ),
);
