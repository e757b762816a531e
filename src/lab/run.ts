// The one composition root of a training run: named random streams, a GPT from seeded parameters, AdamW, a
// data source with a cursor and the loop, created fresh or from a saved state, stepped by a plan (train_plan.ts),
// snapshotted and restored in memory, and turned into state-file and model-file bytes. Not a file system (store.ts,
// src/node/disk.ts).
import type { Batch } from "../data/batches.ts";
import type { TokenizerJSON } from "../data/tokenizer.ts";
import type { TextDataProvenance } from "../data/text_split.ts";
import type { ModelConfig } from "../model/config.ts";
import { GPT } from "../model/gpt.ts";
import { initParameters, type ParamArrays } from "../model/init.ts";
import { dropoutDraws } from "../model/dropout_draws.ts";
import { batchLoss } from "../model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../train/adamw.ts";
import type { DataSource } from "../data/source.ts";
import { drain, drainAsync, loopSteps, type LoopArgs } from "../train/loop.ts";
import type { GradientItem, WorkerPool } from "../train/pool.ts";
import type { GradientProvider, StepResult } from "../train/trainer.ts";
import type { Engine } from "../util/engine.ts";
import { Rng } from "../util/primitives/rng.ts";
import type { TrainOptions } from "./config.ts";
import { graphWeights, modelGradient } from "./gradients.ts";
import { checkPlan, namedDivergence, planHooks, type TrainHooks, type TrainPlan, type Trained } from "./train_plan.ts";
import { checkTrainingMemory } from "./memory.ts";
import { encodeModel, modelProvenance } from "./model_file.ts";
import type { ModelProvenance, ModelSelection } from "./model_metadata.ts";
import { checkResume, differencesOf, encodeTrainState, trainStateChunks, type SelectedWeights, type TrainSnapshot } from "./state_file.ts";

/**
 * The run's random streams, each a child of `Rng.fromSeed(seed)` by this name: parameters at init, the draws
 * of the training data (its state is the data cursor) and dropout masks. Part of every saved state.
 */
export const STREAMS = { init: "init", batches: "batches", dropout: "dropout" } as const;

/** Everything a run is made from. */
export interface RunSpec {
  readonly config: ModelConfig;
  readonly options: TrainOptions;
  /** null for a run over raw token ids; such a run can be snapshotted in memory but not saved to a file. */
  readonly tokenizer: TokenizerJSON | null;
  /** The training data; any randomness it needs comes from the stream it is given, and its state is the cursor. */
  readonly data: (batches: Rng) => DataSource<Batch>;
  /** What the model file records of the text it trains on (train --text), so a scorer can check it is given that split. */
  readonly trainedOn?: TextDataProvenance;
  /** The engine the model computes on (src/util/engine.ts); absent: tfjs's own kernels of the current backend. */
  readonly engine?: Engine;
}

export class Run {
  private warnedDivergence = false;
  /** The weights validation chose so far (set by the best-model rule, TrainPlan.select); saved with the state. */
  best: SelectedWeights | undefined;

  private constructor(
    readonly spec: RunSpec,
    readonly model: GPT,
    readonly optimizer: AdamW,
    readonly data: DataSource<Batch>,
    readonly dropout: Rng,
    /** The stream `data` draws from (exposed so evaluation can prove it left it untouched). */
    readonly batches: Rng,
    /** Replicas that compute each update's microbatches (and scores) with this thread; absent: this thread alone. */
    readonly pool?: WorkerPool,
  ) {}

  /** A fresh run, or one continuing a saved state after every resume check (config, tokenizer, options). */
  static create(spec: RunSpec, from?: { state: TrainSnapshot; where: string }, pool?: WorkerPool): Run {
    if (from) checkResume(from.state, spec, from.where);
    checkTrainingMemory(spec.config, spec.options.batchRows); // before the model, its optimizer or a batch is allocated
    const root = Rng.fromSeed(spec.options.seed);
    const model = new GPT(spec.config, from?.state.weights ?? initParameters(spec.config, root.child(STREAMS.init)), spec.engine);
    const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, ...spec.options.adamw });
    const batches = root.child(STREAMS.batches);
    const run = new Run(spec, model, optimizer, spec.data(batches), root.child(STREAMS.dropout), batches, pool);
    if (from) {
      try {
        run.restoreStreams(from.state, from.where);
        checkCursor(spec, from.state, from.where);
        run.optimizer.restore(from.state.optimizer);
        run.best = from.state.best;
      } catch (err) {
        run.dispose();
        throw err;
      }
    }
    return run;
  }

  /** Updates done so far. */
  get step(): number {
    return this.optimizer.step;
  }

  /**
   * Train by `plan` on this thread: the loop's hooks (src/train/loop.ts) plus what a run adds, the best-model rule
   * (`select`, the weights with the lowest score are kept and saved with the state), patience counted in scorings,
   * and the divergence guard. `to` is the last update done.
   */
  train<E>(plan: TrainPlan<E>, hooks: TrainHooks<E> = {}): Trained {
    return drain(this.steps(plan, hooks));
  }

  /** The same, giving the event loop a turn between updates so a signal handler can set shouldStop (train, brown). */
  trainAsync<E>(plan: TrainPlan<E>, hooks: TrainHooks<E> = {}): Promise<Trained> {
    return drainAsync(this.steps(plan, hooks));
  }

  private *steps<E>(plan: TrainPlan<E>, hooks: TrainHooks<E>): Generator<void, Trained, void> {
    checkPlan(this.step, plan);
    const lossFn = batchLoss(this.model, { train: true, dropoutRng: this.dropout });
    const o = this.spec.options;
    const args: LoopArgs<Batch> = {
      params: this.model.params,
      lossFn,
      data: this.data,
      optimizer: this.optimizer,
      schedule: o.schedule,
      clipNorm: o.clipNorm,
      gradients:
        this.pool && this.pool.size > 1
          ? this.poolGradients(this.pool)
          : (microbatches) => {
              const weights = graphWeights(this.model, this.currentWeights());
              return { results: microbatches.map((b) => modelGradient(this.model, b, this.dropout, weights)) };
            },
    };
    const loopHooks = planHooks(plan, hooks, {
      vocabSize: this.spec.config.vocabSize,
      best: () => this.best,
      considerForBest: (score) => this.considerForBest(score),
      firstWarning: () => !this.warnedDivergence && (this.warnedDivergence = true),
    });
    try {
      const { earlyStop, ...done } = yield* loopSteps(args, plan, loopHooks);
      return { ...done, ...(earlyStop ? { earlyStop: { ...earlyStop, patience: plan.patience! } } : {}) };
    } catch (err) {
      throw namedDivergence(err, o.schedule);
    }
  }

  /** The weights now (parameter order, read only), without copies where the optimizer wrote them last. */
  private currentWeights(): Float32Array[] {
    return [...this.model.params.keys()].map((n) => this.optimizer.current(n));
  }

  /**
   * Gradients from the pool. Each microbatch carries the dropout stream's state at its start, found by skipping
   * the draws of those before it, so its masks are the single-thread path's; the stream ends where that path leaves it.
   */
  private poolGradients(pool: WorkerPool): GradientProvider<Batch> {
    const config = this.spec.config;
    return (microbatches) => {
      const items: GradientItem[] = microbatches.map((batch) => {
        if (config.dropout === 0) return { batch, dropout: null };
        const dropout = this.dropout.state();
        this.dropout.skip(dropoutDraws(config, batch.input));
        return { batch, dropout };
      });
      const current = this.currentWeights(),
        weights = graphWeights(this.model, current);
      const local = (item: GradientItem) => {
        const dropoutRng = item.dropout ? Rng.restore(item.dropout) : this.dropout; // dropout 0 draws nothing
        return modelGradient(this.model, item.batch, dropoutRng, weights);
      };
      return pool.gradients(current, items, local, this.optimizer.moments());
    };
  }

  /** One more update; returns its result. */
  update(): StepResult {
    let result: StepResult | undefined;
    this.train(
      { updates: this.step + 1 },
      {
        onUpdate: (_step, r) => {
          result = r;
        },
      },
    );
    return result!;
  }

  /** The whole state as copies (later updates do not change it): what a state file stores. */
  snapshot(): TrainSnapshot {
    return {
      ...this.snapshotMeta(),
      // both already copy: GPT.read() out of the variables, AdamW.state() out of its moment arrays
      weights: this.model.read(),
      optimizer: this.optimizer.state(),
      ...(this.best ? { best: { ...this.best, weights: copyArrays(this.best.weights) } } : {}),
    };
  }

  /** A snapshot's parts other than the arrays. */
  private snapshotMeta(): Omit<TrainSnapshot, "weights" | "optimizer" | "best"> {
    return {
      config: this.spec.config,
      tokenizer: this.spec.tokenizer,
      options: this.spec.options,
      rngs: { [STREAMS.dropout]: this.dropout.state() },
      cursor: structuredClone(this.data.state()),
      provenance: this.provenance(),
    };
  }

  /** Score a validation NLL of the current weights: they become the selected ones when strictly lower than the best so far. */
  considerForBest(validationNll: number): void {
    if (this.best === undefined || validationNll < this.best.validationNll)
      this.best = { update: this.step, validationNll, scoringsSince: 0, weights: this.model.read() };
    else this.best = { ...this.best, scoringsSince: this.best.scoringsSince + 1 };
  }

  /** Put a snapshot back; `keepCursor` leaves the data where it is (a control that must change the next update). */
  restore(s: TrainSnapshot, opts: { keepCursor?: boolean } = {}): void {
    this.model.assign(s.weights);
    this.optimizer.restore(s.optimizer);
    this.best = s.best && { ...s.best, weights: copyArrays(s.best.weights) };
    if (opts.keepCursor) this.dropout.load(s.rngs[STREAMS.dropout]);
    else this.restoreStreams(s, "snapshot");
  }

  private restoreStreams(s: TrainSnapshot, where: string): void {
    const dropout = s.rngs[STREAMS.dropout];
    if (!dropout) throw new Error(`${where}: no "${STREAMS.dropout}" rng state`);
    try {
      this.dropout.load(dropout);
    } catch (err) {
      throw new Error(`${where}: rngs.${STREAMS.dropout}: ${(err as Error).message}`);
    }
    try {
      this.data.restore(s.cursor);
    } catch (err) {
      throw new Error(`${where}: cursor: ${(err as Error).message}`);
    }
  }

  provenance(): ModelProvenance {
    return modelProvenance(this.model.engine, this.spec.options.seed, this.step, this.spec.trainedOn);
  }

  stateBytes(): Uint8Array {
    return encodeTrainState(this.snapshot());
  }

  /**
   * The state file's bytes as chunks, from views of the run's own arrays (the weights as the optimizer last wrote
   * them, its moments, the selected weights it holds) instead of snapshot()'s copies: write them before the next
   * update. At xl a copy of the state and the file's bytes held some 400 MB beside the run.
   */
  stateChunks(): Iterable<Uint8Array> {
    return trainStateChunks({
      ...this.snapshotMeta(),
      weights: new Map([...this.model.params.keys()].map((n) => [n, this.optimizer.current(n)])),
      optimizer: this.optimizer.stateView(),
      ...(this.best ? { best: this.best } : {}),
    });
  }

  /** The portable model file of the current weights. */
  modelBytes(): Uint8Array {
    if (this.spec.tokenizer === null) throw new Error("this run has no tokenizer (raw token ids): its model file could not encode text");
    return encodeModel(this.model.read(), this.spec.config, this.spec.tokenizer, this.provenance());
  }

  /** The model file of the selected weights, its provenance saying how they were chosen; undefined before any scoring. */
  bestModelBytes(): Uint8Array | undefined {
    if (this.spec.tokenizer === null) throw new Error("this run has no tokenizer (raw token ids): its model file could not encode text");
    const b = this.best;
    if (!b) return undefined;
    return encodeModel(b.weights, this.spec.config, this.spec.tokenizer, {
      ...modelProvenance(this.model.engine, this.spec.options.seed, b.update, this.spec.trainedOn),
      selection: selectionOf(b),
    });
  }

  dispose(): void {
    this.model.dispose();
    this.optimizer.dispose();
  }
}

/**
 * A saved data cursor must be where the state's updates, replayed from the seed, leave this run's data: the data
 * order depends on nothing else, and a cursor that is well-formed and in range but elsewhere (a forged or damaged
 * file) would resume a different run without a word. Replayed by the source's skip() where it has one (its draws
 * alone, no batches), else by drawing every batch again.
 */
function checkCursor(spec: RunSpec, state: TrainSnapshot, where: string): void {
  const fresh = spec.data(Rng.fromSeed(spec.options.seed).child(STREAMS.batches));
  if (fresh.skip) fresh.skip(state.optimizer.step);
  else for (let i = 0; i < state.optimizer.step; i++) fresh.next();
  const d = differencesOf(state.cursor, fresh.state(), "cursor")[0];
  if (d !== undefined) {
    throw new Error(
      `${where}: cursor: is not where ${state.optimizer.step} updates of this run's data leave it (${d.path}: saved ${d.saved ?? "(absent)"}, replayed ${d.run ?? "(absent)"})`,
    );
  }
}

const copyArrays = (a: ParamArrays): ParamArrays => new Map([...a].map(([k, v]) => [k, v.slice()]));

/** How the selected weights were chosen, in words a reader of the model file needs: its validation number is optimistic. */
export const selectionOf = (b: Pick<SelectedWeights, "update" | "validationNll">): ModelSelection => ({
  on: "validation",
  update: b.update,
  validation_nll: b.validationNll,
  note: "the update with the lowest whole-split validation NLL: chosen on validation, so that number is optimistic; only the test split (--final-test) is unbiased",
});
