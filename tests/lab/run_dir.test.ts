// The run-directory protocol on a store in memory: claiming refuses a store holding a run unless resumed or
// overwritten, an overwrite removes exactly the run's files (state first), a save writes the history before
// the state, and every point a kill can leave between those writes resumes to the same history.
import { describe, expect, it } from "vitest";
import { memoryStore, STATE_FILE } from "../../src/lab/store.ts";
import { HISTORY_FILE, resumeHistory, emptyHistory, type History } from "../../src/lab/history.ts";
import { claimRunDir, commitState, CURVE_FILE, RUN_FILES, RunDirectoryError } from "../../src/lab/run_dir.ts";
import { EVENTS_FILE } from "../../src/lab/history_events.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("claimRunDir", () => {
  it("takes an empty store for any claim, and a store holding a run only with --resume or --overwrite", () => {
    expect(claimRunDir(memoryStore(), { resume: false, overwrite: false }, "--out x")).toEqual({ removed: [] });
    expect(claimRunDir(memoryStore(), { resume: true, overwrite: false }, "--out x")).toEqual({ removed: [] });
    const store = memoryStore();
    store.write("manifest.json", "{}");
    expect(() => claimRunDir(store, { resume: false, overwrite: false }, "--out x")).toThrow(RunDirectoryError);
    expect(() => claimRunDir(store, { resume: false, overwrite: false }, "--out x")).toThrow(
      "--out x holds a run (manifest.json); pass --resume to continue it, or --overwrite to remove its files and start afresh",
    );
    expect(claimRunDir(store, { resume: true, overwrite: false }, "--out x")).toEqual({ removed: [] });
    expect([...store.files.keys()]).toEqual(["manifest.json"]);
    expect(() => claimRunDir(store, { resume: true, overwrite: true }, "x")).toThrow(
      "give one of --resume (continue the run) and --overwrite (replace it)",
    );
  });

  it("--overwrite removes every file of the run, the state first, and nothing else", () => {
    const store = memoryStore();
    const removed: string[] = [];
    const watched = {
      ...store,
      remove: (name: string) => {
        removed.push(name);
        store.remove(name);
      },
    };
    for (const name of [...RUN_FILES, "notes.txt", ".tinylab.lock", "history.json.bak"]) store.write(name, name);
    expect(claimRunDir(watched, { resume: false, overwrite: true }, "--out x").removed).toEqual([...RUN_FILES]);
    expect(removed[0]).toBe(STATE_FILE);
    expect([...store.files.keys()].sort()).toEqual([".tinylab.lock", "history.json.bak", "notes.txt"]);
  });
});

describe("commitState", () => {
  it("writes the history, its curve and its event file before the state", () => {
    const store = memoryStore();
    const order: string[] = [];
    commitState(
      {
        ...store,
        write: (n, d) => {
          order.push(n);
          store.write(n, d);
        },
      },
      [bytes("sta"), bytes("te")],
      { json: "{}", curve: "<svg/>", events: bytes("events") },
    );
    expect(order).toEqual([HISTORY_FILE, CURVE_FILE, EVENTS_FILE, STATE_FILE]);
    expect(new TextDecoder().decode(store.files.get(STATE_FILE))).toBe("state"); // a store without writeChunks gets the chunks joined
  });

  it("leaves, after a kill between any two writes, a history that resumes to the state's update", () => {
    // a history with entries 1..n, as the run writes it at update n
    const at = (n: number): History => ({
      ...emptyHistory(),
      initial_validation_nll: 5,
      entries: Array.from({ length: n }, (_, i) => ({
        update: i + 1,
        train_loss: 5 - i / 10,
        lr: 1e-3,
        grad_norm: 1,
        validation_nll: null,
        validation_targets: null,
        tokens_per_second: 1,
        wall_seconds: i,
      })),
    });
    // the files on disk at the moments a kill can tell apart: the state at 4 with the history at 4, 6 (scored between states) or 8 (the next save's history written, its state not)
    for (const ahead of [4, 6, 8]) {
      const h = resumeHistory(bytes(JSON.stringify(at(ahead))), 4, "history.json");
      expect(h.entries.map((e) => e.update)).toEqual([1, 2, 3, 4]);
    }
  });
});
