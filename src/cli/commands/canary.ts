// `tinylab canary`: the canary exposure sweep by repetition count with a control canary (experiments/canary.ts).
// Needs no engine: the fitted models are count bigrams.
import type { CommandModule } from "yargs";
import { CANARY_DEFAULTS as d } from "../../../experiments/options.ts";
import { optionValues, withOptions, type OptionTable } from "../options.ts";

/** canary's options and their defaults (experiments/options.ts CANARY_DEFAULTS; --canary-sweep as typed, a list). */
export const CANARY_OPTIONS = {
  data: undefined,
  canary: d.canary,
  "canary-control": d.control,
  "canary-secret": d.secretTokens,
  "canary-sweep": d.repetitions.join(","),
  smoothing: d.smoothing,
  json: false,
} satisfies OptionTable;

export const canaryCommand: CommandModule = {
  command: "canary",
  describe: "Canary exposure by repetition count: log p(secret | prefix) of a count model fitted with r copies, beside a control canary",
  builder: (y) =>
    withOptions(y, CANARY_OPTIONS, {
      data: "JSONL documents whose train split is fitted (default: 000's base text, one train document)",
      canary: "canary string inserted r times into the training documents (each copy its own document)",
      smoothing: "the add-k byte bigram's k (000 used 0.05)",
    }).option("model", {
      // not an option of canary, but a likely one to try: refused by name, not as yargs' "Unknown argument"
      type: "string",
      hidden: true,
      requiresArg: true,
      coerce: (v: unknown) => {
        const m = typeof v === "string" && v !== "" ? v : "DIR";
        throw new Error(
          `--model ${m}: canary fits its own count models on one tokenizer and takes no model; ` +
            `probe a model's memorization with report --model ${m} --canary TEXT`,
        );
      },
    }),
  handler: async (argv) => {
    const [{ toJson }, { runCanary }, { formatCanary }] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/canary.ts"),
      import("../views/canary.ts"),
    ]);
    const { json, ...o } = optionValues(argv, CANARY_OPTIONS);
    const r = runCanary(o);
    process.stdout.write(json ? toJson(r) : formatCanary(r) + "\n");
  },
};
