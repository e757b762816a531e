// Seeded synthetic text for the data-path benchmark (bench/data_scale.sh): pseudo-English words drawn from a
// Zipf law, in paragraphs (`--mb`) or one short document per line (`--lines`). A generator, not a corpus: nothing
// it writes is committed.
//
//   npx tsx bench/make_text.ts --mb 20 --out /tmp/t20.txt       # ~20 MB, documents separated by blank lines
//   npx tsx bench/make_text.ts --lines 100000 --out /tmp/l5.txt  # 10^5 one-line documents of ~9 bytes
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { mb: { type: "string" }, lines: { type: "string" }, out: { type: "string" }, seed: { type: "string", default: "1" } },
});
if (!values.out || (values.mb === undefined) === (values.lines === undefined)) {
  console.error("usage: make_text.ts (--mb N | --lines N) --out FILE [--seed S]");
  process.exit(2);
}

// xorshift32: fast, seeded, and the same on every machine
let s = Number(values.seed) >>> 0 || 1;
const rand = () => {
  s ^= s << 13;
  s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5;
  s >>>= 0;
  return s / 2 ** 32;
};

const SYLLABLES = ["ta", "ne", "ro", "li", "ka", "mu", "se", "do", "ri", "an", "el", "or", "is", "th", "st", "qu", "ve", "po", "ga", "wi"];
const WORDS = Array.from({ length: 4000 }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join(""),
);
// Zipf(1) over the word list, by inverse CDF on a cumulative table
const cumulative: number[] = [];
WORDS.reduce((sum, _, i) => (cumulative.push(sum + 1 / (i + 1)), sum + 1 / (i + 1)), 0);
const total = cumulative[cumulative.length - 1];
const word = () => {
  const u = rand() * total;
  let lo = 0,
    hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] > u) hi = mid;
    else lo = mid + 1;
  }
  return WORDS[lo];
};
const sentence = (words: number) => Array.from({ length: words }, word).join(" ");

const out = createWriteStream(values.out);
let written = 0;
const chunks: string[] = [];
const flush = async () => {
  const text = chunks.join("");
  chunks.length = 0;
  written += Buffer.byteLength(text);
  if (!out.write(text)) await new Promise<void>((r) => out.once("drain", () => r()));
};
if (values.lines !== undefined) {
  const n = Number(values.lines);
  for (let i = 0; i < n; i++) {
    chunks.push(sentence(2 + Math.floor(rand() * 2)) + "\n");
    if (chunks.length === 10_000) await flush();
  }
} else {
  const target = Number(values.mb) * 1e6;
  while (written < target) {
    for (let p = 0; p < 100; p++)
      chunks.push(Array.from({ length: 3 + Math.floor(rand() * 6) }, () => sentence(6 + Math.floor(rand() * 10)) + ".").join(" ") + "\n\n");
    await flush();
  }
}
await flush();
out.end();
await new Promise<void>((r) => out.once("finish", () => r()));
console.error(`${values.out}: ${written} bytes`);
