/** The SQLite trace: one subscriber of the event stream writes runs and steps; readers list and replay them. */
import { AgentEvent, RunInfo, type RunStatus } from '../../../src-shared/events';
import type { Db } from '../store/db';
import { cached } from '../store/statements';

/**
 * Returns the trace writer: persists every event of the runs it sees (runs row, steps, token usage).
 * Streamed text pieces are not stored: the thought and answer events hold the same text whole. Events are
 * written in one transaction per turn of the event loop (a step's tool call, result and usage together)
 * rather than one commit each; run_started and run_finished are written at once.
 */
export function createTraceWriter(db: Db): (event: AgentEvent) => void {
  let queue: AgentEvent[] = [];
  let scheduled = false;
  const step = cached(db, `INSERT INTO steps (run_id, seq, kind, payload) VALUES (?, ?, ?, ?)`);
  const write = (e: AgentEvent): void => {
    switch (e.type) {
      case 'run_started':
        cached(
          db,
          `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, started_at) VALUES (?, ?, 'running', ?, ?, ?, ?, ?)`,
        ).run(e.runId, e.conversationId, e.request, e.model, e.baseUrl, e.protocol, e.at);
        break;
      case 'usage':
        cached(
          db,
          `UPDATE runs SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?, total_tokens = total_tokens + ? WHERE id = ?`,
        ).run(e.promptTokens, e.completionTokens, e.totalTokens, e.runId);
        break;
      case 'answer':
        cached(db, `UPDATE runs SET answer = ? WHERE id = ?`).run(e.text, e.runId);
        break;
      case 'error':
        if (e.kind === 'tools_unsupported') cached(db, `UPDATE runs SET protocol = 'json' WHERE id = ?`).run(e.runId);
        break;
      case 'run_finished':
        cached(db, `UPDATE runs SET status = ?, message = ?, actions = ?, finished_at = ? WHERE id = ?`).run(
          e.status,
          e.message ?? null,
          e.actions,
          e.at,
          e.runId,
        );
        break;
    }
    step.run(e.runId, e.seq, e.type, JSON.stringify(e));
  };
  // run_started must precede its steps (foreign key): it is never queued behind them.
  const flush = db.transaction(() => {
    const batch = queue;
    queue = [];
    for (const e of batch) write(e);
  });
  return (event) => {
    if (event.type === 'text_delta') return;
    queue.push(event);
    if (event.type === 'run_started' || event.type === 'run_finished') return flush();
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (queue.length && db.open) flush();
      });
    }
  };
}

interface RunRow {
  id: string;
  conversation_id: string;
  status: RunStatus | 'running';
  request: string;
  answer: string | null;
  message: string | null;
  model: string;
  protocol: string;
  actions: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  started_at: string;
  finished_at: string | null;
}

const toInfo = (r: RunRow): RunInfo =>
  RunInfo.parse({
    id: r.id,
    conversationId: r.conversation_id,
    status: r.status,
    request: r.request,
    answer: r.answer,
    message: r.message,
    model: r.model,
    protocol: r.protocol,
    actions: r.actions,
    usage: { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens, totalTokens: r.total_tokens },
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  });

/** Runs, newest first. */
export function listRuns(db: Db, opts: { limit?: number; conversationId?: string } = {}): RunInfo[] {
  const rows = cached(db, `SELECT * FROM runs WHERE ? IS NULL OR conversation_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?`).all(
    opts.conversationId ?? null,
    opts.conversationId ?? null,
    opts.limit ?? 100,
  ) as RunRow[];
  return rows.map(toInfo);
}

export function getRun(db: Db, runId: string): RunInfo | null {
  const row = cached(db, `SELECT * FROM runs WHERE id = ?`).get(runId) as RunRow | undefined;
  return row ? toInfo(row) : null;
}

/** A run's events as they were emitted (streamed text pieces aside), for replay. */
export function readTrace(db: Db, runId: string): AgentEvent[] {
  const rows = cached(db, `SELECT payload FROM steps WHERE run_id = ? ORDER BY seq`).all(runId) as { payload: string }[];
  return rows.map((r) => AgentEvent.parse(JSON.parse(r.payload)));
}
