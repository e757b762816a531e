// The option catalogue: one definition per idea, parsed and refused by name before any work starts, model-shape
// flags and --model-config combined without double definitions, and `--resume` meaning one thing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import yargs from "yargs";
import { afterAll, describe, expect, it } from "vitest";
import {
  KERNELS_BY_USE,
  modelOverrides,
  OPTION_GROUPS,
  refuseRepeatedOptions,
  typed,
  withOptions,
  type OptionName,
} from "../../src/cli/options.ts";
import { BROWN_OPTIONS } from "../../src/cli/commands/brown.ts";
import { CHOICE_OPTIONS } from "../../src/cli/commands/choice.ts";
import { COMPARE_OPTIONS } from "../../src/cli/commands/compare.ts";
import { CYCLIC_OPTIONS } from "../../src/cli/commands/cyclic.ts";
import { EVALUATE_OPTIONS } from "../../src/cli/commands/evaluate.ts";
import { GRADCHECK_OPTIONS } from "../../src/cli/commands/gradcheck.ts";
import { OVERFIT_OPTIONS } from "../../src/cli/commands/overfit.ts";
import { REPORT_OPTIONS } from "../../src/cli/commands/report.ts";
import { SAMPLE_OPTIONS } from "../../src/cli/commands/sample.ts";
import { TRAIN_OPTIONS } from "../../src/cli/commands/train.ts";
import { checkMinLr } from "../../experiments/train_options.ts";
import { defaultOf, parseOptionText } from "../../experiments/option_catalogue.ts";
import type { Spec } from "../../experiments/option_checks.ts";
import { COMMANDS } from "../../src/cli/program.ts";
import { compareCommand } from "../../src/cli/commands/compare.ts";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const parse = (args: string[], defaults: Partial<Record<OptionName, unknown>>) =>
  withOptions(yargs(), defaults)
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new Error(msg);
    })
    .parseSync(args) as Record<string, unknown>;

describe("options", () => {
  it("each name is defined once across the groups", () => {
    const names = Object.values(OPTION_GROUPS).flatMap((g) => Object.keys(g));
    expect(new Set(names).size).toBe(names.length);
  });

  it("parses values to what the recipes take", () => {
    const a = parse(["--seeds", "39, 40", "--updates", "12", "--model-config", '{"tiedHead":false}', "--no-figures"], {
      seeds: "1",
      updates: 5,
      "model-config": undefined,
      figures: true,
    });
    expect(a.seeds).toEqual([39, 40]);
    expect(a.updates).toBe(12);
    expect(a["model-config"]).toEqual({ tiedHead: false });
    expect(a.figures).toBe(false);
    expect(parse([], { seeds: "39,40,41" }).seeds).toEqual([39, 40, 41]); // defaults go through the same parser
  });

  it.each<[string[], Partial<Record<OptionName, unknown>>, RegExp]>([
    [["--updates", "0"], { updates: 80 }, /^--updates must be a positive integer, got 0$/],
    [["--updates", "2.5"], { updates: 80 }, /^--updates must be a positive integer, got 2.5$/],
    [["--lr=-1"], { lr: 0.02 }, /^--lr must be a finite number > 0, got -1$/],
    [["--seeds", "39,x"], { seeds: "39" }, /^--seeds: "x" is not an integer$/],
    [["--model-config", "{"], { "model-config": undefined }, /^--model-config: not valid JSON/],
    [["--model-config", "[1]"], { "model-config": undefined }, /^--model-config must be a JSON object$/],
    [["--dropout", "1"], { dropout: undefined }, /^--dropout must be a number in \[0, 1\), got 1$/],
    [["--data"], { data: undefined }, /Not enough arguments following: data/],
    [["--steps", "3"], { updates: 80 }, /Unknown argument: steps/],
    [["--clip", "NaN"], { clip: 1 }, /^--clip must be a finite number > 0, got NaN$/],
    [["--seeds", "39,39"], { seeds: "39" }, /^--seeds: "39" is given twice/],
    [["--seeds", "9007199254740993"], { seeds: "39" }, /^--seeds: "9007199254740993" is not a safe integer/],
    [["--seed", "1e20"], { seed: 1 }, /^--seed must be a safe integer \(\|n\| ≤ 2\^53 − 1\), got 100000000000000000000$/],
    [["--checkpoints", "0,-10"], { checkpoints: "0" }, /^--checkpoints: "-10" is below 0$/],
    [["--replicates", "1e9"], { replicates: 1000 }, /^--replicates must be an integer in \[2, 100000\] .*, got 1000000000$/],
    [["--replicates", "0"], { replicates: 1000 }, /^--replicates must be an integer in \[2, 100000\]/],
    [["--replicates", "1"], { replicates: 1000 }, /^--replicates must be an integer in \[2, 100000\]/],
    [["--vocab", "1e14"], { vocab: undefined }, /^--vocab must be an integer in \[1, 1048576\], got 100000000000000$/],
    [["--context", "4097"], { context: undefined }, /^--context must be an integer in \[1, 4096\], got 4097$/],
    [["--data", ""], { data: undefined }, /^--data must be a non-empty string \(the option needs a value\), got ""$/],
    [["--split", "dev"], { split: "all" }, /^--split must be one of train, validation, test, all, got "dev"$/],
  ])("refuses %j by name", (args, defaults, expected) => {
    expect(() => parse(args, defaults)).toThrow(expected);
  });

  it.each<[string[], RegExp]>([
    [["train", "--updates", "5", "--updates", "6"], /^--updates is given twice \(--updates 5, then --updates 6\): give it once$/],
    [["train", "--updates=5", "--updates", "6"], /^--updates is given twice \(--updates=5, then --updates 6\)/],
    [["train", "--shuffle", "--no-shuffle"], /^--shuffle is given twice \(--shuffle, then --no-shuffle\)/],
    [["train", "--shuffle", "--shuffle"], /^--shuffle is given twice/],
    [["train", "--save-every", "1", "--saveEvery", "2"], /^--save-every is given twice \(--save-every 1, then --saveEvery 2\)/],
    [["sweep", "train", "--seeds", "1", "--seeds", "2"], /^--seeds is given twice/],
  ])("refuses %j as an option given twice, for any option", (args, expected) => {
    expect(() => refuseRepeatedOptions(args)).toThrow(expected);
  });

  it("counts options only up to a bare -- (what follows is another command's) and takes values that look like flags", () => {
    expect(() => refuseRepeatedOptions(["sweep", "train", "--seeds", "1", "--", "--text", "a", "--seed", "2"])).not.toThrow();
    expect(() => refuseRepeatedOptions(["train", "--updates", "5", "--lr", "0.1"])).not.toThrow();
  });

  it("refuses a cosine floor above the peak, naming both flags", () => {
    expect(() => checkMinLr(1, 0.01)).toThrow(
      /^--min-lr 1 must be ≤ --lr 0\.01 \(the floor of the cosine decay cannot be above its peak\)$/,
    );
    expect(() => checkMinLr(0.01, 0.01)).not.toThrow();
  });

  it("--model-config: a key given twice and an integer written as a float are refused, as the files the lab reads refuse them", () => {
    expect(() => parse(["--model-config", '{"nHeads":2,"nHeads":4}'], { "model-config": undefined })).toThrow(
      /^--model-config: not valid JSON: key "nHeads" is given twice \(nHeads\) at line 1, column 13$/,
    );
    expect(() => parse(["--model-config", '{"vocabSize":266.0}'], { "model-config": undefined })).toThrow(
      /^--model-config: vocabSize: must be an integer, written without a fraction or exponent \(got 266\.0\)$/,
    );
    expect(parse(["--model-config", '{"dropout":0.0,"nHeads":4}'], { "model-config": undefined })["model-config"]).toEqual({
      dropout: 0,
      nHeads: 4,
    });
  });

  it("the command line refuses a repeated option and a floor above the peak before any work, in one line", async () => {
    const twice = await tinylab(["train", "--updates", "5", "--updates", "6"]);
    expect([twice.code, twice.stderr.trim()]).toEqual([
      1,
      "tinylab: error: --updates is given twice (--updates 5, then --updates 6): give it once",
    ]);
    const floor = await tinylab(["train", "--min-lr", "1", "--lr", "0.01"]);
    expect([floor.code, floor.stderr.trim()]).toEqual([
      1,
      "tinylab: error: --min-lr 1 must be ≤ --lr 0.01 (the floor of the cosine decay cannot be above its peak)",
    ]);
  });

  it("combines the shape flags with --model-config, refusing a key given twice", () => {
    expect(modelOverrides({ layers: 2, dModel: 16, modelConfig: { tiedHead: false } })).toEqual({
      nLayers: 2,
      dModel: 16,
      tiedHead: false,
    });
    expect(() => modelOverrides({ layers: 2, modelConfig: { nLayers: 3 } })).toThrow(
      '--model-config sets "nLayers", which --layers sets; give it once, as --layers',
    );
  });

  it("--resume is a flag of the run's output directory: without one, train refuses before any work", async () => {
    const r = await tinylab(["train", "--resume"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("tinylab: error: --resume needs --out (the directory holding train_state.safetensors)");
  });

  it("quotes a value as typed: the last --flag V or --flag=V on the command line, else the value itself", () => {
    expect(typed("clip", NaN, ["train", "--clip", "abc"])).toBe("abc");
    expect(typed("vocab", 1e14, ["--vocab=1e14"])).toBe("1e14");
    expect(typed("clip", 0, ["--clip", "1", "--clip", "0x0"])).toBe("0x0");
    expect(typed("data", "", ["--data", ""])).toBe('""');
    expect(typed("clip", NaN, [])).toBe("NaN"); // JSON.stringify said null
    expect(typed("seeds", "1,1", [])).toBe('"1,1"');
  });
});

// Sizes that allocate are bounded where they are parsed, naming the limit (in process: no engine, no spawn).
describe("defaults in the catalogue", () => {
  it("each recipe's default of an option passes that option's own parser as typed on the command line", () => {
    let count = 0;
    for (const specs of Object.values(OPTION_GROUPS)) {
      for (const [name, spec] of Object.entries(specs as Record<string, Spec>)) {
        for (const [recipe, v] of Object.entries(spec.default ?? {})) {
          const typedText = Array.isArray(v) ? v.join(",") : String(v);
          expect(parseOptionText(name as OptionName, typedText), `--${name} for ${recipe}`).toEqual(v);
          expect(defaultOf(name as OptionName, recipe as never)).toEqual(v);
          count++;
        }
      }
    }
    expect(count).toBeGreaterThan(50);
  });
  it("the recipes' default objects and command tables read them: --lr's default in each recipe", () => {
    expect([OVERFIT_OPTIONS.lr, CYCLIC_OPTIONS.lr, BROWN_OPTIONS.lr, TRAIN_OPTIONS.lr]).toEqual([
      defaultOf("lr", "overfit"),
      defaultOf("lr", "cyclic"),
      defaultOf("lr", "brown"),
      { fixture: defaultOf("lr", "overfit"), text: defaultOf("lr", "brown") },
    ]);
  });
});

describe("the engine each command computes on by default", () => {
  const DATA = {
    train: TRAIN_OPTIONS,
    brown: BROWN_OPTIONS,
    evaluate: EVALUATE_OPTIONS,
    report: REPORT_OPTIONS,
    compare: COMPARE_OPTIONS,
    sample: SAMPLE_OPTIONS,
    choice: CHOICE_OPTIONS,
  };
  const TEACHING = { overfit: OVERFIT_OPTIONS, cyclic: CYCLIC_OPTIONS, gradcheck: GRADCHECK_OPTIONS };
  const kernelsOf = (table: Partial<Record<OptionName, unknown>>, env: string | undefined, args: string[] = []) => {
    const saved = process.env.TINYLAB_KERNELS;
    if (env === undefined) delete process.env.TINYLAB_KERNELS;
    else process.env.TINYLAB_KERNELS = env;
    try {
      // the demanded options (sample's --model, …) left out: only the defaults are read here
      return parse(args, Object.fromEntries(Object.entries(table).filter(([, v]) => typeof v !== "symbol"))).kernels;
    } finally {
      if (saved === undefined) delete process.env.TINYLAB_KERNELS;
      else process.env.TINYLAB_KERNELS = saved;
    }
  };
  it("the fastest exact engine (auto) on the user's data, tfjs for the teaching experiments, by one rule", () => {
    expect(KERNELS_BY_USE).toEqual({ data: "auto", teaching: "tfjs" });
    for (const [name, table] of Object.entries(DATA)) expect([name, kernelsOf(table, undefined)]).toEqual([name, "auto"]);
    for (const [name, table] of Object.entries(TEACHING)) expect([name, kernelsOf(table, undefined)]).toEqual([name, "tfjs"]);
  });
  it("TINYLAB_KERNELS, read when a command's options are built, replaces the default; an explicit --kernels wins", () => {
    expect(kernelsOf(TRAIN_OPTIONS, "tfjs")).toBe("tfjs");
    expect(kernelsOf(OVERFIT_OPTIONS, "onnxruntime")).toBe("onnxruntime");
    expect(kernelsOf(TRAIN_OPTIONS, "onnxruntime", ["--kernels", "tfjs"])).toBe("tfjs");
    expect(kernelsOf(OVERFIT_OPTIONS, "tfjs", ["--kernels", "auto"])).toBe("auto");
  });
});

describe("allocation limits", () => {
  it.each<[string, string, string]>([
    ["bins", "1000000000", "--bins must be an integer in [1, 10000] (MAX_BINS: past it a bin holds next to nothing), got 1000000000"],
    [
      "workers",
      "48",
      "--workers must be an integer in [1, 16] (MAX_WORKERS: each is an engine and a model copy; past the cores they only wait), got 48",
    ],
    ["jobs", "1000", "--jobs must be an integer in [1, 16] (MAX_WORKERS: each run is a process with its own engine), got 1000"],
  ])("--%s %s is refused", (name, value, message) => {
    expect(() => parse([`--${name}`, value], { [name]: undefined })).toThrow(message);
    expect(parse([`--${name}`, "16"], { [name]: undefined })[name]).toBe(16);
  });
});

describe("choices a command offers", () => {
  it("compare offers (and takes) only the splits it scores: no --split all in its help", () => {
    const y = (compareCommand.builder as (y: ReturnType<typeof yargs>) => ReturnType<typeof yargs>)(yargs());
    const o = (y as unknown as { getOptions(): { choices: Record<string, string[]> } }).getOptions();
    expect(o.choices.split).toEqual(["train", "validation", "test"]);
    expect(() =>
      y
        .strict()
        .exitProcess(false)
        .fail((msg, err) => {
          throw err ?? new Error(msg);
        })
        .parseSync(["x", "--split", "all"]),
    ).toThrow('--split must be one of train, validation, test, got "all"');
  });
});

// Every refusal through the command line's own code (src/cli/program.ts, run here: tests/cli/in_process.ts): one
// line, the option's name and the value as typed, exit 1, nothing written to stdout (no work started). The
// spawned tests above check that a process exits with what that code returns.
describe("refusals through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "tinylab-options-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const out = ["--out", join(dir, "out")];
  it.each<[string[], string]>([
    [["train", "--clip", "0"], "--clip must be a finite number > 0, got 0"],
    [["train", "--clip", "NaN"], "--clip must be a finite number > 0, got NaN"],
    [["train", "--clip", "abc"], "--clip must be a finite number > 0, got abc"],
    [["train", "--warmup", "-1"], "--warmup must be a non-negative integer, got -1"],
    [["train", "--warmup", "1.5"], "--warmup must be a non-negative integer, got 1.5"],
    [["train", "--cosine-steps", "-2"], "--cosine-steps must be a non-negative integer, got -2"],
    [["train", "--cosine-steps=0.5"], "--cosine-steps must be a non-negative integer, got 0.5"],
    [["train", "--updates", "0"], "--updates must be a positive integer, got 0"],
    [["overfit", "--seeds", "39,39", ...out], '--seeds: "39" is given twice (each one run; a repeat would count one run as two)'],
    [
      ["overfit", "--seeds", "9007199254740993", ...out],
      '--seeds: "9007199254740993" is not a safe integer (|n| ≤ 2^53 − 1: beyond it, distinct integers round to one double)',
    ],
    [["train", "--seed", "9007199254740993"], "--seed must be a safe integer (|n| ≤ 2^53 − 1), got 9007199254740993"],
    [
      ["overfit", "--checkpoints", "0,10,100", "--updates", "80", ...out],
      "--checkpoints: checkpoint 100 is outside [0, 80] (--updates 80)",
    ],
    [
      ["report", "--model", "x", "--replicates", "1e9"],
      "--replicates must be an integer in [2, 100000] (fewer give no interval; more add no precision and exhaust memory), got 1e9",
    ],
    [
      ["report", "--model", "x", "--replicates", "0"],
      "--replicates must be an integer in [2, 100000] (fewer give no interval; more add no precision and exhaust memory), got 0",
    ],
    [
      ["report", "--model", "x", "--replicates", "1"],
      "--replicates must be an integer in [2, 100000] (fewer give no interval; more add no precision and exhaust memory), got 1",
    ],
    [["train", "--vocab", "1e14"], "--vocab must be an integer in [1, 1048576], got 1e14"],
    [
      ["train", "--model-config", '{"vocabSize":1e14}'],
      "--model-config: vocabSize: must be an integer, written without a fraction or exponent (got 1e14)",
    ],
    [
      ["train", "--model-config", '{"vocabSize":100000000000000}'],
      "--model-config: vocabSize: must be in [1, 1048576] (got 100000000000000)",
    ],
    // C = F = 8192: per block 4C² + 2CF + 9C + F = 402,735,104; ×2 + V·C + T·C + 2C (2,260,992) = 807,731,200
    [
      ["train", "--d-model", "8192", "--d-ff", "8192", "--layers", "2"],
      "model config has 807731200 parameters, more than the limit 134217728 (2^27) (--vocab 266, --context 8, --layers 2, --d-model 8192, --d-ff 8192)",
    ],
    // a field set in --model-config is named by its key there, as typed
    [
      ["train", "--model-config", '{"dModel":8192,"dFF":8192}', "--layers", "2"],
      "model config has 807731200 parameters, more than the limit 134217728 (2^27) (--vocab 266, --context 8, --layers 2, dModel 8192, dFF 8192)",
    ],
    [["train", "--d-model", "130", "--heads", "4"], "--d-model (130) must be divisible by --heads (4)"],
    [["evaluate", "--model"], "Not enough arguments following: model"],
    [["train", "--data"], "Not enough arguments following: data"],
    [["report", "--model", "x", "--data"], "Not enough arguments following: data"],
    [["train", "--data", ""], '--data must be a non-empty string (the option needs a value), got ""'],
    [["evaluate", "--model", ""], '--model must be a non-empty string (the option needs a value), got ""'],
    [["evaluate", "--model", "x", "--split", ""], '--split must be one of train, validation, test, all, got ""'],
    [["gradcheck", "--config", "big"], '--config must be one of overfit, micro, got "big"'],
    [
      ["brown", "--microbatches", "3", ...out],
      "--microbatches 3 must divide --batch-rows 16 (an update's rows are cut into equal microbatches)",
    ],
    // renamed flags are refused by name, never taken as aliases: one name per idea
    [["train", "--checkpoint-dir", join(dir, "old")], "--checkpoint-dir is now --out: pass --out instead"],
    [["train", "--checkpoint-every=4"], "--checkpoint-every is now --save-every: pass --save-every instead"],
    [["brown", "--checkpoint-every", "4", ...out], "--checkpoint-every is now --save-every: pass --save-every instead"],
    [
      ["train", "--text", "package.json", "--microbatches", "3", "--out", join(dir, "mb")],
      "--microbatches 3 must divide --batch-rows 8 (an update's rows are cut into equal microbatches)",
    ],
  ])("tinylab %j", async (args, message) => {
    const r = await tinylabHere(args);
    expect(r.stderr).toBe(`tinylab: error: ${message}\n`);
    expect([r.code, r.stdout]).toEqual([1, ""]);
  });
});

// requiresArg for every string option of every command: `--name` with no value, or with "", is refused by name
// (never a silent fallback to a default such as the built-in fixture).
describe("string options need a value", () => {
  const commands = COMMANDS;
  const cases = commands.flatMap((c) => {
    const y = (c.builder as (y: ReturnType<typeof yargs>) => ReturnType<typeof yargs>)(yargs());
    // getOptions() is yargs' own (untyped) view of what the builder declared
    const o = (y as unknown as { getOptions(): { string: string[]; demandedOptions: Record<string, unknown> } }).getOptions();
    const required = Object.keys(o.demandedOptions).flatMap((name) => [`--${name}`, "x"]);
    // positionals (`<a> [b]` in the command) are not `--name` options
    const positionals = new Set([...String(c.command).matchAll(/[<[](\w+)[\]>]/g)].map((m) => m[1]));
    return o.string.filter((name) => !positionals.has(name)).map((name) => [c.command as string, name, required] as const);
  });
  const parse = (c: string, args: string[]) => {
    const command = commands.find((m) => m.command === c)!;
    const y = (command.builder as (y: ReturnType<typeof yargs>) => ReturnType<typeof yargs>)(yargs());
    return () =>
      y
        .strict()
        .exitProcess(false)
        .fail((msg, err) => {
          throw err ?? new Error(msg);
        })
        .parseSync(args);
  };
  it("covers the commands' string options", () => {
    expect(cases.length).toBeGreaterThan(20);
    expect(cases.some(([c, n]) => c === "evaluate" && n === "data")).toBe(true);
  });
  it.each(cases)("%s --%s", (c, name, required) => {
    const rest = required.includes(`--${name}`) ? [] : required;
    expect(parse(c, [...rest, `--${name}`])).toThrow(new RegExp(`Not enough arguments following: ${name}$`));
    expect(parse(c, [...rest, `--${name}`, ""])).toThrow(new RegExp(`--${name}|Argument: ${name}`));
  });
});
