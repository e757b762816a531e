// The git state a report card records: the checkout's commit and whether it has uncommitted changes. Node-only
// (it runs git); the card itself (src/eval/render/report_card.ts) takes the answer as a value.
import { spawnSync } from "node:child_process";
import type { CardContext } from "../eval/render/report_card.ts";

/** The checkout's commit and whether it has uncommitted changes; null when `dir` is not in a git checkout (or git is absent). */
export function gitState(dir = process.cwd()): CardContext["git"] {
  const git = (...args: string[]) => spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  const head = git("rev-parse", "HEAD");
  if (head.status !== 0) return null;
  const status = git("status", "--porcelain", "--untracked-files=no");
  return { commit: head.stdout.trim(), dirty: status.status !== 0 || status.stdout.trim() !== "" };
}
