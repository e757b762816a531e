// The lab page's DOM helpers: elements by id, table cells (numbers at 6 decimals with the exact double kept),
// a download, a drop zone. No state.
import { escapeHtml } from "../src/util/render/html.ts";
import { round6 } from "../src/util/primitives/round.ts";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
export const f6 = (x: number) => round6(x).toFixed(6);
/** A shown number: 6 decimals on the page, the full double in data-exact (the browser test compares both). */
export const num = (metric: string, x: number) => `<td class="n" data-metric="${escapeHtml(metric)}" data-exact="${x}">${f6(x)}</td>`;
export const cell = (s: string | number) => `<td>${escapeHtml(String(s))}</td>`;
export const table = (head: string[], rows: string[]) =>
  `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;

export function download(name: string, text: string) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function dropZone(id: string, onFiles: (files: FileList) => void) {
  const zone = $(id);
  zone.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    if (ev.dataTransfer?.files.length) onFiles(ev.dataTransfer.files);
  });
}
