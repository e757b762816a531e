// The lab page: forms, live curves and tables over results the Web Worker (worker.ts) computes with the CLI's recipes.
// Presentation only: no training, scoring or metric here, and no engine on this thread (the page stays responsive).
import { EVALUATE_DEFAULTS, OVERFIT_DEFAULTS, type OverfitOptions } from "../experiments/options.ts";
import type { OverfitResult } from "../experiments/overfit.ts";
import type { EvaluateReport } from "../experiments/evaluate.ts";
import type { ScoringText } from "../experiments/scoring_data.ts";
import { rebuildRunSplit } from "../src/data/text_rebuild.ts";
import { strideLabel } from "../src/eval/passes/windows.ts";
import type { GradcheckReport } from "../src/model/gradcheck.ts";
import { reportHtml } from "../src/eval/render/report_page.ts";
import { escapeHtml } from "../src/util/render/html.ts";
import { toJson } from "../src/util/formats/json.ts";
import { findOption, optionKey, parseOptionText } from "../experiments/option_catalogue.ts";
import { asTyped, formValue, OVERFIT_FORM, type BrowserEngine, type EngineRequest } from "./protocol.ts";
import type { Report } from "../src/eval/report/types.ts";
import { $, cell, download, dropZone, num, table } from "./dom.ts";
import { EngineWorker } from "./worker_client.ts";
import { drawLive, showRuns, showSetup, type Live } from "./overfit_view.ts";

// ---- the worker: one per engine choice, restarted when the choice changes ----
const engineWorker = new EngineWorker();
let engine: BrowserEngine | undefined;

function engineRequest(): EngineRequest {
  const backend = $<HTMLSelectElement>("backend").value as EngineRequest["backend"];
  const n = Number(new URLSearchParams(location.search).get("nthreads"));
  return {
    backend,
    threads: $<HTMLInputElement>("threads").checked,
    ...(Number.isInteger(n) && n > 0 ? { threadsCount: n } : {}),
    wasmBase: new URL("wasm/", document.baseURI).href,
  };
}

async function startWorker(): Promise<void> {
  engine = undefined;
  setBusy(true);
  $("engine").textContent = "starting the engine…";
  engineWorker.restart((message) => showError("engine", message));
  try {
    const r = await engineWorker.call({ type: "init", engine: engineRequest() });
    if (r.type !== "ready") throw new Error(`unexpected reply ${r.type}`);
    engine = r.engine;
    const e = $("engine");
    e.dataset.backend = engine.backend;
    e.dataset.threads = String(engine.threads);
    e.textContent =
      `engine: ${engine.backend}` +
      (engine.backend === "wasm"
        ? `, ${engine.threads} thread${engine.threads === 1 ? "" : "s"}, SIMD ${engine.simd ? "on" : "off"}`
        : "") +
      `; cross-origin isolated: ${engine.cross_origin_isolated ? "yes" : "no (wasm threads need it: serve with tinylab lab)"}; tfjs ${engine.tfjs}`;
    setBusy(false);
  } catch (err) {
    showError("engine", (err as Error).message);
  }
}

function setBusy(busy: boolean) {
  for (const id of ["run-overfit", "run-gradcheck", "rescore"])
    $<HTMLButtonElement>(id).disabled = busy || (id === "rescore" && !modelFile);
  document.body.dataset.busy = String(busy);
}

function showError(where: string, message: string) {
  const el = $(`${where}-status`);
  el.textContent = `error: ${message}`;
  el.classList.add("error");
  setBusy(false);
}

// ---- 1. the overfitting experiment ----
let lastResult: OverfitResult | undefined;

function overfitOptions(): Partial<OverfitOptions> {
  return Object.fromEntries(OVERFIT_FORM.map((name) => [optionKey(name), parseOptionText(name, $<HTMLInputElement>(name).value)]));
}

async function runOverfitClicked() {
  const status = $("overfit-status");
  status.classList.remove("error");
  let options: Partial<OverfitOptions>;
  try {
    options = overfitOptions();
  } catch (err) {
    return showError("overfit", (err as Error).message);
  }
  setBusy(true);
  $("download-json").hidden = true;
  for (const id of ["probe", "layouts", "baselines", "seeds-tables", "summary", "curves", "loss-curves"]) $(id).innerHTML = "";
  const live: Live = { runs: new Map() };
  status.textContent = "running…";
  try {
    const r = await engineWorker.call({ type: "overfit", options }, (p, figure) => {
      if (p.kind === "setup") {
        live.setup = p;
        showSetup(p);
        return;
      }
      if (!live.runs.has(p.seed)) live.runs.set(p.seed, { checkpoints: [], losses: [] });
      const run = live.runs.get(p.seed)!;
      if (p.kind === "update") run.losses.push(p.loss);
      else
        run.checkpoints.push({
          update: p.update,
          train: p.train,
          validation: p.validation,
          validation_by_document: p.validation_by_document,
        });
      status.textContent = `seed ${p.seed}: update ${p.update} of ${options.updates}`;
      drawLive(live, figure);
    });
    if (r.type !== "overfit") throw new Error(`unexpected reply ${r.type}`);
    lastResult = r.result;
    showRuns(r.result);
    status.textContent = `done: ${r.result.runs.length} seeds × ${r.result.options.updates} updates in ${r.seconds.toFixed(2)} s on ${engine?.backend} (${engine?.threads} threads)`;
    status.dataset.seconds = String(r.seconds);
    status.dataset.done = "true";
    $("download-json").hidden = false;
    setBusy(false);
  } catch (err) {
    showError("overfit", (err as Error).message);
  }
}

// ---- 2. gradient check ----
async function runGradcheckClicked() {
  const status = $("gradcheck-status");
  status.classList.remove("error");
  setBusy(true);
  status.textContent = "checking every coordinate…";
  try {
    const r = await engineWorker.call({ type: "gradcheck" });
    if (r.type !== "gradcheck") throw new Error(`unexpected reply ${r.type}`);
    const g: GradcheckReport = r.report;
    const e = (x: number) => x.toExponential(2);
    $("gradcheck").innerHTML = table(
      ["tensor", "size", "max abs", "max rel", "worst coordinate (index: analytic vs numeric)", ""],
      g.tensors.map(
        (t) =>
          `<tr>${cell(t.name)}${cell(t.size)}${cell(e(t.maxAbsError))}${cell(e(t.maxRelError))}${cell(`${t.worst.index}: ${t.worst.analytic.toExponential(6)} vs ${t.worst.numeric.toExponential(6)}`)}<td data-metric="gradcheck:${t.name}">${t.passed ? "ok" : "FAIL"}</td></tr>`,
      ),
    );
    const tol = r.tolerances;
    status.textContent = `${g.passed ? "PASSED" : "FAILED"}: ${g.coordinates} coordinates, loss ${g.loss.toFixed(6)}, pass if |Δ| ≤ ${tol.atol} + ${tol.rtol}·|numeric| (eps ${tol.eps}), ${g.seconds.toFixed(2)} s on ${r.provenance.backend}`;
    status.dataset.passed = String(g.passed);
    setBusy(false);
  } catch (err) {
    showError("gradcheck", (err as Error).message);
  }
}

// ---- 3. re-score a model file ----
let modelFile: File | undefined;
let docsFile: File | undefined;
/** A run's manifest.json and its text files: the split the run trained on, rebuilt here as `evaluate --run` does. */
let manifestFile: File | undefined;
let textFiles: File[] = [];

function chooseFiles(files: FileList | File[]) {
  for (const file of files) {
    if (file.name.endsWith(".jsonl")) docsFile = file;
    else if (file.name === "manifest.json") manifestFile = file;
    else if (file.name.endsWith(".txt")) textFiles = [...textFiles.filter((f) => f.name !== file.name), file];
    else modelFile = file;
  }
  const data = manifestFile
    ? `the run's split (manifest.json over ${textFiles.map((f) => f.name).join(", ") || "no text file yet"})`
    : (docsFile?.name ?? "the overfit fixture (4 documents)");
  $("chosen").textContent = `model: ${modelFile?.name ?? "none"}; documents: ${data}`;
  setBusy(engine === undefined);
}

/** The run's split from the dropped manifest and text files: each manifest file is matched by its name. */
async function runText(): Promise<ScoringText | undefined> {
  if (!manifestFile) return undefined;
  const texts = new Map<string, string>();
  for (const f of textFiles) texts.set(f.name, await f.text());
  const read = (file: string, id: string) => {
    const name = (id.startsWith(`${file}#`) ? file : id).split(/[\\/]/).pop()!;
    const text = texts.get(name);
    if (text === undefined) throw new Error(`manifest.json names ${file}: drop ${name} too`);
    return { text, path: name };
  };
  const r = rebuildRunSplit(await manifestFile.text(), "manifest.json", read);
  return {
    source: `the run's manifest.json over ${textFiles.map((f) => f.name).join(", ")}`,
    manifestSha256: r.manifestSha256,
    docs: [...r.bySplit.train, ...r.bySplit.validation, ...r.bySplit.test],
  };
}

async function rescoreClicked() {
  const status = $("rescore-status");
  status.classList.remove("error");
  delete status.dataset.done;
  $("rescore-result").innerHTML = ""; // never leave an earlier model's sha256 and table under a new result or error
  if (!modelFile) return showError("rescore", "drop or choose a .safetensors model file first");
  setBusy(true);
  status.textContent = `re-scoring ${modelFile.name}…`;
  try {
    const strideText = $<HTMLInputElement>("stride").value.trim();
    const stride = strideText === "" ? undefined : parseOptionText("stride", strideText);
    const modelBytes = new Uint8Array(await modelFile.arrayBuffer());
    const text = await runText();
    const dataBytes = docsFile && !text ? new Uint8Array(await docsFile.arrayBuffer()) : undefined;
    const r = await engineWorker.call({
      type: "rescore",
      model: modelFile.name,
      modelBytes,
      data: text ? undefined : docsFile?.name,
      dataBytes,
      text,
      stride,
      batchRows: EVALUATE_DEFAULTS.batchRows,
    });
    if (r.type !== "rescore") throw new Error(`unexpected reply ${r.type}`);
    const rep: EvaluateReport = r.report;
    $("rescore-result").innerHTML =
      `<p>model_sha256 <code id="model-sha256">${escapeHtml(rep.model_sha256)}</code> (integrity ${escapeHtml(rep.integrity)})</p>` +
      `<p>trained: ${escapeHtml(JSON.stringify(rep.trained))}; data: ${escapeHtml(rep.data.source)} (${rep.data.documents} documents), ${rep.batch_rows} row per batch, ${rep.layout}, <span id="rescore-stride">${escapeHtml(strideLabel(rep.stride, rep.context_length))}</span></p>` +
      (rep.data.note ? `<p class="note">${escapeHtml(rep.data.note)}</p>` : "") +
      table(
        ["split", "NLL", "perplexity", "targets", "batches", "recorded graphs"],
        Object.entries(rep.splits).map(
          ([split, s]) =>
            `<tr>${cell(split)}${num(`rescore:${split}:nll`, s!.nll)}${num(`rescore:${split}:perplexity`, s!.perplexity)}${cell(s!.targets)}${cell(s!.batches)}${cell(s!.recorded_graphs)}</tr>`,
        ),
      );
    status.textContent = `scored on ${rep.provenance.backend}, no training`;
    status.dataset.done = "true";
    setBusy(false);
  } catch (err) {
    showError("rescore", (err as Error).message);
  }
}

// ---- 4. a CLI report.json, drawn by the same code as report.html ----
async function showReport(file: File) {
  const status = $("report-status");
  status.classList.remove("error");
  try {
    const r = JSON.parse(await file.text()) as Report;
    if (typeof r !== "object" || r === null || !("identities" in r) || !("perplexity" in r))
      throw new Error(`${file.name} is not a report.json from tinylab report (no "identities" or "perplexity")`);
    $<HTMLIFrameElement>("report-frame").srcdoc = reportHtml(r);
    $("report-frame").hidden = false;
    status.textContent = `${file.name}: drawn by src/eval/render/report_page.ts, as report.html is`;
  } catch (err) {
    showError("report", (err as Error).message);
  }
}

// ---- wiring ----
function init() {
  const q = new URLSearchParams(location.search);
  for (const name of OVERFIT_FORM) {
    const input = $<HTMLInputElement>(name);
    input.value = asTyped(formValue(OVERFIT_DEFAULTS, name));
    input.title = findOption(name)[1].describe;
  }
  if (q.get("backend") === "webgl") $<HTMLSelectElement>("backend").value = "webgl";
  const threads = $<HTMLInputElement>("threads");
  threads.disabled = !self.crossOriginIsolated;
  threads.checked = self.crossOriginIsolated && q.get("threads") !== "0";
  $("backend").addEventListener("change", startWorker);
  threads.addEventListener("change", startWorker);
  $("run-overfit").addEventListener("click", runOverfitClicked);
  $("download-json").addEventListener("click", () => lastResult && download("overfit.json", toJson(lastResult)));
  $("run-gradcheck").addEventListener("click", runGradcheckClicked);
  $("rescore").addEventListener("click", rescoreClicked);
  $<HTMLInputElement>("model-file").addEventListener("change", (ev) => chooseFiles((ev.target as HTMLInputElement).files!));
  dropZone("drop", chooseFiles);
  $<HTMLInputElement>("report-file").addEventListener("change", (ev) => {
    const f = (ev.target as HTMLInputElement).files?.[0];
    if (f) void showReport(f);
  });
  dropZone("report-drop", (files) => void showReport(files[0]));
  void startWorker();
}

init();
