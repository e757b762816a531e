// Contracts of the progress bar with a fake clock and a fake stream: throttling, line shape, rate and ETA.
import { describe, expect, it } from "vitest";
import { createProgress, formatDuration, progressLine, quietClock } from "../../../src/util/runtime/progress.ts";

function fakeStream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, isTTY, columns, write: (s: string) => writes.push(s) };
}

function fakeClock() {
  let t = 0;
  return { now: () => t, set: (ms: number) => void (t = ms) };
}

describe("formatDuration", () => {
  it("prints m:ss below an hour and h:mm:ss above", () => {
    expect(formatDuration(65)).toBe("1:05");
    expect(formatDuration(3725)).toBe("1:02:05");
    expect(formatDuration(NaN)).toBe("?");
  });
});

describe("progressLine", () => {
  it("shows count, percentage, rate, ETA and fields", () => {
    // 50 of 200 updates in 5 s: 10 updates/s, 150 left → 15 s.
    const s = progressLine({
      label: "train",
      unit: "updates",
      done: 50,
      total: 200,
      elapsedMs: 5000,
      fields: { loss: 3.21, "tok/s": 1234.6 },
    });
    expect(s).toBe("train  50/200 updates  25.0%  10 updates/s  ETA 0:15  loss=3.210  tok/s=1235");
  });

  it("does not invent a rate or ETA before any time has passed", () => {
    expect(progressLine({ done: 0, total: 10, elapsedMs: 0 })).toBe("0/10 items  0.0%  ? items/s  ETA ?");
  });

  it("measures the rate from the first item, so its start-up cost does not inflate the first ETA", () => {
    // the first of 100 items took 10 s (warm-up), the next 9 took 1 s: 9 items/s, 90 left → ETA 0:10, not 1:30
    expect(progressLine({ done: 10, total: 100, elapsedMs: 11_000, since: { done: 1, elapsedMs: 10_000 } })).toBe(
      "10/100 items  10.0%  9 items/s  ETA 0:10",
    );
    expect(progressLine({ done: 1, total: 100, elapsedMs: 10_000, since: { done: 1, elapsedMs: 10_000 } })).toBe(
      "1/100 items  1.0%  ? items/s  ETA ?",
    );
  });
});

describe("createProgress", () => {
  it("off a terminal, prints a plain line a few seconds apart: at the tick after which the next item, at the last one's pace, would end past `every` seconds", () => {
    const stream = fakeStream(false);
    const clock = fakeClock();
    const p = createProgress({ total: 100, label: "eval", stream, every: 5, now: clock.now });
    for (let s = 0; s <= 10; s++) {
      clock.set(s * 1000);
      p.tick(5, { loss: 2 });
    }
    // Printed at t = 0 (first tick), 4 s (the next item, 1 s long, would end at 5 s) and 8 s only.
    expect(stream.writes.length).toBe(3);
    expect(stream.writes.every((w) => w.endsWith("\n") && !w.includes("\r") && !w.includes("\x1b"))).toBe(true);
    // At 4 s: 25 items done (ticks at 0..4 s); from the first tick (5 items at 0 s) 20 items in 4 s = 5 items/s,
    // 75 left → ETA 0:15.
    expect(stream.writes[1]).toBe("eval  25/100 items  25.0%  5 items/s  ETA 0:15  loss=2\n");
    clock.set(12_000);
    p.done();
    expect(stream.writes[3]).toMatch(/^eval {2}55\/100 items {2}55\.0% .* elapsed 0:12 {2}loss=2\n$/);
  });

  it("off a terminal, leaves no gap longer than `every` between lines while each item takes less", () => {
    // items of 1.2 s (an xl update): a throttle of "at most every 5 s" printed 6 s apart
    const stream = fakeStream(false);
    const clock = fakeClock();
    const at: number[] = [];
    const p = createProgress({
      total: 100,
      stream: { ...stream, write: (s: string) => at.push(clock.now()) && stream.write(s) },
      every: 5,
      now: clock.now,
    });
    for (let i = 1; i <= 50; i++) {
      clock.set(i * 1200);
      p.tick();
    }
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(gaps.length).toBeGreaterThan(10);
    // 1.2 s items: printed every 4th item, 4.8 s apart
    expect(gaps.every((g) => g === 4800)).toBe(true);
  });

  it("on a terminal, redraws one line with \\r at most every 100 ms and ends with a newline", () => {
    const stream = fakeStream(true);
    const clock = fakeClock();
    const p = createProgress({ total: 10, stream, now: clock.now });
    for (const t of [0, 50, 100, 150, 260]) {
      clock.set(t);
      p.tick();
    }
    expect(stream.writes.length).toBe(3); // t = 0, 100, 260
    expect(stream.writes.every((w) => w.startsWith("\r") && w.includes("\x1b[K") && !w.endsWith("\n"))).toBe(true);
    p.done();
    p.done();
    p.tick();
    expect(stream.writes.length).toBe(4);
    expect(stream.writes[3]).toMatch(/^\r5\/10 items .*elapsed 0:00\x1b\[K\n$/);
  });

  it("with quietMs, a phase that ends sooner prints nothing; a longer one speaks once the quiet time is over", () => {
    const short = fakeStream(false);
    const clock = fakeClock();
    const p = createProgress({ total: 10, label: "bpe", stream: short, now: clock.now, quietMs: 1500 });
    for (const t of [0, 500, 1400]) {
      clock.set(t);
      p.tick();
    }
    p.done();
    expect(short.writes).toEqual([]);
    const long = fakeStream(false);
    clock.set(0);
    const q = createProgress({ total: 10, label: "bpe", stream: long, now: clock.now, quietMs: 1500, every: 5 });
    for (const t of [0, 1000, 1600, 3000, 6000, 6700]) {
      clock.set(t);
      q.tick();
    }
    // the first line at 1.6 s (the first tick past the quiet time); the next at 6 s, after an item of 3 s that the
    // last one's pace (1.4 s) did not foresee
    expect(long.writes.map((w) => w.split("  ")[1])).toEqual(["3/10 items", "5/10 items"]);
    clock.set(7000);
    q.done();
    expect(long.writes[2]).toMatch(/^bpe {2}6\/10 items .*elapsed 0:07\n$/);
  });

  it("with a quiet clock, phases share one silence: short phases and the work between them speak once it passes the quiet time", () => {
    const clock = fakeClock();
    const phaseOf = (
      stream: ReturnType<typeof fakeStream> | ReturnType<typeof quietClock>,
      label: string,
      from: number,
      ticks: number[],
    ) => {
      clock.set(from);
      const p = createProgress({ total: 10, label, stream, now: clock.now, quietMs: 1500, every: 5 });
      for (const t of ticks) {
        clock.set(t);
        p.tick();
      }
      p.done();
    };
    // three phases of 1 s each with 1 s of unphased work between them: each alone stays under its quiet time
    const alone = fakeStream(false);
    [0, 2000, 4000].forEach((t, i) => phaseOf(alone, `p${i}`, t, [t + 500, t + 1000]));
    expect(alone.writes).toEqual([]);
    const raw = fakeStream(false);
    const shared = quietClock(raw);
    [0, 2000, 4000].forEach((t, i) => phaseOf(shared, `p${i}`, t, [t + 500, t + 1000]));
    // the second phase speaks at its first tick (2.5 s, silence since 0 s) and ends with its final line at 3 s; the
    // third starts 1 s after that line, and its first tick at 4.5 s falls past the quiet time again
    expect(raw.writes.map((w) => w.split("  ").slice(0, 2).join(" "))).toEqual([
      "p1 1/10 items",
      "p1 2/10 items",
      "p2 1/10 items",
      "p2 2/10 items",
    ]);
    // a command's clock is its own: another wrapper of the same stream starts silent
    const again = quietClock(raw);
    phaseOf(again, "p3", 10_000, [10_500, 11_000]);
    expect(raw.writes).toHaveLength(4);
  });

  it("leaves the last item's line to done(), so a finished phase is not printed twice", () => {
    const stream = fakeStream(false);
    const clock = fakeClock();
    const p = createProgress({ total: 2, label: "evaluate", stream, now: clock.now });
    p.tick();
    clock.set(10_000);
    p.tick();
    p.done();
    expect(stream.writes.map((w) => w.split("  ")[1])).toEqual(["1/2 items", "2/2 items"]);
    expect(stream.writes[1]).toContain("elapsed 0:10");
  });

  it("clear() erases a drawn terminal line so another line can be printed, and the next tick draws it again", () => {
    const stream = fakeStream(true);
    const clock = fakeClock();
    const p = createProgress({ total: 10, stream, now: clock.now });
    p.clear(); // nothing drawn yet: nothing to erase
    p.tick();
    clock.set(10);
    p.clear();
    p.tick(); // within 100 ms of the last draw, drawn again all the same
    expect(stream.writes).toEqual([expect.stringMatching(/^\r1\/10/), "\r\x1b[K", expect.stringMatching(/^\r2\/10/)]);
    p.done();
    p.clear(); // after the final line (ended by a newline) there is nothing to erase
    expect(stream.writes.length).toBe(4);
  });

  it("cuts a terminal line to the width so \\r can redraw it", () => {
    const stream = fakeStream(true, 20);
    const p = createProgress({ total: 1000, label: "a-long-label", stream, now: () => 0 });
    p.tick(1, { loss: 1.5, extra: "something long" });
    expect(stream.writes[0]).toBe(`\r${"a-long-label  1/1000 items  0.1%".slice(0, 19)}\x1b[K`);
  });
});
