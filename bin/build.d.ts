// Types of bin/build.js, for the tests that import it.
export const NARROW: RegExp;
export function build(): Promise<void>;
export function buildIfStale(): Promise<boolean>;
export function buildAddon(out: string, cc?: string): void;
