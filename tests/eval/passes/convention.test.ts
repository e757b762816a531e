// The BOS/EOS convention of an external model (src/eval/passes/convention.ts): which ids surround a text and so how many
// targets it has, worked out by hand; each id a convention needs and the model lacks is refused by name.
import { describe, expect, it } from "vitest";
import { conventionIds, conventionLabel } from "../../../src/eval/passes/convention.ts";

describe("conventionIds", () => {
  // GPT-2's "the cat sat" is 1169 3797 3332; its BOS and EOS are one token, 50256
  const text = [1169, 3797, 3332];
  it("rolling: the BOS as prefix, the text's tokens as the targets, no EOS (3 targets)", () => {
    expect(conventionIds("rolling", { bos: 50256, eos: 50256 }, text)).toEqual([50256, 1169, 3797, 3332]);
  });
  it("rolling: the EOS as prefix where the model has no BOS, as lm-evaluation-harness does", () => {
    expect(conventionIds("rolling", { eos: 7 }, text)).toEqual([7, ...text]);
    expect(conventionLabel("rolling", { eos: 7 })).toContain("prefix EOS 7, the model has no BOS");
  });
  it("tinylab: BOS + text + EOS, the EOS a target (4 targets)", () => {
    expect(conventionIds("tinylab", { bos: 0, eos: 1 }, text)).toEqual([0, ...text, 1]);
  });
  it("refuses, naming the option, a convention whose ids the model does not declare", () => {
    expect(() => conventionIds("rolling", {}, text)).toThrow(
      "--convention rolling needs a BOS or an EOS token as the prefix, and the model declares neither",
    );
    expect(() => conventionIds("tinylab", { bos: 0 }, text)).toThrow(
      "--convention tinylab needs a BOS and an EOS token, and the model declares no EOS",
    );
  });
});
