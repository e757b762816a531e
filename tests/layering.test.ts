// The layering contract: no import (type-only included) runs up the stack util < data < model < train <
// baselines < eval < lab < node < experiments < cli, and the core imports no node: module, directly or through our
// files. src/node is the Node edge: besides the CLI, the only sources that import a node: module.
// web/: the page's browser files (what index.html and its Web Worker load) import no CLI module and reach no node:
// module; the Node tools beside them (WEB_NODE_TOOLS) may use tools/ and node: modules. Tools that use the CLI (the
// lab page's screenshot) live in tools/, like any top-level script.
// No file of ours loads the whole @tensorflow/tfjs bundle, whose gradients would replace src/util/gradients.ts's.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lexScript } from "./source_lexer.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const LAYERS: Readonly<Record<string, number>> = {
  "src/util": 0,
  "src/data": 1,
  "src/model": 2,
  "src/train": 3,
  "src/baselines": 4,
  "src/eval": 5,
  "src/lab": 6,
  "src/node": 7,
  experiments: 8,
  "src/cli": 9,
  web: 10,
};
/** What the lab page's index.html loads, and the Web Worker it starts (`new Worker(new URL("./worker.ts", …))`). */
const WEB_ENTRIES = ["web/main.ts", "web/worker.ts"];
/** Node scripts in web/ (run by tsx or vite, never in the page): the build config and the page driver. */
const WEB_NODE_TOOLS = ["web/vite.config.ts", "web/drive.ts"];
/**
 * src/util's folders, all in layer util: the engine's files at its top (being turned into a value passed in), the
 * rest by concept. A new folder or a file outside these must be declared here.
 */
const UTIL_FOLDERS: Readonly<Record<string, string>> = {
  "src/util/formats": "file and wire formats: safetensors, JSON, the schema facility, CSV, TensorBoard events",
  "src/util/primitives": "seeded random streams, display rounding, SHA-256",
  "src/util/render": "SVG, charts, HTML pages, console tables, text display",
  "src/util/runtime": "progress lines, facts about processes, provenance",
};
const UTIL_ENGINE = ["backend.ts", "backend_choice.ts", "engine.ts", "gradients.ts", "microbatch.ts", "wasm_kernels.ts", "wasm_matmul.ts"];
const CORE = ["src/model", "src/train", "src/eval", "src/baselines", "src/lab", "src/data"];
/** Where a node: module may be imported (directly): the Node edge and the CLI. */
const NODE_IMPORTERS = ["src/node", "src/cli"];

/**
 * The floors of src/eval, lowest first: pure reductions, then the scoring passes that feed them, then what is built
 * from both. The report's evaluators and the pages share a floor (an evaluator renders its own section with
 * render/format.ts; the page lists the evaluators), where only the no-circle rule holds; no file sits in src/eval itself.
 */
const EVAL_FLOORS: Readonly<Record<string, number>> = { metrics: 0, passes: 1, report: 2, render: 2, compare: 2, loggers: 2 };
const evalFloorOf = (file: string): number | undefined => {
  const m = /^src\/eval\/([^/]+)\//.exec(file);
  return m ? EVAL_FLOORS[m[1]] : undefined;
};

/** One import: its specifier as written, where it resolves (repository-relative) and how it was written. */
interface Import {
  spec: string;
  target: string | null;
  kind: "static" | "type" | "side-effect" | "re-export" | "dynamic";
}

/** Module specifiers of every import form, in source order. A dynamic import of a non-literal is skipped. */
function importsOf(src: string): { spec: string; kind: Import["kind"] }[] {
  const tk = lexScript(src).tokens,
    found: { spec: string; kind: Import["kind"] }[] = [];
  const is = (k: number, v: string) => tk[k] !== undefined && tk[k].t !== "string" && tk[k].v === v;
  for (let k = 0; k < tk.length; k++) {
    if (tk[k].t !== "word" || is(k - 1, ".")) continue;
    if (tk[k].v === "import") {
      if (is(k + 1, ".")) continue; // import.meta
      if (is(k + 1, "(")) {
        if (tk[k + 2]?.t === "string" && is(k + 3, ")")) found.push({ spec: tk[k + 2].v, kind: "dynamic" });
        continue;
      }
      if (tk[k + 1]?.t === "string") {
        found.push({ spec: tk[k + 1].v, kind: "side-effect" });
        continue;
      }
      const type = is(k + 1, "type") && !is(k + 2, "from") && !is(k + 2, ",");
      for (let j = k + 1; j < tk.length && !is(j, ";"); j++) {
        if (is(j, "from") && tk[j + 1]?.t === "string") {
          found.push({ spec: tk[j + 1].v, kind: type ? "type" : "static" });
          break;
        }
      }
    } else if (tk[k].v === "export") {
      let j = k + 1;
      if (is(j, "type")) j++;
      if (is(j, "*")) j++;
      else if (is(j, "{")) {
        while (j < tk.length && !is(j, "}")) j++;
        j++;
      } else continue;
      if (is(j, "as")) j += 2;
      if (is(j, "from") && tk[j + 1]?.t === "string") found.push({ spec: tk[j + 1].v, kind: "re-export" });
    }
  }
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const isNodeBuiltin = (spec: string) => spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]);

/** Layer of a repository-relative file, or an error for a folder not in the table. */
function layerOf(file: string): number | Error {
  const key = Object.keys(LAYERS).find((k) => file.startsWith(`${k}/`));
  if (key !== undefined) return LAYERS[key];
  return new Error(`${file} is in ${dirname(file)}, which has no layer: add it to LAYERS or move it`);
}
const isCore = (file: string) => CORE.some((k) => file.startsWith(`${k}/`));

function scan(): Map<string, Import[]> {
  const graph = new Map<string, Import[]>();
  for (const file of [...tsFiles("src"), ...tsFiles("experiments"), ...tsFiles("web")]) {
    const imports = importsOf(readFileSync(join(ROOT, file), "utf8")).map(({ spec, kind }): Import => {
      if (!spec.startsWith(".")) return { spec, kind, target: null };
      const abs = resolve(ROOT, dirname(file), spec);
      if (!existsSync(abs)) throw new Error(`${file}: import "${spec}" resolves to no file`);
      return { spec, kind, target: relative(ROOT, abs) };
    });
    graph.set(file, imports);
  }
  return graph;
}

/**
 * Every import circle, one line per strongly connected set of files (Tarjan's algorithm), each written as a
 * closed path from its first file in sort order, so the failure names the files to untangle.
 */
function circles(graph: ReadonlyMap<string, readonly Import[]>): string[] {
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const found: string[][] = [];
  const next = (f: string) => (graph.get(f) ?? []).map((i) => i.target).filter((t): t is string => t !== null && graph.has(t));
  const visit = (f: string): void => {
    index.set(f, index.size);
    low.set(f, index.get(f)!);
    stack.push(f);
    onStack.add(f);
    for (const t of next(f)) {
      if (!index.has(t)) {
        visit(t);
        low.set(f, Math.min(low.get(f)!, low.get(t)!));
      } else if (onStack.has(t)) low.set(f, Math.min(low.get(f)!, index.get(t)!));
    }
    if (low.get(f) !== index.get(f)) return;
    const set: string[] = [];
    for (let t = stack.pop()!; ; t = stack.pop()!) {
      onStack.delete(t);
      set.push(t);
      if (t === f) break;
    }
    if (set.length > 1 || next(f).includes(f)) found.push(set);
  };
  for (const f of [...graph.keys()].sort()) if (!index.has(f)) visit(f);
  return found
    .map((set) => {
      // a closed path through the set: breadth-first from its first file back to itself, inside the set
      const members = new Set(set),
        start = [...set].sort()[0];
      const prev = new Map<string, string>();
      const queue = [start];
      let end: string | undefined;
      while (queue.length > 0 && end === undefined) {
        const f = queue.shift()!;
        for (const t of next(f)
          .filter((x) => members.has(x))
          .sort()) {
          if (t === start) {
            end = f;
            break;
          }
          if (!prev.has(t)) {
            prev.set(t, f);
            queue.push(t);
          }
        }
      }
      const path = [start];
      for (let f = end!; f !== start; f = prev.get(f)!) path.splice(1, 0, f);
      return `${[...path, start].join(" → ")}${
        set.length > path.length
          ? ` (and ${set.length - path.length} more files in the same circle: ${set
              .filter((x) => !path.includes(x))
              .sort()
              .join(", ")})`
          : ""
      }`;
    })
    .sort();
}

describe("the import scanner", () => {
  it("finds every import form, across lines, and ignores comments, strings, regexes and import.meta", () => {
    const src = [
      `import {\n  a,\n  b, // note\n} from "./multi.ts";`,
      `import type { T } from './type.ts'; import type from "./default-named-type.ts";`,
      `import "./side.ts"; export * from "./star.ts"; export type { U } from "./reexport.ts"; export { v as w } from "./named.ts";`,
      `const m = await import("./dynamic.ts"); const n = await import(name); const u = new URL("x", import.meta.url);`,
      `// import { gone } from "./line-comment.ts";\n/* import "./block-comment.ts"; */`,
      `const s = "import x from './in-string.ts'"; const r = /["'\\/]import/g; const t = \`\${import("./in-template.ts")} from "./not"\`;`,
      `const q = a / b / c; export const z = 1; export function f() {}`,
    ].join("\n");
    expect(importsOf(src)).toEqual([
      { spec: "./multi.ts", kind: "static" },
      { spec: "./type.ts", kind: "type" },
      { spec: "./default-named-type.ts", kind: "static" },
      { spec: "./side.ts", kind: "side-effect" },
      { spec: "./star.ts", kind: "re-export" },
      { spec: "./reexport.ts", kind: "re-export" },
      { spec: "./named.ts", kind: "re-export" },
      { spec: "./dynamic.ts", kind: "dynamic" },
      { spec: "./in-template.ts", kind: "dynamic" },
    ]);
  });
});

describe("the circle finder", () => {
  const edges = (pairs: readonly (readonly [string, string, Import["kind"]?])[]): Map<string, Import[]> => {
    const g = new Map<string, Import[]>();
    for (const [from, to, kind] of pairs) {
      if (!g.has(to)) g.set(to, []);
      g.set(from, [...(g.get(from) ?? []), { spec: `./${to}`, kind: kind ?? "static", target: to }]);
    }
    return g;
  };

  it("finds a two-file circle, type-only edges included, named from its first file in sort order", () => {
    expect(
      circles(
        edges([
          ["b.ts", "a.ts"],
          ["a.ts", "b.ts", "type"],
          ["c.ts", "a.ts"],
        ]),
      ),
    ).toEqual(["a.ts → b.ts → a.ts"]);
  });

  it("finds a file importing itself, and each separate circle once", () => {
    expect(
      circles(
        edges([
          ["s.ts", "s.ts"],
          ["x.ts", "y.ts"],
          ["y.ts", "z.ts"],
          ["z.ts", "x.ts", "dynamic"],
          ["z.ts", "s.ts"],
        ]),
      ),
    ).toEqual(["s.ts → s.ts", "x.ts → y.ts → z.ts → x.ts"]);
  });

  it("names the files of a circle that its shortest closed path leaves out", () => {
    // a ↔ b and b → c → a: one strongly connected set of three files
    expect(
      circles(
        edges([
          ["a.ts", "b.ts"],
          ["b.ts", "a.ts"],
          ["b.ts", "c.ts"],
          ["c.ts", "a.ts"],
        ]),
      ),
    ).toEqual(["a.ts → b.ts → a.ts (and 1 more files in the same circle: c.ts)"]);
  });

  it("finds none in a diamond, nor through imports of files outside the graph", () => {
    const g = edges([
      ["top.ts", "l.ts"],
      ["top.ts", "r.ts"],
      ["l.ts", "bottom.ts"],
      ["r.ts", "bottom.ts"],
    ]);
    g.get("bottom.ts")!.push({ spec: "tfjs", kind: "static", target: null }, { spec: "./gone.ts", kind: "static", target: "gone.ts" });
    expect(circles(g)).toEqual([]);
  });
});

describe("layering", () => {
  const graph = scan();

  it("the help path loads no engine: what src/cli/main.ts reaches without a dynamic import never imports tfjs", () => {
    // `tinylab --help` evaluates exactly this closure; every command loads its recipe (and tfjs) with import()
    const seen = new Set<string>();
    const stack = ["src/cli/main.ts"];
    const engine: string[] = [];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const i of graph.get(file) ?? []) {
        if (i.kind === "type" || i.kind === "dynamic") continue;
        if (i.target !== null) stack.push(i.target);
        else if (i.spec.startsWith("@tensorflow/")) engine.push(`${file} → ${i.spec}`);
      }
    }
    expect(engine).toEqual([]);
    expect([...seen]).toContain("src/cli/commands/train.ts"); // the walk did reach the commands
  });

  it("no file of ours loads the whole @tensorflow/tfjs bundle: its import puts tfjs's gradients in place of gradients.ts's", () => {
    // tfjs's registerGradient replaces: after the bundle, autograd (softmax, slice, transpose on the dropout path)
    // computes other bits in that process than in one without it, such as a pool's fresh workers or a later test
    // file sharing the fork
    const bundle = (spec: string) =>
      spec === "@tensorflow/tfjs" || spec.startsWith("@tensorflow/tfjs/") || spec.endsWith("register_all_gradients");
    const files = ["src", "experiments", "web", "tests", "bench", "tools"].flatMap(tsFiles);
    const loads = files.filter((f) => importsOf(readFileSync(join(ROOT, f), "utf8")).some((i) => bundle(i.spec)));
    expect(loads).toEqual([]);
    expect(files.length).toBeGreaterThan(graph.size); // tests/, bench/ and tools/ were read too
  });

  it("sees the whole tree", () => {
    // a scanner that silently found nothing would pass every check below
    expect(graph.size).toBeGreaterThan(60);
    expect(graph.get("src/eval/report/build.ts")?.map((i) => i.target)).toContain("src/eval/passes/windowed.ts");
    // commands load their recipes lazily: the scanner must see dynamic imports too
    expect(
      graph
        .get("src/cli/commands/overfit.ts")
        ?.filter((i) => i.kind === "dynamic")
        .map((i) => i.target),
    ).toContain("experiments/overfit.ts");
  });

  it("has no import circle in src/, experiments/ or web/ (type-only and dynamic imports included)", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("shelves every src/eval file in a named folder, and no folder imports one on a higher floor", () => {
    const files = [...graph.keys()].filter((f) => f.startsWith("src/eval/"));
    expect(files.filter((f) => evalFloorOf(f) === undefined)).toEqual([]);
    const upward = files.flatMap((f) =>
      graph
        .get(f)!
        .filter((i) => i.target?.startsWith("src/eval/") && evalFloorOf(i.target)! > evalFloorOf(f)!)
        .map((i) => `${f} (floor ${evalFloorOf(f)}) imports ${i.target} (floor ${evalFloorOf(i.target!)}) [${i.kind}]`),
    );
    expect(upward).toEqual([]);
    // the checks can fail: a flat file has no floor, and the floors are not all one
    expect(evalFloorOf("src/eval/report.ts")).toBeUndefined();
    expect(new Set(files.map(evalFloorOf)).size).toBeGreaterThan(2);
  });

  it("puts every source file in a known layer", () => {
    const errors = [...graph.keys()]
      .map(layerOf)
      .filter((l): l is Error => l instanceof Error)
      .map((e) => e.message);
    expect(errors).toEqual([]);
  });

  it("keeps src/util's files in its declared folders, every folder in layer util", () => {
    const util = tsFiles("src/util");
    const stray = util.filter(
      (f) =>
        !(
          Object.keys(UTIL_FOLDERS).includes(dirname(f)) ||
          (dirname(f) === "src/util" && UTIL_ENGINE.includes(f.slice("src/util/".length)))
        ),
    );
    expect(stray).toEqual([]);
    for (const folder of Object.keys(UTIL_FOLDERS)) {
      expect(
        util.some((f) => dirname(f) === folder),
        `${folder} holds files`,
      ).toBe(true);
      expect(layerOf(`${folder}/x.ts`)).toBe(LAYERS["src/util"]);
    }
  });

  it("has no import running up the layers (type-only and dynamic imports included)", () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      for (const imp of imports) {
        if (imp.target === null || !/^(src|experiments)\//.test(imp.target) || typeof from !== "number") continue;
        const to = layerOf(imp.target);
        if (to instanceof Error) upward.push(`${file} imports ${imp.target}: ${to.message}`);
        else if (to > from) upward.push(`${file} (layer ${from}) imports ${imp.target} (layer ${to}) [${imp.kind} "${imp.spec}"]`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("has no node: import (or bare node builtin) in a core file", () => {
    const direct = [...graph]
      .filter(([file]) => isCore(file))
      .flatMap(([file, imports]) => imports.filter((i) => isNodeBuiltin(i.spec)).map((i) => `${file} imports ${i.spec} [${i.kind}]`));
    expect(direct).toEqual([]);
  });

  it("imports node: modules only in the Node edge (src/node) and the CLI, among src/ and experiments/", () => {
    const outside = [...graph]
      .filter(
        ([file]) => (file.startsWith("src/") || file.startsWith("experiments/")) && !NODE_IMPORTERS.some((k) => file.startsWith(`${k}/`)),
      )
      .flatMap(([file, imports]) => imports.filter((i) => isNodeBuiltin(i.spec)).map((i) => `${file} imports ${i.spec}`));
    expect(outside).toEqual([]);
    // the check can fail: the edge itself does import them
    expect([...graph].some(([file, imports]) => file.startsWith("src/node/") && imports.some((i) => isNodeBuiltin(i.spec)))).toBe(true);
  });

  /** Shortest chain from `start` to a file importing a node builtin (breadth-first), `start`'s own imports included. */
  const chainFrom = (start: string): string[] | null => {
    const prev = new Map<string, string | null>([[start, null]]);
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift()!;
      const imports = graph.get(file) ?? [];
      const builtin = imports.find((i) => isNodeBuiltin(i.spec));
      if (builtin) {
        const chain = [builtin.spec];
        for (let f: string | null = file; f !== null; f = prev.get(f) ?? null) chain.unshift(f);
        return chain;
      }
      for (const i of imports)
        if (i.target && graph.has(i.target) && !prev.has(i.target)) {
          prev.set(i.target, file);
          queue.push(i.target);
        }
    }
    return null;
  };

  it("has no core file reaching a node: import through our own sources", () => {
    const reached = [...graph.keys()]
      .filter(isCore)
      .map(chainFrom)
      .filter((c) => c !== null)
      .map((c) => c.join(" → "));
    expect(reached).toEqual([]);
  });

  /** Every file of ours `start` reaches through static, type-only, re-export and dynamic imports (those `follows` keeps), `start` included. */
  const closure = (start: string, follows: (i: Import) => boolean = () => true): Set<string> => {
    const seen = new Set<string>(),
      stack = [start];
    while (stack.length > 0) {
      const f = stack.pop()!;
      if (seen.has(f) || !graph.has(f)) continue;
      seen.add(f);
      for (const i of graph.get(f)!) if (i.target !== null && follows(i)) stack.push(i.target);
    }
    return seen;
  };

  it("sorts every web/ file into the page (reached from its entries) or a listed Node tool", () => {
    const page = new Set(WEB_ENTRIES.flatMap((e) => [...closure(e)]));
    const web = [...graph.keys()].filter((f) => f.startsWith("web/"));
    expect(web).toEqual(expect.arrayContaining([...WEB_ENTRIES, ...WEB_NODE_TOOLS]));
    expect(web.filter((f) => !page.has(f) && !WEB_NODE_TOOLS.includes(f))).toEqual([]);
    expect(WEB_NODE_TOOLS.filter((f) => page.has(f))).toEqual([]);
  });

  it("the lab page's browser files import no CLI module and reach no node: import", () => {
    const page = [...new Set(WEB_ENTRIES.flatMap((e) => [...closure(e)]))];
    expect(page).toEqual(expect.arrayContaining(["web/protocol.ts", "experiments/overfit.ts", "src/eval/render/report_page.ts"]));
    const cli = page.flatMap((f) =>
      graph
        .get(f)!
        .filter((i) => i.target !== null && /^(src\/cli|tools|bench)\//.test(i.target))
        .map((i) => `${f} imports ${i.target} [${i.kind}]`),
    );
    expect(cli).toEqual([]);
    expect(
      page
        .filter((f) => f.startsWith("web/"))
        .map(chainFrom)
        .filter((c) => c !== null)
        .map((c) => c.join(" → ")),
    ).toEqual([]);
    // the checks can fail: the Node tools beside the page do import tools/ and node: modules
    expect(graph.get("web/drive.ts")!.map((i) => i.target)).toContain("tools/chromium.ts");
    expect(chainFrom("web/vite.config.ts")).not.toBeNull();
  });

  it("the lab page's main thread loads no engine: web/main.ts (the report viewer's renderers included) never reaches tfjs statically", () => {
    // what loading the file evaluates: static, side-effect and re-export edges (type-only and dynamic ones load nothing then)
    const loaded = (start: string) => closure(start, (i) => i.kind !== "type" && i.kind !== "dynamic");
    const reach = (start: string) =>
      [...loaded(start)].flatMap((f) =>
        graph
          .get(f)!
          .filter((i) => i.kind !== "type" && i.kind !== "dynamic" && i.spec.startsWith("@tensorflow/"))
          .map((i) => `${f} → ${i.spec}`),
      );
    expect(loaded("web/main.ts")).toContain("src/eval/report/evaluators.ts");
    expect(reach("web/main.ts")).toEqual([]);
    // the check can fail: the worker's side does load the engine
    expect(reach("web/worker.ts")).not.toEqual([]);
  });

  it("the recipes the lab page runs in a Web Worker reach no node: import (threads come in as a PoolOpener)", () => {
    const page = ["experiments/overfit.ts", "experiments/gradcheck.ts", "experiments/evaluate.ts"];
    for (const f of page) expect(graph.has(f)).toBe(true);
    expect(
      page
        .map(chainFrom)
        .filter((c) => c !== null)
        .map((c) => c.join(" → ")),
    ).toEqual([]);
    // the check can fail: the Node side of the same recipes does reach node: modules
    expect(chainFrom("experiments/evaluate_file.ts")).not.toBeNull();
  });
});
