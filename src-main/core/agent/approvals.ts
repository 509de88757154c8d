/**
 * Approvals as rows (table `approvals`, migration 14). A run that needs the user's OK writes one: a run
 * in the window or `tidy ask` waits for it in place (`live`, with the process that waits), a routine's
 * run ends and leaves it (`detached`) to be answered later — after a restart too — from the window,
 * a notification or `tidy approve|decline`. Deciding is one conditional UPDATE, so two answers (two
 * windows, the CLI and the app) never both win.
 */
import type { ApprovalCard, PendingApproval } from '../../../src-shared/approvals';
import type { ApprovalDecision } from '../../../src-shared/events';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';

interface ApprovalRow {
  id: string;
  run_id: string;
  conversation_id: string;
  call_id: string;
  tool: string;
  args: string;
  card: string;
  mode: 'live' | 'detached';
  owner_pid: number | null;
  routine_id: string | null;
  created_at: string;
  decided_at: string | null;
  decision: PendingApproval['decision'];
  decided_args: string | null;
  continued_run_id: string | null;
}

export interface StoredApproval extends PendingApproval {
  callId: string;
  ownerPid: number | null;
  /** The arguments as the user edited them, once decided. */
  decidedArgs?: unknown;
}

const parse = (text: string | null): unknown => {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

function toApproval(r: ApprovalRow): StoredApproval {
  const decidedArgs = parse(r.decided_args);
  return {
    id: r.id,
    runId: r.run_id,
    conversationId: r.conversation_id,
    callId: r.call_id,
    tool: r.tool,
    args: parse(r.args) ?? {},
    card: (parse(r.card) as ApprovalCard | undefined) ?? { approvalId: '', message: `Run ${r.tool}?` },
    mode: r.mode,
    ownerPid: r.owner_pid,
    routineId: r.routine_id,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    decision: r.decision,
    continuedRunId: r.continued_run_id,
    ...(decidedArgs !== undefined ? { decidedArgs } : {}),
  };
}

export interface NewApproval {
  runId: string;
  conversationId: string;
  callId: string;
  tool: string;
  args: unknown;
  card: ApprovalCard;
  mode: 'live' | 'detached';
  routineId?: string | null;
  /** Default: now. */
  at?: string;
}

/** Writes a pending approval and returns its id (w…). */
export function recordApproval(db: Db, a: NewApproval): string {
  return db
    .transaction(() => {
      const id = nextId(db, 'w');
      cached(
        db,
        `INSERT INTO approvals (id, run_id, conversation_id, call_id, tool, args, card, mode, owner_pid, routine_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        a.runId,
        a.conversationId,
        a.callId,
        a.tool,
        JSON.stringify(a.args ?? {}),
        JSON.stringify(a.card),
        a.mode,
        a.mode === 'live' ? process.pid : null,
        a.routineId ?? null,
        a.at ?? new Date().toISOString(),
      );
      return id;
    })
    .immediate();
}

export function getApproval(db: Db, id: string): StoredApproval | null {
  const row = cached(db, `SELECT * FROM approvals WHERE id = ?`).get(String(id).trim().toLowerCase()) as ApprovalRow | undefined;
  return row ? toApproval(row) : null;
}

/** Approvals still waiting (oldest first), or with `all` the latest 200 of every state (newest first). */
export function listApprovals(db: Db, opts: { all?: boolean; routineId?: string } = {}): StoredApproval[] {
  const rows = opts.all
    ? cached(db, `SELECT * FROM approvals WHERE (? IS NULL OR routine_id = ?) ORDER BY rowid DESC LIMIT 200`).all(opts.routineId ?? null, opts.routineId ?? null)
    : cached(db, `SELECT * FROM approvals WHERE decided_at IS NULL AND (? IS NULL OR routine_id = ?) ORDER BY rowid`).all(opts.routineId ?? null, opts.routineId ?? null);
  return (rows as ApprovalRow[]).map(toApproval);
}

/**
 * Records the user's answer, if the approval is still waiting. False when someone answered it first
 * (another window, the CLI) or it expired: exactly one answer wins.
 */
export function decideApproval(db: Db, id: string, decision: ApprovalDecision | 'expired', args?: unknown, at = new Date().toISOString()): boolean {
  const r = cached(db, `UPDATE approvals SET decided_at = ?, decision = ?, decided_args = ? WHERE id = ? AND decided_at IS NULL`).run(
    at,
    decision,
    args === undefined ? null : JSON.stringify(args),
    id,
  );
  return r.changes === 1;
}

/** Notes the run that went on after a detached approval was answered. */
export function noteContinuation(db: Db, id: string, runId: string): void {
  cached(db, `UPDATE approvals SET continued_run_id = ? WHERE id = ?`).run(runId, id);
}

/** A run that waited in place ended: what it still waited for can no longer be answered. */
export function expireRunApprovals(db: Db, runId: string): void {
  cached(db, `UPDATE approvals SET decided_at = ?, decision = 'expired' WHERE run_id = ? AND mode = 'live' AND decided_at IS NULL`).run(new Date().toISOString(), runId);
}

/** Whether a process is alive (a live approval of a dead process can only go on as a new run). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
