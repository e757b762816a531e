// Node-only: keeps glibc's malloc from handing the memory of each graph run's outputs back to the system and
// faulting it in again at the next run. Not the graphs or the engine (onnxruntime.ts calls this once per process).
//
// Every graph run's outputs (a training run's gradients: 20 MB at the large config, 44 MB at xl) reach JS as new
// ArrayBuffers that onnxruntime-node's binding allocates and copies into; V8 frees them in bulk at its next
// collection. glibc returns freed memory at the top of its heap to the system once it passes M_TRIM_THRESHOLD
// (mallopt(3): 128 KiB at start, then twice the largest mmapped chunk freed so far, at most 64 MiB), so every
// few runs a whole run's outputs were faulted in again, at a cost docs/benchmarks.md measures.
//
// The dynamic thresholds are the only ones a process can move without mallopt or GLIBC_TUNABLES (neither reachable
// from JS): freeing an mmapped chunk of size S ≤ 32 MiB sets M_MMAP_THRESHOLD to S and M_TRIM_THRESHOLD to 2·S,
// process-wide. A short-lived thread allocates one such buffer and exits; its buffer is freed as the thread ends.

import { isMainThread, Worker } from "node:worker_threads";

/** glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems, less room for the chunk's header and page rounding. */
export const RAISED_THRESHOLD_BYTES = 32 * 1024 * 1024 - 64 * 1024;

let started = false;

/**
 * Once per process, from its main thread, on Linux: a thread that allocates RAISED_THRESHOLD_BYTES (which glibc
 * maps, being above the threshold), touches its first and last pages, and exits. Nothing needs to wait: the
 * returned promise (settled when that thread has ended, at once where nothing was started) is for tests.
 */
export function raiseMallocThresholds(): Promise<void> {
  if (started || !isMainThread || process.platform !== "linux") return Promise.resolve();
  started = true;
  const code = `const a = new Uint8Array(${RAISED_THRESHOLD_BYTES}); a[0] = 1; a[a.length - 1] = 1;`;
  const worker = new Worker(code, { eval: true }); // ends by itself within milliseconds: not unref'd
  // a thread that cannot start leaves the thresholds as they were
  return new Promise((done) => worker.on("exit", () => done()).on("error", () => done()));
}
