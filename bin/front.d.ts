// Types of bin/front.js, for the tests that import it.
import type { Script } from "node:vm";
export const FRONT: string;
export function cacheName(front: string): string;
export function compileFront(dist: string): { script: Script; cache: string; run(): void } | undefined;
export function runFront(dist: string): boolean;
