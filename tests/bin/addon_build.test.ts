// bin/build.js's addon step: with a C compiler it writes native/tinylab_ort.node and a note saying so; without one the
// note says why and nothing else is written, so the build goes on and scoring keeps onnxruntime's attention.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildAddon } from "../../bin/build.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const out = () => {
  const d = mkdtempSync(join(tmpdir(), "tinylab-addon-"));
  dirs.push(d);
  return d;
};
const note = (d: string) => JSON.parse(readFileSync(join(d, "native/build.json"), "utf8")) as { built: boolean; why?: string };

describe("bin/build.js buildAddon", () => {
  it("without a compiler, notes why and writes no addon", () => {
    const d = out();
    buildAddon(d, "/nonexistent/cc");
    expect(note(d)).toEqual({ built: false, why: expect.stringContaining("/nonexistent/cc did not run") });
    expect(existsSync(join(d, "native/tinylab_ort.node"))).toBe(false);
  });

  it.skipIf(process.platform !== "linux" || process.arch !== "x64")(
    "with this machine's compiler, builds the addon",
    () => {
      const d = out();
      buildAddon(d);
      const n = note(d);
      // CI (TINYLAB_REQUIRE_NATIVE=1) has the compiler and headers; elsewhere a machine without them gets the reason
      if (process.env.TINYLAB_REQUIRE_NATIVE === "1") expect(n).toEqual({ built: true });
      if (!n.built) expect(n.why).toMatch(/did not run|headers|not installed|failed/);
      else expect(existsSync(join(d, "native/tinylab_ort.node"))).toBe(true);
    },
    60_000,
  );
});
