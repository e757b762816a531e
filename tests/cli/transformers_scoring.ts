// Test helper, not a test: transformers.js's own scoring of documents whose ids are given, one document per forward,
// a float64 log-softmax of its float32 logits, summed per split. What the export's and the model directory's tests
// compare tinylab's numbers with.
import { Tensor } from "@huggingface/transformers";
import type { Document } from "../../src/data/documents.ts";

/** Mean NLL and target count per split of `docs` under a transformers.js causal LM (ids[0] context only, every later id a target). */
export async function transformersNll(model: any, docs: Document[]): Promise<Record<string, { nll: number; targets: number }>> {
  const sums: Record<string, { sum: number; targets: number }> = {};
  for (const d of docs) {
    const input = d.ids.slice(0, -1);
    const ids = new Tensor("int64", BigInt64Array.from(input.map(BigInt)), [1, input.length]);
    const { logits } = await model({
      input_ids: ids,
      attention_mask: new Tensor("int64", new BigInt64Array(input.length).fill(1n), [1, input.length]),
    });
    const z = logits.data as Float32Array,
      V = logits.dims[2];
    const s = (sums[d.split] ??= { sum: 0, targets: 0 });
    for (let j = 0; j < input.length; j++) {
      const row = z.subarray(j * V, (j + 1) * V);
      let max = -Infinity,
        e = 0;
      for (const v of row) max = Math.max(max, v);
      for (const v of row) e += Math.exp(v - max);
      s.sum += max + Math.log(e) - row[d.ids[j + 1]];
      s.targets++;
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, { nll: v.sum / v.targets, targets: v.targets }]));
}
