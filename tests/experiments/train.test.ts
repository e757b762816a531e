// train --text's default microbatch count: 2 for a model large enough to pay for a second thread, decided from
// the config alone (never the cores), so the default's workers follow the cores while its numbers stay those of
// --microbatches 2 on every machine; --microbatches 1 keeps its own golden numbers; a default run resumes.
import { beforeAll, describe, expect, it } from "vitest";
import { runTraining, TEXT_DEFAULTS, TRAIN_DEFAULTS, type TrainRunOptions } from "../../experiments/train.ts";
import { textMicrobatches } from "../../experiments/train_options.ts";
import { threadPools } from "../../src/node/pool.ts";
import { resolveModelConfig, parameterCount } from "../../src/model/config.ts";
import { documentsOfText } from "../../src/data/text_documents.ts";
import { memoryStore, type Store } from "../../src/lab/store.ts";
import { MIN_THREAD_WORK, workersFor } from "../../src/train/pool.ts";
import { tf, tfjsOnly } from "../../src/util/backend.ts";
import { useBackend } from "../helpers.ts";
import { STORY } from "../story.ts";

const docs = documentsOfText(STORY, "story.txt", "story.txt", false);

// just over the threshold (18,912 parameters × context 64 = 1,210,368), so the default splits its updates
const SHAPE = { nLayers: 1, dModel: 32, nHeads: 2, dFF: 64, contextLength: 64, vocabSize: 258 };
const TEXT_MODEL = resolveModelConfig(TEXT_DEFAULTS.model);
const SMALL = resolveModelConfig({ ...TEXT_DEFAULTS.model, ...SHAPE, dModel: 16, dFF: 32, contextLength: 32 });

/** The run's last loss at --microbatches 1 (wasm, tfjs kernels), a golden value: the default cannot move an explicit count's numbers. */
const ONE_MICROBATCH_LAST_LOSS = 4.9913554191589355;
/** ... and at --microbatches 2, the default's run for this shape. */
const TWO_MICROBATCHES_LAST_LOSS = 4.991354703903198;

const run = (o: Partial<TrainRunOptions>, store: Store = memoryStore()) =>
  runTraining(
    {
      ...TRAIN_DEFAULTS,
      updates: 6,
      lr: 3e-3,
      warmup: 2,
      cosineSteps: 6,
      minLr: 3e-4,
      weightDecay: 0.1,
      batchRows: 4,
      microbatches: undefined,
      logEvery: 1000,
      modelConfig: SHAPE,
      text: { docs, name: "story.txt", tokenizer: "byte", split: { seed: 0, validation: 0.1, test: 0.1 } },
      out: store,
      saveModel: { store, name: "model.safetensors" },
      ...o,
    },
    () => {},
    () => {},
  );
const used = (r: Awaited<ReturnType<typeof run>>) => [
  (r.summary.options as { microbatchesPerUpdate: number }).microbatchesPerUpdate,
  r.summary.workers,
];

beforeAll(() => useBackend("wasm"));

describe("train --text's default microbatches", () => {
  it("are 2 for a model that pays for a thread (the default shape among them) when 2 divides the rows, else 1", () => {
    expect(parameterCount(TEXT_MODEL) * TEXT_MODEL.contextLength).toBeGreaterThanOrEqual(MIN_THREAD_WORK);
    expect(parameterCount(SMALL) * SMALL.contextLength).toBeLessThan(MIN_THREAD_WORK);
    expect([
      textMicrobatches(TEXT_MODEL, TEXT_DEFAULTS.batchRows),
      textMicrobatches(TEXT_MODEL, 3),
      textMicrobatches(TEXT_MODEL, 1),
      textMicrobatches(SMALL, 8),
    ]).toEqual([2, 1, 1, 1]);
    // the workers follow the cores, capped by the microbatches: one machine's count never reaches the numbers
    expect([1, 2, 8].map((cores) => workersFor(undefined, cores, 2, TEXT_MODEL))).toEqual([1, 2, 2]);
  });

  it("give --microbatches 2's numbers on any worker count; --microbatches 1 gives its own", async () => {
    const before = tf.memory().numTensors;
    const byDefault = await run({});
    expect(used(byDefault)).toEqual([2, Math.min(threadPools(tfjsOnly()).cores, 2)]);
    expect(byDefault.lastLoss).toBe(TWO_MICROBATCHES_LAST_LOSS);
    const oneWorker = await run({ engine: { ...tfjsOnly(), workers: 1 } });
    expect([used(oneWorker), oneWorker.modelSha256]).toEqual([[2, 1], byDefault.modelSha256]);
    const one = await run({ microbatches: 1 });
    expect([used(one), one.lastLoss]).toEqual([[1, 1], ONE_MICROBATCH_LAST_LOSS]);
    expect(tf.memory().numTensors).toBe(before);
  }, 120_000);

  it("resume a run made with the default to the uninterrupted run's model; --microbatches 1 on it is refused naming the run's count", async () => {
    const whole = await run({});
    const store = memoryStore();
    await run({ updates: 3 }, store);
    await expect(run({ microbatches: 1, resume: true }, store)).rejects.toThrow(
      /this run differs from it in options\.microbatchesPerUpdate: saved 2, this run 1\. The microbatches per update are --microbatches: it was 2 and is now 1; to resume the run, pass --microbatches 2$/,
    );
    const resumed = await run({ resume: true }, store);
    expect([resumed.from, resumed.modelSha256, resumed.lastLoss]).toEqual([3, whole.modelSha256, whole.lastLoss]);
  }, 120_000);
});

describe("train --text's progress", () => {
  it("shows each phase (split, manifest, BPE, tokenizing, baselines, validation, updates) on the progress stream, never in the log", async () => {
    // quietMs 0: every phase speaks, however short (a terminal or a log waits QUIET_MS before a phase's first line)
    const written: string[] = [],
      logged: string[] = [];
    const progress = { write: (s: string) => written.push(s), isTTY: false, quietMs: 0 };
    await runTraining(
      {
        ...TRAIN_DEFAULTS,
        updates: 4,
        batchRows: 4,
        microbatches: 1,
        logEvery: 1,
        evalEvery: 2,
        modelConfig: { ...SHAPE, vocabSize: 300 },
        text: { docs, name: "story.txt", tokenizer: "bpe", split: { seed: 0, validation: 0.1, test: 0.1 } },
        out: memoryStore(),
        progress,
      },
      (l) => logged.push(l),
      (l) => logged.push(l),
    );
    const lines = written
      .join("")
      .split("\n")
      .filter((l) => l !== "");
    for (const l of lines)
      expect(l).toMatch(
        /^(split|manifest|bpe|tokenize|baselines|validation|train) {2}\d+\/\d+ (merges|documents|batches|updates) {2}[\d.]+% /,
      );
    // each phase ends with its count complete and the time it took
    const last = (label: string) => lines.filter((l) => l.startsWith(`${label}  `)).at(-1);
    expect(last("bpe")).toMatch(/^bpe {2}42\/42 merges {2}100\.0% .* elapsed \d+:\d\d$/);
    // the sample's 10 train documents counted before the merges
    expect(lines.filter((l) => l.startsWith("bpe  ") && l.includes(" documents ")).at(-1)).toMatch(
      /^bpe {2}10\/10 documents {2}100\.0% .* elapsed /,
    );
    expect(last("split")).toMatch(/^split {2}12\/12 documents {2}100\.0% .* elapsed /);
    // written (with its sha256), then hashed compact for the run's identity
    expect(lines.filter((l) => /^manifest {2}12\/12 documents {2}100\.0% .* elapsed /.test(l))).toHaveLength(2);
    expect(last("tokenize")).toMatch(/^tokenize {2}12\/12 documents {2}100\.0% .* elapsed /);
    expect(lines.filter((l) => /^validation {2}\d+\/\d+ batches {2}100\.0% .* elapsed /.test(l))).toHaveLength(3); // updates 0, 2 and 4
    // the four count baselines scored on the same split (its windows laid once), before the model: one phase over
    // their four passes
    const validationBatches = Number(lines.find((l) => l.startsWith("validation  "))!.split(/[ /]+/)[2]);
    expect(lines.filter((l) => /^baselines {2}\d+\/\d+ batches {2}100\.0% .* elapsed /.test(l))).toEqual([
      expect.stringMatching(new RegExp(`^baselines {2}${4 * validationBatches}/${4 * validationBatches} batches`)),
    ]);
    expect(last("train")).toMatch(/^train {2}4\/4 updates {2}100\.0% .* elapsed \d+:\d\d {2}loss=\d/);
    expect(logged.some((l) => /\d+\/\d+ (merges|documents|batches|updates)/.test(l))).toBe(false);
  });
});
