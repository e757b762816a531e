// The messages between the lab page (main.ts) and its Web Worker (worker.ts), and the overfit form's fields. No
// engine, no DOM.
import type { OverfitOptions, OverfitProgress, OverfitResult } from "../experiments/overfit.ts";
import { optionKey, type OptionName } from "../experiments/option_catalogue.ts";

/**
 * The overfit form: options of `tinylab overfit`, each an input whose id is the option's name, its text parsed and
 * its tooltip written by the option catalogue, its first value the recipe's default.
 */
export const OVERFIT_FORM = ["seeds", "updates", "checkpoints", "lr"] as const satisfies readonly OptionName[];

/** The form's value of an option, by recipe key (seeds, updates, checkpoints, lr). */
export const formValue = (o: Partial<OverfitOptions>, name: (typeof OVERFIT_FORM)[number]): unknown =>
  o[optionKey(name) as keyof OverfitOptions];

/** A value as typed on the command line: a list comma-separated. */
export const asTyped = (v: unknown): string => (Array.isArray(v) ? v.join(",") : String(v));
import type { GradcheckReport } from "../src/model/gradcheck.ts";
import type { ScoringText } from "../experiments/scoring_data.ts";
import type { EvaluateReport } from "../experiments/evaluate.ts";

/** What the page asks for the engine: wasm with or without threads (threads need cross-origin isolation), or webgl. */
export interface EngineRequest {
  backend: "wasm" | "webgl";
  threads: boolean;
  /** XNNPACK threads asked for when threads are on (default: navigator.hardwareConcurrency); tfjs-wasm may give fewer. */
  threadsCount?: number;
  /** Absolute URL of the directory holding tfjs-backend-wasm*.wasm in the build. */
  wasmBase: string;
}

/** The engine the worker actually got: shown on the page and recorded in every result's provenance. */
export interface BrowserEngine {
  backend: string;
  tfjs: string;
  threads: number;
  simd: boolean;
  cross_origin_isolated: boolean;
  user_agent: string;
}

export type Request =
  | { id: number; type: "init"; engine: EngineRequest }
  | { id: number; type: "overfit"; options: Partial<OverfitOptions> }
  | { id: number; type: "gradcheck" }
  /** `text`: a run's split rebuilt from its dropped manifest.json and text (src/data/text_split.ts rebuildRunSplit); `stride` absent: the context. */
  | {
      id: number;
      type: "rescore";
      model: string;
      modelBytes: Uint8Array;
      data?: string;
      dataBytes?: Uint8Array;
      text?: ScoringText;
      stride?: number;
      batchRows: number;
    };

export type Reply =
  | { id: number; type: "ready"; engine: BrowserEngine }
  /** `figure`: the CLI's overfit SVG drawn from the checkpoints so far, sent when a checkpoint arrives. */
  | { id: number; type: "progress"; progress: OverfitProgress; figure?: string }
  | { id: number; type: "overfit"; result: OverfitResult; seconds: number }
  | {
      id: number;
      type: "gradcheck";
      report: GradcheckReport;
      tolerances: { eps: number; atol: number; rtol: number };
      provenance: OverfitResult["provenance"];
    }
  | { id: number; type: "rescore"; report: EvaluateReport }
  | { id: number; type: "error"; message: string };
