/** The SQLite trace: one subscriber of the event stream writes runs and steps; readers list and replay them. */
import { AgentEvent, RunInfo, StopReason, WireProtocol } from '../../../src-shared/events';
import type { ChatMessage } from '../llm/port';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { appendMessages } from './conversations';

export interface TraceWriter {
  /** The event-stream subscriber: runs row, steps, token usage. */
  event(event: AgentEvent): void;
  /** A finished step's conversation messages (the loop's onMessages), written in the same batch as its events. */
  messages(conversationId: string, runId: string, messages: readonly ChatMessage[]): void;
}

/** How long trace writes may wait to share one transaction. */
const BATCH_MS = 20;

/**
 * Persists what runs do. Streamed text pieces are not stored: the thought and answer events hold the same
 * text whole. Writes are batched into one transaction at most every BATCH_MS — several steps' calls,
 * results, usage and messages together — because each commit is an fsync (synchronous = FULL) and one per
 * event (or even per step) costs more than the rest of the loop. The tools' own changes are not batched:
 * the domain commits each with its action row at once. run_finished is written immediately, so a
 * finished run is on disk before anyone is told it finished; a crash loses at most BATCH_MS of trace.
 * The batches before it are committed without waiting for the disk (synchronous = NORMAL, WAL): they
 * survive the process crashing, and the run's last commit (synchronous = FULL) makes them durable with
 * it, since syncing the log syncs everything written to it before. Only a power cut in the middle of a
 * run can lose the trace of its last steps, and that run is marked interrupted anyway.
 */
export interface TraceWriterOptions {
  /**
   * The trace cannot be written (the database is busy beyond the retries, the disk is full, an I/O error):
   * called once, with one line for people. The run that writes it should stop.
   */
  onError?: (message: string) => void;
}

/** Waits between attempts when a write fails: busy retries first (about 10 s), then now and then for about a minute. */
const RETRY_MS = [25, 50, 100, 200, 400, 800, 1600, 3200, 3200];
const MAX_ATTEMPTS = 20;

const sqliteCode = (e: unknown): string => (typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '');

/** A failed write in one line: what is wrong with the database, and the cause. */
export function storageMessage(e: unknown): string {
  const code = sqliteCode(e);
  const why = e instanceof Error ? e.message : String(e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return `the database is busy (another program is writing to it): ${why}`;
  if (code === 'SQLITE_FULL') return `the database is full (no space left on the disk): ${why}`;
  return `the database could not be written: ${why}`;
}

export function createTraceWriter(db: Db, options: TraceWriterOptions = {}): TraceWriter {
  let queue: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let failed = false;
  /** run_finished was queued: every later write (a retry of the last batch) is the run's durable end. */
  let finished = false;
  const step = cached(db, `INSERT INTO steps (run_id, seq, kind, payload) VALUES (?, ?, ?, ?)`);
  const write = (e: AgentEvent): void => {
    switch (e.type) {
      case 'run_started':
        cached(
          db,
          `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, started_at, pid) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)`,
        ).run(e.runId, e.conversationId, e.request, e.model, e.baseUrl, e.protocol, e.at, process.pid);
        break;
      case 'usage':
        cached(
          db,
          `UPDATE runs SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?, total_tokens = total_tokens + ?, cached_tokens = cached_tokens + ? WHERE id = ?`,
        ).run(e.promptTokens, e.completionTokens, e.totalTokens, e.cachedTokens ?? 0, e.runId);
        break;
      case 'answer':
        cached(db, `UPDATE runs SET answer = ? WHERE id = ?`).run(e.text, e.runId);
        break;
      case 'error':
        if (e.kind === 'tools_unsupported') cached(db, `UPDATE runs SET protocol = 'json' WHERE id = ?`).run(e.runId);
        break;
      case 'run_finished':
        cached(db, `UPDATE runs SET status = ?, message = ?, stop_reason = ?, actions = ?, finished_at = ? WHERE id = ?`).run(
          e.status,
          e.message ?? null,
          e.stopReason ?? null,
          e.actions,
          e.at,
          e.runId,
        );
        break;
    }
    step.run(e.runId, e.seq, e.type, JSON.stringify(e));
  };
  // In order: run_started (the runs row) always precedes the steps that refer to it.
  const writeBatch = db.transaction((batch: (() => void)[]) => {
    for (const write of batch) write();
  });
  /**
   * Writes what is queued in one transaction. A failure never escapes (this runs from a timer): the batch
   * stays queued, in order, for the next attempt. Another process holding the write lock is waited for
   * without blocking this process (no busy timeout here; attempts are spaced by a timer instead), so a
   * `tidy serve` stays responsive meanwhile.
   */
  const flush = (final = false): void => {
    clearTimeout(timer);
    timer = undefined;
    if (!queue.length || !db.open) return;
    const batch = queue;
    queue = [];
    const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
    const synchronous = db.pragma('synchronous', { simple: true }) as number;
    try {
      db.pragma('busy_timeout = 0');
      // NORMAL (1) while the run goes on, unless the connection asks for less; its end keeps the connection's own.
      if (!final && synchronous > 1) db.pragma('synchronous = NORMAL');
      writeBatch.immediate(batch);
      attempt = 0;
    } catch (e) {
      queue = [...batch, ...queue];
      const busy = /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(e));
      if (!failed && !(busy && attempt < RETRY_MS.length)) {
        failed = true;
        options.onError?.(storageMessage(e));
      }
      // Try again later, so the run's end is written once the database takes writes again; never keep
      // the process alive for it.
      if (attempt < MAX_ATTEMPTS) {
        timer = setTimeout(() => flush(final || finished), RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
        timer.unref();
      }
    } finally {
      if (db.open) {
        db.pragma(`busy_timeout = ${busyTimeout}`);
        if (!final && synchronous > 1) db.pragma(`synchronous = ${synchronous}`);
      }
    }
  };
  const enqueue = (write: () => void): void => {
    queue.push(write);
    timer ??= setTimeout(() => flush(finished), BATCH_MS);
  };
  return {
    event(e) {
      if (e.type === 'text_delta') return;
      enqueue(() => write(e));
      if (e.type === 'run_finished') {
        finished = true;
        flush(true);
      }
    },
    messages(conversationId, runId, messages) {
      enqueue(() => appendMessages(db, conversationId, runId, messages));
    },
  };
}

interface RunRow {
  id: unknown;
  conversation_id: unknown;
  status: unknown;
  request: unknown;
  answer: unknown;
  message: unknown;
  stop_reason: unknown;
  model: unknown;
  protocol: unknown;
  actions: unknown;
  prompt_tokens: unknown;
  completion_tokens: unknown;
  total_tokens: unknown;
  cached_tokens: unknown;
  started_at: unknown;
  finished_at: unknown;
}

const fromRow = (r: RunRow): Record<string, unknown> => ({
  id: r.id,
  conversationId: r.conversation_id,
  status: r.status,
  request: r.request,
  answer: r.answer,
  message: r.message,
  stopReason: r.stop_reason,
  model: r.model,
  protocol: r.protocol,
  actions: r.actions,
  usage: { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens, totalTokens: r.total_tokens, cachedTokens: r.cached_tokens ?? 0 },
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/** A stored count as RunInfo has it: a whole number from 0 up; anything else (negative, fractional, text, too large) is clamped or 0. */
const count = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : NaN;
  return Number.isNaN(n) ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.round(n)));
};
const text = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : text(v));

/**
 * A run row as RunInfo. One damaged row (token counts a provider sent negative or huge before they were
 * checked, a value edited by hand) must not take `tidy runs`, the run list and exports down with it: a
 * row that does not validate is repaired field by field, and its message says which fields were.
 */
const toInfo = (r: RunRow): RunInfo => {
  const parsed = RunInfo.safeParse(fromRow(r));
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((i) => i.path.map(String).join('.') || 'row'))];
  const status = RunInfo.shape.status.safeParse(r.status);
  const protocol = WireProtocol.safeParse(r.protocol);
  const note = `(the stored record of this run was damaged and is shown repaired: ${fields.join(', ')})`;
  const message = textOrNull(r.message);
  return RunInfo.parse({
    id: text(r.id),
    conversationId: text(r.conversation_id),
    status: status.success ? status.data : 'error',
    request: text(r.request),
    answer: textOrNull(r.answer),
    message: message ? `${message} ${note}` : note,
    stopReason: StopReason.safeParse(r.stop_reason).data ?? null,
    model: text(r.model),
    protocol: protocol.success ? protocol.data : 'native',
    actions: count(r.actions),
    usage: {
      promptTokens: count(r.prompt_tokens),
      completionTokens: count(r.completion_tokens),
      totalTokens: count(r.total_tokens),
      cachedTokens: count(r.cached_tokens),
    },
    startedAt: text(r.started_at),
    finishedAt: textOrNull(r.finished_at),
  });
};

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A run whose process is gone (killed, crashed, the machine lost power) can never finish: mark it as
 * an error so that no list shows it running forever. Runs of live processes (the app and a CLI may
 * share the database) are left alone.
 */
export function settleInterruptedRuns(db: Db): void {
  const running = cached(db, `SELECT id, pid FROM runs WHERE status = 'running'`).all() as { id: string; pid: number | null }[];
  for (const r of running) {
    if (r.pid !== null && (r.pid === process.pid || processAlive(r.pid))) continue;
    // What it changed before it was cut off is in the action log: count it from there, and say how to undo it.
    const changed = (cached(db, `SELECT count(*) AS n FROM actions WHERE request_id = ? AND undoes IS NULL`).get(r.id) as { n: number }).n;
    const message = `interrupted: Tidy stopped before this run finished${changed ? `; undo its ${changed} change${changed === 1 ? '' : 's'} with: tidy undo --run ${r.id}` : ''}`;
    cached(db, `UPDATE runs SET status = 'error', message = ?, actions = max(actions, ?), finished_at = ? WHERE id = ? AND status = 'running'`).run(
      message,
      changed,
      new Date().toISOString(),
      r.id,
    );
  }
}

/** Runs, newest first. */
export function listRuns(db: Db, opts: { limit?: number; conversationId?: string } = {}): RunInfo[] {
  settleInterruptedRuns(db);
  const rows = cached(db, `SELECT * FROM runs WHERE ? IS NULL OR conversation_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?`).all(
    opts.conversationId ?? null,
    opts.conversationId ?? null,
    opts.limit ?? 100,
  ) as RunRow[];
  return rows.map(toInfo);
}

export function getRun(db: Db, runId: string): RunInfo | null {
  settleInterruptedRuns(db);
  const row = cached(db, `SELECT * FROM runs WHERE id = ?`).get(runId) as RunRow | undefined;
  return row ? toInfo(row) : null;
}

/** Token counts of a stored usage or run_finished event, clamped as RunInfo's are (see `count`). */
function repairCounts(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  const usage = (u: Record<string, unknown>): Record<string, unknown> => ({
    ...u,
    promptTokens: count(u.promptTokens),
    completionTokens: count(u.completionTokens),
    totalTokens: count(u.totalTokens),
  });
  if (out.type === 'usage') return usage(out);
  if (out.type === 'run_finished') {
    out.actions = count(out.actions);
    out.usage = usage(typeof out.usage === 'object' && out.usage !== null ? (out.usage as Record<string, unknown>) : {});
  }
  return out;
}

/**
 * A run's events as they were emitted (streamed text pieces aside), for replay. A step that cannot be
 * read is repaired when only its token counts are wrong, else replaced by a non-fatal `error` event that
 * says so, so that one damaged row never hides the rest of the trace.
 */
export function readTrace(db: Db, runId: string): AgentEvent[] {
  const rows = cached(db, `SELECT seq, kind, payload FROM steps WHERE run_id = ? ORDER BY seq`).all(runId) as { seq: unknown; kind: unknown; payload: unknown }[];
  return rows.map((r) => {
    let value: unknown;
    try {
      value = JSON.parse(String(r.payload));
    } catch {
      value = undefined;
    }
    const parsed = AgentEvent.safeParse(value);
    if (parsed.success) return parsed.data;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const repaired = AgentEvent.safeParse(repairCounts(value as Record<string, unknown>));
      if (repaired.success) return repaired.data;
    }
    const seq = count(r.seq);
    const at = typeof value === 'object' && value !== null && typeof (value as { at?: unknown }).at === 'string' ? (value as { at: string }).at : '';
    return {
      type: 'error',
      runId,
      seq,
      at,
      kind: 'internal',
      fatal: false,
      message: `step ${seq} of this trace (${oneLine(text(r.kind), 40) || 'unknown'}) is damaged and cannot be shown`,
    };
  });
}

const oneLine = (s: string, max: number): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
