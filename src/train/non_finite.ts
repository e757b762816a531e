// The error of an update refused for a non-finite loss, gradient or new value: its own file because both the
// trainer (loss, gradients) and AdamW (moments, weights) raise it, and neither imports the other.

/** Raised when a loss or gradient is not finite; nothing has been updated. */
export class NonFiniteError extends Error {
  constructor(
    readonly step: number,
    readonly what: string,
  ) {
    super(`non-finite ${what} at update ${step}; no parameter was updated`);
  }
}
