// The training history across resumes: kept up to the state's update (later entries were made by updates the
// state does not hold, and are made again), refused when it does not cover the state, and drawn as points.
import { describe, expect, it } from "vitest";
import { emptyHistory, lossPoints, resumeHistory, withoutTimes, type History, type HistoryEntry } from "../../src/lab/history.ts";

const entry = (update: number, validation: number | null = null): HistoryEntry => ({
  update, train_loss: 5 - update / 10, lr: 0.01, grad_norm: 1, validation_nll: validation, validation_targets: validation === null ? null : 40, tokens_per_second: 100 + update, wall_seconds: update,
});
const bytes = (h: History) => new TextEncoder().encode(JSON.stringify(h));

describe("history", () => {
  it("a resume at update 6 keeps entries 1..6 of a history written up to 8 (a kill after the checkpoint)", () => {
    const saved: History = { ...emptyHistory(), initial_validation_nll: 5.5, entries: Array.from({ length: 8 }, (_, i) => entry(i + 1, (i + 1) % 3 === 0 ? 4 : null)) };
    const h = resumeHistory(bytes(saved), 6, "h.json");
    expect(h.entries.map((e) => e.update)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(h.initial_validation_nll).toBe(5.5);
    expect(lossPoints(h).validation).toEqual([[0, 5.5], [3, 4], [6, 4]]);
    expect(resumeHistory(bytes(saved), 0, "h.json")).toEqual(emptyHistory()); // a fresh run starts afresh
  });

  it("refuses a history that lacks updates the state has done, or is not a history", () => {
    const short: History = { ...emptyHistory(), entries: [entry(1), entry(2)] };
    expect(() => resumeHistory(bytes(short), 5, "h.json")).toThrow(/^h\.json: does not hold every update up to 5, where the training state is/);
    const gap: History = { ...emptyHistory(), entries: [entry(1), entry(3)] };
    expect(() => resumeHistory(bytes(gap), 3, "h.json")).toThrow(/does not hold every update up to 3/);
    // a history begun on a resume (--eval-every given first at update 4) continues
    const late: History = { ...emptyHistory(), entries: [entry(5), entry(6)] };
    expect(resumeHistory(bytes(late), 6, "h.json").entries.map((e) => e.update)).toEqual([5, 6]);
    expect(() => resumeHistory(new TextEncoder().encode("{\"train\": []}"), 5, "h.json")).toThrow(/^h\.json: not a tinylab-history\/1 file/);
  });

  it("withoutTimes drops exactly the two time fields", () => {
    expect(Object.keys(withoutTimes({ ...emptyHistory(), entries: [entry(1)] }).entries[0]).sort()).toEqual(["grad_norm", "lr", "train_loss", "update", "validation_nll", "validation_targets"]);
  });
});
