// The pool's shards of an update, on in-process replicas (each answers its jobs with shard_passes.ts on the shared
// memory, as a thread of src/node/pool_worker.ts does): owners fixed by size, and an update through 2 or 3 owners
// equal to the single-thread update bit for bit, through the checking pass too, refusing a non-finite value with
// the same message and nothing changed.
import { beforeAll, describe, expect, it } from "vitest";
import { tf } from "../../src/util/backend.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { NonFiniteError } from "../../src/train/non_finite.ts";
import { WorkerPool, type GradientItem, type Replicas } from "../../src/train/pool.ts";
import { weightLayout, type Job, type Reply, type SharedBuffers } from "../../src/train/pool_protocol.ts";
import { ownedBy, ownerCheck, ownerSquares, ownerUpdate, owners, type ShardMemory } from "../../src/train/shard_passes.ts";
import { applyGradients, type MicrobatchGradient, type StepResult } from "../../src/train/trainer.ts";
import type { ScoredBatch } from "../../src/model/input.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { useBackend } from "../helpers.ts";

beforeAll(() => useBackend("cpu"));

const SHAPES: [string, number[]][] = [
  ["wte", [7, 5]],
  ["b", [5]],
  ["w1", [5, 9]],
  ["g", [9]],
  ["w2", [9, 5]],
];
const names = SHAPES.map(([n]) => n);
const sizes = SHAPES.map(([, s]) => s.reduce((a, b) => a * b, 1));
const layout = weightLayout(SHAPES.map(([n], i) => [n, sizes[i]] as const));

/** Update u's microbatch k: fixed pseudo-random gradients (whoever computes them), `poison` puts a NaN in one. */
function gradientOf(u: number, k: number, poison?: { k: number; param: number }): MicrobatchGradient {
  const rng = Rng.fromSeed(`update ${u} microbatch ${k}`);
  const grads = sizes.map((n) => Float32Array.from({ length: n }, () => 3 * rng.normal()));
  if (poison && poison.k === k) grads[poison.param][2] = NaN;
  return { grads, lossSum: 10 + k, count: 4 + k };
}

/** A microbatch item naming what its gradient is (the fake replicas read it, never a real batch). */
const item = (u: number, k: number, poison?: { k: number; param: number }): GradientItem => ({
  batch: { u, k, poison } as unknown as ScoredBatch,
  dropout: null,
});
const gradientOfItem = (it: GradientItem) => {
  const { u, k, poison } = it.batch as unknown as { u: number; k: number; poison?: { k: number; param: number } };
  return gradientOf(u, k, poison);
};

/** `count` replicas in this thread: each job is answered at once, as a worker thread answers it. */
function inProcess(count: number): Replicas & { jobs: Job[][] } {
  const weights = new Float32Array(new SharedArrayBuffer(4 * layout.total));
  const queues: Reply[][] = Array.from({ length: count + 1 }, () => []);
  const jobs: Job[][] = Array.from({ length: count + 1 }, () => []);
  // as a worker keeps them: each buffer as last sent (a job carries one only when it changed)
  const held: { terms?: SharedArrayBuffer; m?: SharedArrayBuffer; v?: SharedArrayBuffer } = {};
  const keep = (job: SharedBuffers) => {
    for (const key of ["terms", "m", "v"] as const) if (job[key]) held[key] = job[key];
  };
  const memory = (job: SharedBuffers): ShardMemory => {
    keep(job);
    return { layout, weights, terms: new Float32Array(held.terms!), m: new Float32Array(held.m!), v: new Float32Array(held.v!) };
  };
  const answer = (job: Job): Reply => {
    switch (job.kind) {
      case "gradients": {
        keep(job);
        const terms = new Float32Array(held.terms!);
        return {
          kind: "gradients",
          items: job.items.map(({ index, batch, dropout }) => {
            const g = gradientOfItem({ batch, dropout });
            g.grads.forEach((a, p) => terms.set(a, index * layout.total + layout.offsets[p]));
            return { index, lossSum: g.lossSum, count: g.count };
          }),
        };
      }
      case "squares":
        return { kind: "squares", values: ownerSquares(memory(job), job.count, job.params) };
      case "check":
        return { kind: "check", bad: ownerCheck(memory(job), job.count, job.params, job.k, job.decays) };
      case "update":
        return { kind: "update", ...ownerUpdate(memory(job), job.count, job.params, job.k, job.decays) };
      default:
        return { kind: "error", message: `unexpected job ${job.kind}` };
    }
  };
  return {
    count,
    weights,
    layout,
    jobs,
    send: (w, job) => {
      jobs[w].push(job);
      queues[w].push(answer(job));
    },
    receive: (w) => queues[w].shift()!,
    close: () => {},
  };
}

/** Parameters from one seed, and their optimizer (weight decay on, so decaying and other parameters differ). */
function model() {
  const rng = Rng.fromSeed("weights");
  const params = new Map(
    SHAPES.map(([n, shape]) => [
      n,
      tf.variable(
        tf.tensor(
          Float32Array.from({ length: sizes[names.indexOf(n)] }, () => rng.normal()),
          shape,
        ),
      ),
    ]),
  );
  const optimizer = new AdamW(params, { ...DEFAULT_ADAMW, weightDecay: 0.1 });
  return { params, optimizer, dispose: () => params.forEach((p) => p.dispose()) };
}

type Plan = { lr: number; clipNorm: number; poison?: { k: number; param: number } }[];
const MICROBATCHES = 3;

/** The updates of `plan` on this thread alone (pool: null) or through a pool of in-process owners; each result or error. */
function updates(plan: Plan, pool: WorkerPool | null) {
  const m = model();
  const out: (StepResult | string)[] = [];
  plan.forEach(({ lr, clipNorm, poison }, u) => {
    const items = Array.from({ length: MICROBATCHES }, (_, k) => item(u, k, poison));
    try {
      if (pool) {
        const weights = names.map((n) => m.optimizer.current(n));
        const { results, shards } = pool.gradients(weights, items, gradientOfItem, m.optimizer.moments());
        out.push(applyGradients({ names, results, optimizer: m.optimizer, lr, clipNorm, shards }));
      } else {
        out.push(applyGradients({ names, results: items.map(gradientOfItem), optimizer: m.optimizer, lr, clipNorm }));
      }
    } catch (err) {
      if (!(err instanceof NonFiniteError)) throw err;
      out.push(err.message);
    }
  });
  const state = m.optimizer.state();
  const weights = names.map((n) => Float32Array.from(m.params.get(n)!.dataSync() as Float32Array));
  m.dispose();
  return { out, step: state.step, weights, m: names.map((n) => state.m.get(n)!), v: names.map((n) => state.v.get(n)!) };
}

describe("the pool's shards of an update", () => {
  it("owners: largest parameter first, each to the least loaded worker, ties to the lower index", () => {
    // sizes 35, 5, 45, 9, 45 (parameters p0..p4). Two workers: p2 → 0, p4 → 1, p0 → 0 (loads 45 = 45: the lower),
    // p3 → 1, p1 → 1: loads 80 and 59. Three: p2 → 0, p4 → 1, p0 → 2, p3 → 2 (35 < 45), p1 → 2 (44 < 45).
    expect(owners(sizes, 2)).toEqual([0, 1, 0, 1, 1]);
    expect(owners(sizes, 3)).toEqual([2, 2, 0, 2, 1]);
    expect(owners(sizes, 1)).toEqual([0, 0, 0, 0, 0]);
    expect(ownedBy(owners(sizes, 3), 3)).toEqual([[2], [4], [0, 1, 3]]);
  });

  // lr 1e30 puts the bound past SAFE_BOUND (the checking pass runs, finds nothing, the update applies); lr 1e39
  // makes new weights overflow float32; a NaN in microbatch 1 (a replica's) is a non-finite gradient
  const plan: Plan = [
    { lr: 0.01, clipNorm: 1 },
    { lr: 0.02, clipNorm: 1e9 },
    { lr: 1e30, clipNorm: 1 },
    { lr: 1e39, clipNorm: 1 },
    { lr: 0.01, clipNorm: 1, poison: { k: 1, param: 2 } },
    { lr: 0.01, clipNorm: 1 },
  ];
  let alone: ReturnType<typeof updates>;
  beforeAll(() => {
    alone = updates(plan, null);
  });

  it("the single-thread reference passes through clipping, the checking pass and both refusals", () => {
    expect(alone.out.map((r) => (typeof r === "string" ? r : r.clipped))).toEqual([
      true,
      false,
      true,
      expect.stringMatching(/^non-finite new weight in parameter "wte" \(first at flat index \d+\)/),
      expect.stringMatching(/^non-finite gradient in parameter "w1"/),
      true,
    ]);
    expect(alone.step).toBe(4);
  });

  for (const replicas of [1, 2]) {
    it(`${replicas + 1} workers: the same results, refusals, weights and moments bit for bit, each owner updating its own`, () => {
      const r = inProcess(replicas);
      const sharded = updates(plan, new WorkerPool(r));
      expect(sharded.out).toEqual(alone.out);
      expect(sharded.step).toBe(alone.step);
      for (const what of ["weights", "m", "v"] as const)
        sharded[what].forEach((a, i) =>
          expect(
            Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
              Buffer.from(alone[what][i].buffer, alone[what][i].byteOffset, alone[what][i].byteLength),
            ),
            `${what} ${names[i]}`,
          ).toBe(true),
        );
      // every replica received its own parameters' update at each applied update, and the checking pass once
      const own = ownedBy(owners(sizes, replicas + 1), replicas + 1);
      for (let w = 1; w <= replicas; w++) {
        const updatesSent = r.jobs[w].filter((j) => j.kind === "update");
        expect(updatesSent.length).toBe(4);
        expect(updatesSent.every((j) => j.kind === "update" && j.params.join() === own[w].join())).toBe(true);
        expect(r.jobs[w].filter((j) => j.kind === "check").length).toBe(2); // lr 1e30 and lr 1e39
      }
    });
  }
});
