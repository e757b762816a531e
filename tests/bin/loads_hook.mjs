// Test helper, not a test: the resolve hook tests/bin/loads.mjs registers; writes each resolved URL to its file.
import { appendFileSync } from "node:fs";

let file;
export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (!r.url.startsWith("node:")) appendFileSync(file, `esm ${r.url}\n`);
  return r;
}
