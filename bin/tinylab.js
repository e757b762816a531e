#!/usr/bin/env node
// Entry point of `npx tinylab`: runs the compiled CLI in dist/ when it was built from the sources on disk now
// (bin/fresh.js), else the TypeScript sources through tsx's loader, slower to start but never stale. Compiled, it
// starts from the bundled front with its code cache (bin/front.js), else from the compiled modules.
// TINYLAB_FROM_SOURCE=1 takes the sources even when dist/ is current.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DIST, isFresh } from "./fresh.js";
import { runFront } from "./front.js";

if (process.env.TINYLAB_FROM_SOURCE !== "1" && isFresh()) {
  if (!runFront(DIST)) await import(pathToFileURL(join(DIST, "src/cli/main.js")).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
