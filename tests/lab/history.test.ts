// The training history across resumes: kept up to the state's update (later entries were made by updates the
// state does not hold, and are made again), refused when it does not cover the state, and drawn as points.
import { describe, expect, it } from "vitest";
import { emptyHistory, lossPoints, resumeHistory, withoutTimes, type History, type HistoryEntry } from "../../src/lab/history.ts";

const entry = (update: number, validation: number | null = null): HistoryEntry => ({
  update,
  train_loss: 5 - update / 10,
  lr: 0.01,
  grad_norm: 1,
  validation_nll: validation,
  validation_targets: validation === null ? null : 40,
  tokens_per_second: 100 + update,
  wall_seconds: update,
});
const bytes = (h: History) => new TextEncoder().encode(JSON.stringify(h));

describe("history", () => {
  it("a resume at update 6 keeps entries 1..6 of a history written up to 8 (a kill after the checkpoint)", () => {
    const saved: History = {
      ...emptyHistory(),
      initial_validation_nll: 5.5,
      entries: Array.from({ length: 8 }, (_, i) => entry(i + 1, (i + 1) % 3 === 0 ? 4 : null)),
    };
    const h = resumeHistory(bytes(saved), 6, "h.json");
    expect(h.entries.map((e) => e.update)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(h.initial_validation_nll).toBe(5.5);
    expect(lossPoints(h).validation).toEqual([
      [0, 5.5],
      [3, 4],
      [6, 4],
    ]);
    expect(resumeHistory(bytes(saved), 0, "h.json")).toEqual(emptyHistory()); // a fresh run starts afresh
  });

  it("refuses a history that lacks updates the state has done, or is not a history", () => {
    const short: History = { ...emptyHistory(), entries: [entry(1), entry(2)] };
    expect(() => resumeHistory(bytes(short), 5, "h.json")).toThrow(
      /^h\.json: does not hold every update up to 5, where the training state is/,
    );
    const gap: History = { ...emptyHistory(), entries: [entry(1), entry(3)] };
    expect(() => resumeHistory(bytes(gap), 3, "h.json")).toThrow(/does not hold every update up to 3/);
    // a history begun on a resume (--eval-every given first at update 4) continues
    const late: History = { ...emptyHistory(), entries: [entry(5), entry(6)] };
    expect(resumeHistory(bytes(late), 6, "h.json").entries.map((e) => e.update)).toEqual([5, 6]);
    expect(() => resumeHistory(new TextEncoder().encode('{"train": []}'), 5, "h.json")).toThrow(
      /^h\.json: format: is missing \(got nothing\)$/,
    );
  });

  it("withoutTimes drops exactly the two time fields", () => {
    expect(Object.keys(withoutTimes({ ...emptyHistory(), entries: [entry(1)] }).entries[0]).sort()).toEqual([
      "grad_norm",
      "lr",
      "train_loss",
      "update",
      "validation_nll",
      "validation_targets",
    ]);
  });

  it.each<[string, (json: string) => string, RegExp]>([
    [
      "a string loss (kept and written back before)",
      (j) => j.replace('"train_loss":4.9', '"train_loss":"abc"'),
      /^h\.json: entries\[0\]\.train_loss: must be a number, not a string \(got "abc"\)$/,
    ],
    [
      "a loss of 1e999 (accepted, then fatal after the next save, before)",
      (j) => j.replace('"train_loss":4.9', '"train_loss":1e999'),
      /^h\.json: entries\[0\]\.train_loss: must be a finite number \(got 1e999\)$/,
    ],
    [
      "a null entry (a raw TypeError before)",
      (j) => j.replace(/"entries":\[\{[^}]*\}/, '"entries":[null'),
      /^h\.json: entries\[0\]: must be an object, not null \(got null\)$/,
    ],
    [
      "a string initial value (the run finished, then failed, before)",
      (j) => j.replace('"initial_validation_nll":5.5', '"initial_validation_nll":"5.5"'),
      /^h\.json: initial_validation_nll: must be a number, not a string \(got "5\.5"\)$/,
    ],
    [
      "a key given twice",
      (j) => j.replace('"lr":0.01', '"lr":0.01,"lr":0.02'),
      /^h\.json: not valid JSON: key "lr" is given twice \(entries\[0\]\.lr\) at line 1, column \d+$/,
    ],
    [
      "an update given twice",
      (j) => j.replace('"update":2', '"update":1'),
      /^h\.json: entries\[1\]\.update: is given twice \(also at entries\[0\]\) \(got 1\)$/,
    ],
    ["a missing field", (j) => j.replace('"grad_norm":1,', ""), /^h\.json: entries\[0\]\.grad_norm: is missing \(got nothing\)$/],
    ["a negative rate", (j) => j.replace('"lr":0.01', '"lr":-0.01'), /^h\.json: entries\[0\]\.lr: must be ≥ 0 \(got -0\.01\)$/],
    [
      "an integer written as a float",
      (j) => j.replace('"update":1', '"update":1.0'),
      /^h\.json: entries\[0\]\.update: must be an integer, written without a fraction or exponent \(got 1\.0\)$/,
    ],
    [
      "a score without its target count",
      (j) => j.replace('"validation_targets":40', '"validation_targets":null'),
      /^h\.json: entries\[2\]\.validation_targets: must be null exactly when validation_nll is \(got null\)$/,
    ],
    [
      "an unknown field",
      (j) => j.replace('"grad_norm":1,', '"grad_norm":1,"note":"x",'),
      /^h\.json: entries\[0\]\.note: is not a field here .* \(got "x"\)$/,
    ],
  ])("refuses %s, in one line naming the file and the field", (_, edit, expected) => {
    const saved: History = {
      ...emptyHistory(),
      initial_validation_nll: 5.5,
      entries: Array.from({ length: 3 }, (_, i) => entry(i + 1, i === 2 ? 4 : null)),
    };
    const json = JSON.stringify(saved);
    expect(edit(json)).not.toBe(json);
    expect(() => resumeHistory(new TextEncoder().encode(json), 3, "h.json")).not.toThrow(); // the control
    expect(() => resumeHistory(new TextEncoder().encode(edit(json)), 3, "h.json")).toThrow(expected);
  });

  it("a history missing while the state is past 0 starts again after the state's update, and says so", () => {
    const lines: string[] = [];
    expect(resumeHistory(undefined, 6, "run/history.json", (l) => lines.push(l))).toEqual(emptyHistory());
    expect(lines).toEqual([
      "run/history.json: not found while the training state is at update 6: the history starts again at update 7 (updates 1-6 have no record)",
    ]);
    expect(resumeHistory(undefined, 0, "run/history.json", (l) => lines.push(l))).toEqual(emptyHistory());
    expect(lines).toHaveLength(1); // a fresh run has nothing to say
  });
});
