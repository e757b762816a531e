// Undefined quantities in results, one representation everywhere: a numeric field that has no value (no samples,
// no n-gram of that order, one window, no bytes) holds null, and a sibling string field `<name>_reason` says why.
// A numeric field never holds NaN, ±Infinity or a string. Metric functions may return NaN; records never do.

/** `{ [key]: number | null }` plus `{ [key_reason]?: string }`, present exactly when the value is null. */
export type Reasoned<K extends string> = { [P in K]: number | null } & { [P in `${K}_reason`]?: string };

/** The record fields for one quantity: the number when finite, otherwise null and the reason. */
export function reasoned<K extends string>(key: K, value: number, reason: string): Reasoned<K> {
  return (Number.isFinite(value) ? { [key]: value } : { [key]: null, [`${key}_reason`]: reason }) as Reasoned<K>;
}

/** The same for a whole sub-record (e.g. an interval) that does not exist: null and a reason, or the record. */
export function reasonedRecord<K extends string, V extends object>(
  key: K,
  value: V | null,
  reason: string,
): { [P in K]: V | null } & { [P in `${K}_reason`]?: string } {
  return (value !== null ? { [key]: value } : { [key]: null, [`${key}_reason`]: reason }) as { [P in K]: V | null } & {
    [P in `${K}_reason`]?: string;
  };
}

/** The reason stored beside `key` in a record (for printing "n/a (reason)"). */
export function reasonOf(record: object, key: string): string {
  const r = (record as Record<string, unknown>)[`${key}_reason`];
  return typeof r === "string" ? r : "undefined";
}
