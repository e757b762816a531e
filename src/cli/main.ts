// The `tinylab` command line's entry point: runs the program (program.ts, a thin yargs layer over experiments and
// src/) on this process's arguments. Each command lives in commands/ and loads its recipe (and the engine) only
// when it runs, so `--help` never imports tfjs.
import { hideBin } from "yargs/helpers";
import { startAsSweepChild } from "../node/child_watch.ts";
import { run } from "./program.ts";

startAsSweepChild();
void run(hideBin(process.argv)).then((code) => {
  if (code !== undefined) process.exit(code);
});
