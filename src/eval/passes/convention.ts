// Which ids surround a document's text when it is scored, and so which tokens are targets: the one named value every
// scorer of an external model (and every writer of lm-evaluation-harness-style results) uses. Pure. Not a tokenizer.
//
//   rolling  lm-evaluation-harness's loglikelihood_rolling: [prefix, ...text]; prefix = BOS, or EOS where the
//            model has no BOS; the text's tokens are the targets, no EOS is appended. What published perplexities
//            of Hugging Face models mean.
//   tinylab  tinylab's own documents (src/data/documents.ts): [BOS, ...text, EOS]; the EOS is a target too.
// On "the cat sat" in GPT-2's tokenizer (3 tokens): rolling scores 3 targets, tinylab 4; docs/any-model.md.

export const CONVENTIONS = ["rolling", "tinylab"] as const;
export type Convention = (typeof CONVENTIONS)[number];

/** The special ids a convention may need; a model may lack either (GPT-2's BOS and EOS are one token). */
export interface SpecialIds {
  readonly bos?: number;
  readonly eos?: number;
}

/** The ids one document is scored as: ids[0] is context only, every later id is a target. Refused, by name, when an id it needs is missing. */
export function conventionIds(convention: Convention, special: SpecialIds, text: readonly number[]): number[] {
  if (convention === "rolling") {
    const prefix = special.bos ?? special.eos;
    if (prefix === undefined)
      throw new Error("--convention rolling needs a BOS or an EOS token as the prefix, and the model declares neither");
    return [prefix, ...text];
  }
  if (special.bos === undefined || special.eos === undefined)
    throw new Error(
      `--convention tinylab needs a BOS and an EOS token, and the model declares no ${special.bos === undefined ? "BOS" : "EOS"}`,
    );
  return [special.bos, ...text, special.eos];
}

/** The convention as a result records it: its name, its line, and the special ids it used. */
export interface ConventionRecord {
  name: Convention;
  label: string;
  bos: number | null;
  eos: number | null;
}

export const conventionRecord = (convention: Convention, special: SpecialIds): ConventionRecord => ({
  name: convention,
  label: conventionLabel(convention, special),
  bos: special.bos ?? null,
  eos: special.eos ?? null,
});

/** One line saying what was scored, printed with every result and recorded in its JSON. */
export function conventionLabel(convention: Convention, special: SpecialIds): string {
  if (convention === "rolling") {
    const prefix = special.bos !== undefined ? `BOS ${special.bos}` : `EOS ${special.eos}, the model has no BOS`;
    return `rolling (lm-evaluation-harness loglikelihood_rolling): prefix ${prefix}, the text's tokens are the targets, no EOS appended`;
  }
  return `tinylab: BOS ${special.bos} + text + EOS ${special.eos}, the EOS scored`;
}
