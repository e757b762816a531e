// Contracts of the HTML report helpers: escaping everywhere text enters, a self-contained page.
import { describe, expect, it } from "vitest";
import { escapeHtml, flatEntries, htmlPage, htmlTable, keyValueTable } from "../../../src/util/render/html.ts";

describe("escapeHtml", () => {
  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  });
});

describe("htmlTable", () => {
  it("escapes headers and cells, marks numbers and shows missing values", () => {
    const t = htmlTable(
      ["source <id>", "nll"],
      [
        ["a & b", 3.5],
        ["c", null],
      ],
    );
    expect(t).toContain("<th>source &lt;id&gt;</th>");
    expect(t).toContain("<td>a &amp; b</td>");
    expect(t).toContain('<td class="num">3.5</td>');
    expect(t).toContain('<td class="na">—</td>');
    expect(t.match(/<tr>/g)?.length).toBe(3);
  });

  it("bolds a formatted number (right) or a text cell (left), escaped either way", () => {
    const t = htmlTable(
      ["who", "nll"],
      [
        [
          { text: "<model>", bold: true },
          { num: "0.1566 [0.15, 0.16]", bold: true },
        ],
        [{ text: "uniform" }, { num: "5.5835" }],
      ],
      "headline",
    );
    expect(t.startsWith('<table id="headline">')).toBe(true);
    expect(t).toContain("<td><strong>&lt;model&gt;</strong></td>");
    expect(t).toContain('<td class="num"><strong>0.1566 [0.15, 0.16]</strong></td>');
    expect(t).toContain('<td class="num">5.5835</td>');
  });
});

describe("keyValueTable and flatEntries", () => {
  it("turn nested settings into readable rows instead of a JSON dump", () => {
    const rows = flatEntries({ backend: "wasm", canary: { text: "the cat", recovered: false, ids: [1, 2] }, none: null });
    expect(rows).toEqual([
      ["backend", "wasm"],
      ["canary.text", "the cat"],
      ["canary.recovered", "false"],
      ["canary.ids", "1, 2"],
      ["none", "null"],
    ]);
    const t = keyValueTable(rows);
    expect(t).not.toContain("<thead>");
    expect(t).toContain("<tr><td>canary.text</td><td>the cat</td></tr>");
  });
});

describe("htmlPage", () => {
  it("is one self-contained document: escaped title, raw section bodies, no external assets", () => {
    const page = htmlPage({ title: "Run <1> & co", sections: [{ heading: "Loss & more", html: "<svg><rect/></svg>" }] });
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page).toContain("<title>Run &lt;1&gt; &amp; co</title>");
    expect(page).toContain("<h2>Loss &amp; more</h2>");
    expect(page).toContain("<svg><rect/></svg>");
    expect(page).toContain("<style>");
    expect(page).not.toMatch(/\b(src|href)=|@import|url\(/);
    expect(page.trimEnd().endsWith("</html>")).toBe(true);
  });
});
