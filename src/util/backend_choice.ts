// The names of the tfjs backends a user can ask for, and their parser, apart from backend.ts so that option
// parsing and `--help` do not load the engine. Not the backend itself (backend.ts initialises it).

export type BackendChoice = "auto" | "tensorflow" | "wasm" | "cpu";
export const BACKEND_CHOICES: readonly BackendChoice[] = ["auto", "tensorflow", "wasm", "cpu"];

/** Parse a backend name from a flag or TINYLAB_BACKEND, refusing unknown names. */
export function parseBackendChoice(value: string | undefined): BackendChoice {
  const v = (value ?? "auto").trim().toLowerCase();
  if ((BACKEND_CHOICES as readonly string[]).includes(v)) return v as BackendChoice;
  throw new Error(`unknown backend "${value}": choose one of ${BACKEND_CHOICES.join(", ")}`);
}
