// Facts about other processes on this machine. Not process management: nothing here starts or stops one.

/** Whether a process with this pid exists (signal 0 checks existence only; EPERM means it exists, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
