// The pool's writes of the shared weights, on a fake replica that answers from the shared buffer: a scoring call
// that hands back the object of the last write (its promise that the weights did not change) writes nothing and
// names the same write in its jobs; a new object, no object, or a gradients call since, writes first.
import { describe, expect, it } from "vitest";
import type { ScoredBatch } from "../../src/model/input.ts";
import { WorkerPool, type Replicas } from "../../src/train/pool.ts";
import { weightLayout, type Job, type Reply } from "../../src/train/pool_protocol.ts";

/** One replica whose every score (and gradient) is the shared buffer's first weight when it receives. */
function fakeReplica(): Replicas & { jobs: Job[] } {
  const weights = new Float32Array(2);
  const jobs: Job[] = [];
  const reply = (job: Job): Reply => {
    if (job.kind === "scores")
      return { kind: "scores", items: job.items.map(({ index }) => ({ index, nll: Float64Array.of(weights[0]) })) };
    if (job.kind === "gradients")
      return {
        kind: "gradients",
        items: job.items.map(({ index }) => ({ index, lossSum: 0, count: 1 })),
      };
    return { kind: "error", message: "unexpected job" };
  };
  return {
    count: 1,
    weights,
    layout: weightLayout([["w", 2]]),
    jobs,
    send: (_w, job) => void jobs.push(job),
    receive: () => reply(jobs[jobs.length - 1]),
    close: () => {},
  };
}

const batch = {} as ScoredBatch; // never read: the calling thread's share is `local`, the replica's is faked
const local = () => Float64Array.of(-1);
const writeOf = (job: Job) => ("weights" in job ? job.weights : undefined);

describe("the pool's weight writes", () => {
  it("are skipped while a scoring call hands back the last write's object, and made for anything else", () => {
    const r = fakeReplica();
    const pool = new WorkerPool(r);
    const [a, b] = [{}, {}];
    const worker = (weights: number[], same?: object) => pool.scores([weights], [batch, batch], local, same)[1][0];
    expect(worker([1, 2], a)).toBe(1);
    // the same object: nothing is written (the promise is the caller's: these values are not read)
    expect(worker([5, 6], a)).toBe(1);
    expect(r.jobs.map(writeOf)).toEqual([1, 1]);
    expect(worker([5, 6], b)).toBe(5);
    expect(worker([7, 8])).toBe(7);
    expect(worker([9, 9])).toBe(9);
    expect(worker([3, 4], b)).toBe(3);
    // a gradients call writes its own weights, so the next scoring call writes again whatever object it hands back
    pool.gradients(
      [[2, 2]],
      [
        { batch, dropout: null },
        { batch, dropout: null },
      ],
      () => ({ grads: [new Float32Array(2)], lossSum: 0, count: 1 }),
      { m: new Float32Array(new SharedArrayBuffer(8)), v: new Float32Array(new SharedArrayBuffer(8)) },
    );
    expect(worker([3, 4], b)).toBe(3);
    expect(r.jobs.map(writeOf)).toEqual([1, 1, 2, 3, 4, 5, 6, 7]);
  });
});
