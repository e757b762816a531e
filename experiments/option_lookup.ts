// An option named in text: the catalogue's option a mistyped name most likely means, and one option's value
// parsed from the text of a form field or a --grid axis by the same parser as on the command line.
import { findOption, OPTION_GROUPS, type OptionName, type OptionValue } from "./option_catalogue.ts";
import { oneOf } from "./option_checks.ts";

/** The option in the catalogue a mistyped name most likely means: its hyphen parts' initials (learning-rate → lr), or one edit away. */
export function nearestOption(name: string): string | undefined {
  const names = Object.values(OPTION_GROUPS).flatMap((g) => Object.keys(g));
  const initials = name.split(/[-_]/).map((p) => p[0] ?? "").join("");
  const oneEdit = (a: string, b: string) => {
    if (Math.abs(a.length - b.length) > 1) return false;
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return a.slice(i + 1) === b.slice(i + 1) || a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i);
  };
  return names.find((n) => n === initials && name.includes("-")) ?? names.find((n) => oneEdit(n, name));
}

/**
 * One option's value from the text of a form field, converted by its type and checked by the same parser as on
 * the command line (the lab's web page takes --seeds, --updates, --checkpoints and --lr this way).
 */
export function parseOptionText<N extends OptionName>(name: N, text: string): OptionValue<N> {
  const [, spec] = findOption(name);
  const t = text.trim();
  if (spec.type === "number" && (t === "" || !Number.isFinite(Number(t)))) throw new Error(`--${name} must be a number, got ${JSON.stringify(text)}`);
  if (spec.type === "boolean" && t !== "true" && t !== "false") throw new Error(`--${name} must be true or false, got ${JSON.stringify(text)}`);
  // a number goes to its parser as text, as on the command line, so "0x10" and 2^53 + 1 are refused the same way
  const v = spec.type === "boolean" ? t === "true" : t;
  const check = spec.choices ? oneOf(spec.choices, undefined) : spec.check;
  return (check ? check(v, name) : v) as OptionValue<N>;
}
