// The option catalogue: one definition per idea, parsed and refused by name before any work starts, model-shape
// flags and --model-config combined without double definitions, and `--resume` meaning one thing.
import yargs from "yargs";
import { describe, expect, it } from "vitest";
import { modelOverrides, OPTION_GROUPS, withOptions, type OptionName } from "../../src/cli/options.ts";
import { tinylab } from "./spawn.ts";

const parse = (args: string[], defaults: Partial<Record<OptionName, unknown>>) =>
  withOptions(yargs(), defaults).strict().exitProcess(false).fail((msg, err) => { throw err ?? new Error(msg); }).parseSync(args) as Record<string, unknown>;

describe("options", () => {
  it("each name is defined once across the groups", () => {
    const names = Object.values(OPTION_GROUPS).flatMap((g) => Object.keys(g));
    expect(new Set(names).size).toBe(names.length);
  });

  it("parses values to what the recipes take", () => {
    const a = parse(["--seeds", "39, 40", "--updates", "12", "--model-config", '{"tiedHead":false}', "--no-figures"], { seeds: "1", updates: 5, "model-config": undefined, figures: true });
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
    [["--model-config", "{"], { "model-config": undefined }, /^--model-config is not valid JSON/],
    [["--model-config", "[1]"], { "model-config": undefined }, /^--model-config must be a JSON object$/],
    [["--dropout", "1"], { dropout: undefined }, /^--dropout must be a number in \[0, 1\), got 1$/],
    [["--data"], { data: undefined }, /Not enough arguments following: data/],
    [["--steps", "3"], { updates: 80 }, /Unknown argument: steps/],
  ])("refuses %j by name", (args, defaults, expected) => {
    expect(() => parse(args, defaults)).toThrow(expected);
  });

  it("combines the shape flags with --model-config, refusing a key given twice", () => {
    expect(modelOverrides({ layers: 2, "d-model": 16, "model-config": { tiedHead: false } })).toEqual({ nLayers: 2, dModel: 16, tiedHead: false });
    expect(() => modelOverrides({ layers: 2, "model-config": { nLayers: 3 } })).toThrow('--model-config sets "nLayers", which --layers sets; give it once, as --layers');
  });

  it("--resume is a flag of the run's checkpoint directory: without one, train refuses before any work", async () => {
    const r = await tinylab(["train", "--resume"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("tinylab: error: --resume needs --checkpoint-dir (the directory holding train_state.safetensors)");
  });
});
