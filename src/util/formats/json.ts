// Result JSON as every command (and the lab's web page) writes it: indented, a trailing newline, non-finite refused.
// Not a parser or a schema: the shapes belong to the recipes that produce them.

/**
 * JSON with a trailing newline. A non-finite number is refused (thrown, naming its path), never written as a string
 * or silently as null: a quantity without a value must reach here as null with a `<name>_reason` (src/eval/metrics/reasoned.ts).
 */
export function toJson(value: unknown): string {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "number" && !Number.isFinite(v))
      throw new Error(`toJson: ${path} is ${v}; a quantity without a value must be null with a "_reason" beside it`);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(value, "$");
  return JSON.stringify(value, null, 2) + "\n";
}
