#!/usr/bin/env node
// Entry point of `npx tinylab`: registers tsx's loader, then runs the TypeScript CLI unchanged.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
