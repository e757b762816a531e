// Console text of `tinylab sample` (experiments/sample.ts): each continuation after its prompt, special tokens and
// control bytes made visible. Presentation only.
import { tokenizerFromJSON } from "../../data/load_tokenizer.ts";
import type { SampleResult } from "../../../experiments/sample.ts";
import { visibleIds } from "../../eval/render/visible.ts";

/** How samples were decoded, in words. */
export const decodingLabel = (d: SampleResult["decoding"]): string =>
  d.kind === "greedy"
    ? "greedy (top token, lowest id on ties)"
    : `sampled at temperature ${d.temperature}${d.top_k === null ? "" : `, top-k ${d.top_k}`}, seed ${d.seed}`;

export function formatSample(r: SampleResult): string {
  const tokenizer = tokenizerFromJSON(r.tokenizer);
  const how = decodingLabel(r.decoding);
  const lines = [
    `model ${r.model} (model_sha256 ${r.model_sha256.slice(0, 16)}…); ${how}; at most ${r.max_tokens} tokens, stopping after ⟨EOS⟩`,
    `prompt: ${visibleIds(tokenizer, r.prompt.ids)}`,
  ];
  for (const s of r.samples) {
    const mean = s.probabilities.reduce((a, p) => a + Math.log(p), 0) / s.probabilities.length;
    lines.push(
      "",
      `sample ${s.index + 1} (${s.ids.length} tokens, ${s.stopped === "stop-token" ? "stopped at ⟨EOS⟩" : "length limit"}, mean ln p ${mean.toFixed(4)}):`,
      `${visibleIds(tokenizer, r.prompt.ids)}${visibleIds(tokenizer, s.ids)}`,
    );
  }
  return lines.join("\n");
}
