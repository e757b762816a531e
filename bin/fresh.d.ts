// Types of bin/fresh.js, for the tests that import it.
export const ROOT: string;
export const DIST: string;
export interface Stamp {
  hash: string;
  files: string[];
  dirs: string[];
  times: Record<string, [number, number]>;
}
export function inputs(root?: string): { files: string[]; dirs: string[] };
export function contentHash(files: string[], root?: string): string;
export function times(paths: string[], root?: string): Record<string, [number, number]>;
export function stampOf(root?: string): Stamp;
export function isFresh(root?: string): boolean;
