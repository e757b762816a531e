// Split files from disk: the generic JSON split file and the cyclic task's, each read within the file limit and
// checked by src/data's rules, naming the path in every error. Not the rules themselves (src/data/split_file.ts).
import { SPLITS } from "../data/documents.ts";
import { CYCLIC_VOCAB, isCyclicRow, ROW_LENGTH } from "../data/cyclic.ts";
import { checkSplitRows, type SplitFileRules, type SplitRows } from "../data/split_file.ts";
import { readFileText } from "./disk.ts";
import { FILE_LIMIT } from "./files.ts";

/** Read and validate a split file, naming the path in every error. */
export function readSplitFile(path: string, rules: SplitFileRules): SplitRows {
  const text = readFileText(path, "split file", FILE_LIMIT);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`split file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  return checkSplitRows(value, rules, `split file ${path}`);
}

/** A split file of cyclic rows: the generic checks (9 ids in [0, 5), no row twice) plus the row's form. */
export function readCyclicSplitFile(path: string): SplitRows {
  const rows = readSplitFile(path, { vocabSize: CYCLIC_VOCAB, rowLength: ROW_LENGTH, uniqueWithinSplit: true });
  for (const split of SPLITS) {
    rows[split].forEach((row, r) => {
      if (!isCyclicRow(row))
        throw new Error(
          `split file ${path}: ${split} row ${r} [${row.join(",")}] is not a cyclic row c0 c1 c2 c3 c0 c1 c2 c3 c0 with four distinct symbols`,
        );
    });
  }
  if (rows.validation.length === 0) throw new Error(`split file ${path}: the "validation" split is empty`);
  return rows;
}
