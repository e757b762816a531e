// Ctrl-C during training: the first SIGINT asks the run to stop after the update in progress (its state is then
// saved whole); a second one ends the process at once, through process.exit so its locks are released (every
// write is synchronous and atomic, so the files are at a consistent point). Not used outside long commands.

export interface Interrupt {
  /** Whether SIGINT has arrived. */
  requested(): boolean;
  /** Stop listening (the default SIGINT behaviour returns). */
  dispose(): void;
}

export function onInterrupt(notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Interrupt {
  let requested = false;
  const now = () => process.exit(INTERRUPTED_EXIT_CODE); // runs the exit hooks (src/node/lock.ts), unlike a signal death
  const handler = () => {
    requested = true;
    process.removeListener("SIGINT", handler);
    process.on("SIGINT", now);
    notice("tinylab: interrupt: stopping after the current update (Ctrl-C again to quit at once)");
  };
  process.on("SIGINT", handler);
  return {
    requested: () => requested,
    dispose: () => {
      process.removeListener("SIGINT", handler);
      process.removeListener("SIGINT", now);
    },
  };
}

/** The process exit code after an interrupt, as shells report a SIGINT death. */
export const INTERRUPTED_EXIT_CODE = 130;

/** Say in one line where an interrupted run stopped and where its state went, and set the exit code. */
export function reportInterrupted(at: number, state: string | undefined): void {
  console.error(
    `tinylab: interrupted at update ${at}; ${state ? `training state saved → ${state} (continue with --resume)` : "nothing saved (no --out)"}`,
  );
  process.exitCode = INTERRUPTED_EXIT_CODE;
}
