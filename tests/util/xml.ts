// Test helper (not a test): a small well-formedness checker for the SVG that charts and figures produce.
import { expect } from "vitest";

/** A small XML checker: every tag well formed and balanced, one root, no bare `&` or `<` in text or attributes. */
export function assertWellFormed(xml: string): void {
  const src = xml.trim();
  const stack: string[] = [];
  let roots = 0;
  const bareAmp = /&(?!(amp|lt|gt|quot|apos|#\d+);)/;
  for (const [tok] of src.matchAll(/<[^>]*>|[^<]+/g)) {
    if (!tok.startsWith("<")) {
      if (bareAmp.test(tok)) throw new Error(`bare & in text: ${tok}`);
      if (stack.length === 0 && tok.trim() !== "") throw new Error(`text outside root: ${tok}`);
      continue;
    }
    const m = /^<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>$/.exec(tok);
    if (!m) throw new Error(`malformed tag: ${tok}`);
    const [, closing, name, attrs, selfClosing] = m;
    if (bareAmp.test(attrs)) throw new Error(`bare & in attribute: ${tok}`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
      if (stack.length === 0) roots++;
    } else if (selfClosing) {
      if (stack.length === 0) roots++;
    } else stack.push(name);
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
  expect(src.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
}
