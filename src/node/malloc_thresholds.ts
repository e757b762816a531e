// Node-only: keeps glibc's malloc from handing the memory of each graph run's outputs back to the system and
// faulting it in again at the next run. Not the graphs or the engine (onnxruntime.ts calls this as a thread opens
// its graph loader).
//
// Every graph run's outputs (a training run's gradients: 20 MB at the large config, 44 MB at xl) reach JS as new
// ArrayBuffers that onnxruntime-node's binding allocates and copies into; V8 frees them in bulk at its next
// collection. glibc returns freed memory at the top of its heap to the system once it passes M_TRIM_THRESHOLD
// (mallopt(3): 128 KiB at start, then twice the largest mmapped chunk freed so far, at most 64 MiB), so every
// few runs a whole run's outputs were faulted in again, at a cost docs/benchmarks.md measures.
//
// The dynamic thresholds are the only ones a process can move without mallopt or GLIBC_TUNABLES (neither reachable
// from JS): freeing an mmapped chunk of size S ≤ 32 MiB sets M_MMAP_THRESHOLD to S and M_TRIM_THRESHOLD to 2·S,
// process-wide. An ArrayBuffer of that size, allocated and dropped at once, is such a chunk (Node allocates it with
// calloc, which maps it, and nothing touches its pages); V8 frees it at its next collection, which a graph run's
// outputs bring about within a run or two. A thread that allocated and exited did the same at once, for the cost of
// starting a thread in every process.

/** glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems, less room for the chunk's header and page rounding. */
export const RAISED_THRESHOLD_BYTES = 32 * 1024 * 1024 - 64 * 1024;

let done = false;

/**
 * Once per thread, on Linux: a RAISED_THRESHOLD_BYTES buffer allocated and dropped, whose freeing at V8's next
 * collection raises glibc's thresholds. Costs no page of memory and no measurable time.
 */
export function raiseMallocThresholds(): void {
  if (done || process.platform !== "linux") return;
  done = true;
  void new ArrayBuffer(RAISED_THRESHOLD_BYTES);
}
