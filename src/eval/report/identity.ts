// Evaluator and model identities: `eval-` + 16 hex digits of sha256 over an evaluator's name, settings and
// version, so two reports are comparable field by field only when their ids agree. Not provenance (util).
import { sha256Hex } from "../../util/primitives/sha256.ts";

/** JSON with object keys sorted at every depth, so the id does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return JSON.stringify(String(value));
    if (value === undefined || typeof value === "function" || typeof value === "symbol")
      throw new Error(`canonical JSON cannot hold ${typeof value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export interface EvaluatorIdentity {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** Bump an evaluator's version whenever its definition changes, so old and new numbers get different ids. */
export function evaluatorIdentity(name: string, settings: Readonly<Record<string, unknown>>, version: number): EvaluatorIdentity {
  if (name.length === 0) throw new Error("an evaluator needs a name");
  if (!Number.isInteger(version) || version < 1) throw new Error(`evaluator version must be a positive integer, got ${version}`);
  const digest = sha256Hex(canonicalJson({ name, settings, version }));
  return { id: `eval-${digest.slice(0, 16)}`, name, version, settings };
}

/** Who was evaluated: a name, and the sha256 of the file it came from (null for an in-memory model). */
export interface ModelIdentity {
  readonly name: string;
  readonly path: string | null;
  readonly sha256: string | null;
}

export function modelIdentity(name: string, file?: { path: string; sha256: string }): ModelIdentity {
  if (file && !/^[0-9a-f]{64}$/.test(file.sha256)) throw new Error(`model sha256 must be 64 lowercase hex digits, got "${file.sha256}"`);
  return { name, path: file?.path ?? null, sha256: file?.sha256 ?? null };
}
