// The report's settings where its caller leaves them out, written once: buildReport and its evaluators apply them,
// and `tinylab report`'s options show and pass the same values (experiments/options.ts REPORT_DEFAULTS). Loads nothing.
import type { BinScheme } from "../metrics/calibration.ts";

export const REPORT_SETTING_DEFAULTS: {
  /** Seed of the sampling and bootstrap streams. */
  readonly seed: number;
  readonly rowsPerBatch: number;
  /** Calibration bins and their scheme. */
  readonly bins: number;
  readonly scheme: BinScheme;
  /** Block-bootstrap replicates of the intervals. */
  readonly replicates: number;
  /** Tokens at the canary's end probed as its secret, given the rest. */
  readonly secretTokens: number;
} = { seed: 0, rowsPerBatch: 16, bins: 10, scheme: "equal-width", replicates: 1000, secretTokens: 2 };
