// Ctrl-C during `tinylab train`: one line on stderr, exit 130, the interrupted update's whole state saved (and
// resumable), no temp file and no lock left behind.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadTrainState } from "../helpers.ts";
import { start, tinylab } from "./spawn.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-interrupt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SIGINT during training", () => {
  it("stops after the update in progress, saves its state and says so in one line", async () => {
    const ckpt = join(dir, "ck");
    const p = start(["train", "--updates", "100000", "--save-every", "1000", "--log-every", "10", "--out", ckpt]);
    await p.waitFor(/update\s+30 /);
    p.child.kill("SIGINT");
    const r = await p.done;
    expect(r.code).toBe(130);
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toBe("tinylab: interrupt: stopping after the current update (Ctrl-C again to quit at once)");
    const m = /^tinylab: interrupted at update (\d+); training state saved → (.+) \(continue with --resume\)$/.exec(lines[1]);
    expect(m, r.stderr).not.toBeNull();
    expect(lines).toHaveLength(2);
    const at = Number(m![1]);
    expect(m![2]).toBe(join(ckpt, "train_state.safetensors"));
    expect(at).toBeGreaterThanOrEqual(30);
    expect(loadTrainState(m![2]).optimizer.step).toBe(at); // the interrupted update itself, not the last scheduled checkpoint
    expect(readdirSync(ckpt)).toEqual(["train_state.safetensors"]); // no temp file, no lock
    const resumed = await tinylab(["train", "--updates", String(at + 5), "--out", ckpt, "--resume"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`resumed from ${join(ckpt, "train_state.safetensors")} at update ${at}; running to update ${at + 5}`);
    expect(existsSync(join(ckpt, ".tinylab.lock"))).toBe(false);
  });
});
