// Progress reporting for long jobs: one redrawn line on a terminal, throttled plain lines in logs.
// Not a logger: it writes only progress lines to the stream it is given, and never touches stdout itself.

/** The part of a Node stream this needs; tests pass a fake. */
export interface ProgressStream {
  write(s: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
  /** A phase's quiet time on this stream (`phase`; default QUIET_MS): 0 for a caller, such as a test, that wants every phase's lines. */
  readonly quietMs?: number;
  /**
   * The stream's silence shared by its phases (quietClock): a phase's quiet time then counts from the stream's last
   * progress line, or from the first phase since it, instead of from its own start, so a run of short phases and
   * the work between them cannot add up to a long silence. Without it each phase keeps its own quiet time.
   */
  readonly clock?: QuietClock;
}

/** When the stream's present silence began (a progress line, or the first phase after one): one command's. */
export interface QuietClock {
  since?: number;
}

/** `out` with a quiet clock of its own: one per command, so its phases share one silence and no other command's. */
export function quietClock(out: ProgressStream): ProgressStream {
  return {
    write: (s) => out.write(s),
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
    get quietMs() {
      return out.quietMs;
    },
    clock: {},
  };
}

export interface ProgressOptions {
  readonly total: number;
  readonly label?: string;
  /** What is counted, shown in the rate ("<rate> updates/s"); default "items". */
  readonly unit?: string;
  readonly stream?: ProgressStream;
  /**
   * Seconds a log (a stream that is not a terminal) may go without a line while items keep coming (default 5): after
   * the first line, a line is printed at the tick after which the next item, at the pace of the last one, would end later than that.
   * So lines come a few seconds apart, never flooding a log, and the gaps between them stay under `every` whenever
   * one item takes less.
   */
  readonly every?: number;
  /** Milliseconds clock; injectable so tests control time. */
  readonly now?: () => number;
  /**
   * Milliseconds of silence before the first line (default 0): a phase that ends sooner prints nothing, not even its
   * final line, so a short run's output stays what it was while a long phase still speaks soon after it starts.
   */
  readonly quietMs?: number;
}

export type Fields = Readonly<Record<string, string | number>>;

export interface Progress {
  /** Adds `n` finished items (default 1) and maybe prints, with the latest custom fields. */
  tick(n?: number, fields?: Fields): void;
  /** Prints the final line with elapsed time (unless a quiet phase printed nothing); later calls do nothing. */
  done(fields?: Fields): void;
  /** Before another line goes to the same terminal: erases the redrawn line, which the next tick draws again. */
  clear(): void;
}

/** How long a phase may run before it shows progress: short enough that a long phase speaks soon after it starts, long enough that a short one stays silent. */
export const QUIET_MS = 1500;

/** A terminal redraw more often than this is flicker nobody can read. */
const TTY_INTERVAL_MS = 100;

/** Seconds as m:ss or h:mm:ss. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (v: number) => String(v).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/** Short field values: integers as they are, others to about four significant digits. */
export function formatField(v: string | number): string {
  if (typeof v === "string") return v;
  if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 1e-3) return v.toPrecision(4);
  return v.toExponential(2);
}

/**
 * Everything one line shows, computed from counts and times alone. The rate (and so the ETA) is measured from
 * `since`, the first finished item, when given: the first item carries one-off start-up (kernel compilation,
 * warm-up), and an ETA that includes it starts far too long. Before a second item there is no ETA ("?").
 */
export function progressLine(state: {
  label?: string;
  unit?: string;
  done: number;
  total: number;
  elapsedMs: number;
  fields?: Fields;
  final?: boolean;
  since?: { done: number; elapsedMs: number };
}): string {
  const { done, total, elapsedMs } = state;
  const secs = elapsedMs / 1000;
  const from = state.since && !state.final ? state.since : { done: 0, elapsedMs: 0 };
  const span = (elapsedMs - from.elapsedMs) / 1000;
  const rate = span > 0 && done > from.done ? (done - from.done) / span : NaN;
  const known = Number.isFinite(total) && total > 0;
  const unit = state.unit ?? "items";
  const parts = [
    state.label ?? "",
    known ? `${done}/${total} ${unit}` : `${done} ${unit}`,
    known ? `${((100 * done) / total).toFixed(1)}%` : "",
    Number.isFinite(rate) ? `${formatField(rate)} ${unit}/s` : `? ${unit}/s`,
    state.final ? `elapsed ${formatDuration(secs)}` : known ? `ETA ${formatDuration(rate > 0 ? (total - done) / rate : NaN)}` : "",
    ...Object.entries(state.fields ?? {}).map(([k, v]) => `${k}=${formatField(v)}`),
  ];
  return parts.filter((p) => p !== "").join("  ");
}

export function createProgress(opts: ProgressOptions): Progress {
  // stderr in Node; in a browser (no process global) nothing is printed unless a stream is given
  const stream: ProgressStream = opts.stream ?? (typeof process === "undefined" ? { write: () => true } : process.stderr);
  const now = opts.now ?? (() => performance.now());
  const tty = stream.isTTY === true;
  const interval = tty ? TTY_INTERVAL_MS : (opts.every ?? 5) * 1000;
  const start = now();
  let done = 0;
  // the stream's silence began at its last line, or at the first phase since (this one, when no other came first)
  const clock = stream.clock;
  if (clock) clock.since ??= start;
  const quietFrom = clock?.since ?? start;
  // the first line may come once the quiet time is over
  let lastPrint = opts.quietMs ? quietFrom + opts.quietMs - interval : -Infinity;
  let lastTick = start;
  let printed = false;
  let drawn = false; // a terminal line is on screen, not yet ended by a newline
  let fields: Fields = {};
  let finished = false;
  let since: { done: number; elapsedMs: number } | undefined; // the first tick: rates are measured from it

  const line = (final: boolean) => {
    const s = progressLine({ label: opts.label, unit: opts.unit, done, total: opts.total, elapsedMs: now() - start, fields, final, since });
    // Cut to the terminal width: a wrapped line cannot be redrawn in place with \r.
    return tty && stream.columns ? s.slice(0, stream.columns - 1) : s;
  };
  // \x1b[K clears what a longer previous line left behind.
  const emit = (final: boolean) => {
    printed = true;
    if (clock) clock.since = now();
    drawn = tty && !final;
    stream.write(tty ? `\r${line(final)}\x1b[K${final ? "\n" : ""}` : `${line(final)}\n`);
  };

  return {
    tick(n = 1, f?: Fields) {
      if (finished) return;
      done += n;
      if (f) fields = f;
      const t = now();
      since ??= { done, elapsedMs: t - start };
      // in a log, once a line is out, due when the next item, as long as this one, would end past the interval; a
      // terminal is redrawn at most every TTY_INTERVAL_MS; the quiet time is kept whole (a phase ending in it prints nothing)
      const item = tty || !printed ? 0 : t - lastTick;
      lastTick = t;
      // the last item's line is done()'s, with the elapsed time
      if (t + item - lastPrint < interval || done >= opts.total) return;
      lastPrint = t;
      emit(false);
    },
    done(f?: Fields) {
      if (finished) return;
      finished = true;
      if (f) fields = f;
      if (printed || !opts.quietMs || now() - quietFrom >= opts.quietMs) emit(true);
    },
    clear() {
      if (!drawn) return;
      drawn = false;
      lastPrint = -Infinity; // the next tick draws the line again
      stream.write("\r\x1b[K");
    },
  };
}

/**
 * One phase's progress on `stream` (a bar on a terminal, a line every few seconds in a log), quiet for its first
 * QUIET_MS so a short phase prints nothing; undefined without a stream (tests, the browser, --json's callers that pass none).
 */
export function phase(stream: ProgressStream | undefined, label: string, total: number, unit: string): Progress | undefined {
  return stream ? createProgress({ stream, label, total, unit, quietMs: stream.quietMs ?? QUIET_MS }) : undefined;
}
