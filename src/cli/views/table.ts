// The console table helpers, kept under this name for the views; they live in src/util/render/table.ts so that the
// report's console renderers (src/eval) can draw tables without importing the CLI.
export { count, formatTable, type Align } from "../../util/render/table.ts";
