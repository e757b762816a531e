// Helper process for lock.test.ts, not a test: takes locks when told to, at an instant shared with the other
// racers, and says whether it got each one; it holds each until told to let go.
import { acquireLock, type Lock } from "../../src/node/lock.ts";

const held = new Map<number, Lock>();
process.on("message", (m: { trial: number; path: string; at: number } | { release: number } | "exit") => {
  if (m === "exit") process.exit(0);
  if ("release" in m) {
    held.get(m.release)?.release();
    held.delete(m.release);
    return;
  }
  while (Date.now() < m.at); // spin to the shared instant: every racer finds the stale lock at once
  try {
    held.set(m.trial, acquireLock(m.path, "race"));
    process.send!({ trial: m.trial, got: true });
  } catch (err) {
    process.send!({ trial: m.trial, got: false, error: (err as Error).message });
  }
});
process.send!("ready");
