// The lab page's side of its Web Worker (worker.ts): one worker at a time, requests numbered and answered by id,
// progress replies passed on until the final one. Restarting fails every call still waiting.
import type { OverfitProgress } from "../experiments/overfit.ts";
import type { Reply, Request } from "./protocol.ts";

/** A request without its id (distributed over the union, which a plain Omit would collapse). */
export type Ask = Request extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

export class EngineWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { onReply: (r: Reply) => void }>();

  /** Stop the worker (each waiting call fails: "the engine was restarted") and start a new one. */
  restart(onError: (message: string) => void): void {
    this.worker?.terminate();
    for (const p of this.pending.values()) p.onReply({ id: 0, type: "error", message: "the engine was restarted" });
    this.pending.clear();
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (ev: MessageEvent<Reply>) => this.pending.get(ev.data.id)?.onReply(ev.data);
    worker.onerror = (ev) => onError(ev.message || "the worker failed to load");
    this.worker = worker;
  }

  /** Send `req`; progress replies go to `onProgress`, the last reply resolves (an error reply rejects). */
  call(req: Ask, onProgress?: (p: OverfitProgress, figure?: string) => void): Promise<Reply> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error("the engine has not been started"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        onReply: (r) => {
          if (r.type === "progress") return onProgress?.(r.progress, r.figure);
          this.pending.delete(id);
          if (r.type === "error") reject(new Error(r.message));
          else resolve(r);
        },
      });
      worker.postMessage({ ...req, id } as Request);
    });
  }
}
