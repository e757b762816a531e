// The lab page's Web Worker: starts the engine, then runs the CLI's own recipes (experiments/overfit.ts,
// experiments/gradcheck.ts, experiments/evaluate.ts) unchanged on the messages it gets. No DOM, no second copy of an experiment.
import { setThreadsCount, setWasmPaths, getThreadsCount } from "@tensorflow/tfjs-backend-wasm";
import "@tensorflow/tfjs-backend-webgl";
import { initBackend, NO_NODE, tf, tfjsOnly } from "../src/util/backend.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { runOverfit, type OverfitOptions, type OverfitProgress, type OverfitResult } from "../experiments/overfit.ts";
import { runGradcheck } from "../experiments/gradcheck.ts";
import { GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL } from "../src/model/gradcheck.ts";
import { overfitFigure } from "../experiments/overfit/figure.ts";
import { evaluateModel } from "../experiments/evaluate.ts";
import { EVALUATE_DEFAULTS } from "../experiments/options.ts";
import { asTyped, formValue, OVERFIT_FORM, type BrowserEngine, type EngineRequest, type Reply, type Request } from "./protocol.ts";

let engine: BrowserEngine | undefined;

const post = (r: Reply) => (self as unknown as Worker).postMessage(r);

async function start(req: EngineRequest): Promise<BrowserEngine> {
  const isolated = self.crossOriginIsolated === true;
  if (req.backend === "wasm") {
    setWasmPaths(req.wasmBase);
    // tfjs-wasm picks the threaded binary when this flag holds; off, it loads the single-thread SIMD binary
    if (!req.threads || !isolated) tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
    else {
      // tfjs-wasm 4.22 caps XNNPACK at hardwareConcurrency / 2 threads (1 on a 2-core machine); an explicit count
      // (the page's ?nthreads=N) lifts the cap by reporting 2N cores to it, and the page shows the count it got
      if (req.threadsCount !== undefined)
        Object.defineProperty(navigator, "hardwareConcurrency", { value: 2 * req.threadsCount, configurable: true });
      setThreadsCount(req.threadsCount ?? navigator.hardwareConcurrency);
    }
    await initBackend("wasm");
  } else {
    tf.enableProdMode();
    if (!(await tf.setBackend("webgl"))) throw new Error("backend webgl failed to initialise (no WebGL in this browser or worker)");
    await tf.ready();
  }
  const simd = req.backend === "wasm" && (await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT")) === true;
  return {
    backend: tf.getBackend(),
    tfjs: tf.version_core,
    threads: req.backend === "wasm" ? getThreadsCount() : 0,
    simd,
    cross_origin_isolated: isolated,
    user_agent: navigator.userAgent,
  };
}

/** The CLI's provenance with what only a browser run has: where it ran, the thread count, SIMD, isolation. */
function browserProvenance(p: Provenance, command: string): Provenance & { runtime: "browser" } & Omit<BrowserEngine, "backend" | "tfjs"> {
  const e = engine!;
  return {
    ...p,
    node: NO_NODE,
    command,
    runtime: "browser",
    threads: e.threads,
    simd: e.simd,
    cross_origin_isolated: e.cross_origin_isolated,
    user_agent: e.user_agent,
  };
}

/** The command line that reruns these options in Node, so the downloaded JSON says how to reproduce it. */
function overfitCommand(o: Partial<OverfitOptions>): string {
  const given = OVERFIT_FORM.flatMap((name) => (formValue(o, name) === undefined ? [] : [`--${name} ${asTyped(formValue(o, name))}`]));
  return `${["tinylab overfit", ...given].join(" ")} (in the browser: tinylab lab)`;
}

/** The overfit figure (experiments/overfit/figure.ts) from what has arrived so far (OverfitFigureData: the runs' checkpoints, the baselines, the target counts). */
function liveFigure(): (p: OverfitProgress) => string | undefined {
  let baselines: OverfitResult["baselines"] = [];
  let targets = { train: 0, validation: 0 };
  const runs: Pick<OverfitResult["runs"][number], "seed" | "checkpoints">[] = [];
  return (p) => {
    if (p.kind === "setup") ({ baselines, targets } = p);
    if (p.kind !== "checkpoint") return undefined;
    let run = runs.find((r) => r.seed === p.seed);
    if (!run) runs.push((run = { seed: p.seed, checkpoints: [] }));
    run.checkpoints.push({ update: p.update, train: p.train, validation: p.validation, validation_by_document: p.validation_by_document });
    return overfitFigure({ runs, baselines, targets });
  };
}

function handle(req: Request): void {
  if (req.type === "overfit") {
    const t0 = performance.now();
    const figure = liveFigure();
    const result = runOverfit(req.options, {
      onProgress: (progress) => post({ id: req.id, type: "progress", progress, figure: figure(progress) }),
    });
    const seconds = (performance.now() - t0) / 1000;
    post({
      id: req.id,
      type: "overfit",
      result: { ...result, provenance: browserProvenance(result.provenance, overfitCommand(req.options)) },
      seconds,
    });
  } else if (req.type === "gradcheck") {
    const report = runGradcheck("overfit");
    post({
      id: req.id,
      type: "gradcheck",
      report,
      tolerances: { eps: GRADCHECK_EPS, atol: GRADCHECK_ATOL, rtol: GRADCHECK_RTOL },
      provenance: browserProvenance(provenance(tfjsOnly()), "tinylab gradcheck (in the browser: tinylab lab)"),
    });
  } else if (req.type === "rescore") {
    const report = evaluateModel(
      { model: req.model, batchRows: req.batchRows, split: EVALUATE_DEFAULTS.split, data: req.data, stride: req.stride },
      { modelBytes: req.modelBytes, dataBytes: req.dataBytes, text: req.text },
    );
    const flags = `${req.data ? ` --data ${req.data}` : ""}${req.text ? " --run DIR" : ""}${req.stride ? ` --stride ${req.stride}` : ""}`;
    post({
      id: req.id,
      type: "rescore",
      report: {
        ...report,
        provenance: browserProvenance(
          report.provenance,
          `tinylab evaluate --model ${req.model} --batch-rows ${req.batchRows}${flags} (in the browser: tinylab lab)`,
        ),
      },
    });
  }
}

self.onmessage = async (ev: MessageEvent<Request>) => {
  const req = ev.data;
  try {
    if (req.type === "init") {
      engine = await start(req.engine);
      post({ id: req.id, type: "ready", engine });
    } else {
      if (!engine) throw new Error("the engine is not started");
      handle(req);
    }
  } catch (err) {
    post({ id: req.id, type: "error", message: (err as Error)?.message ?? String(err) });
  }
};
