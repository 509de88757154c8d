/**
 * Running routines: which occurrences are due (`dueOccurrences`, with an injected clock), a claim per
 * (routine, occurrence) in `routine_runs` whose primary key makes sure two processes never run the same
 * occurrence, missed occurrences caught up once or recorded as skipped, a run with its own limits and a
 * hard cap, approvals that never auto-approve (a call that needs one ends the run waiting: a pending
 * approval row), and a routine paused with one notice after failing `MAX_FAILURES` times in a row.
 * The desktop app, `tidy serve` (`startScheduler`) and `tidy routines run-due` (`runDue`) call this.
 */
import type { AgentEvent, ApprovalDecision, RunStatus } from '../../../src-shared/events';
import type { RoutineInfo, RoutineNoticeLike as RoutineNotice } from '../../../src-shared/routines';
import { newUserRequest } from '../actions/log';
import { answerStoredApproval, getApproval, type AgentDeps, type AnsweredApproval, type RunResult, type StartRunInput } from '../agent';
import { getConversation } from '../agent/conversations';
import { editRoutine, getRoutine, listRoutines, nextRuns, occurrences, parseSchedule, resolveRoutine, type Routine } from '../domain/routines';
import { fail } from '../fail';
import { readSettings } from '../settings';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import type { Tool } from '../tools/tool';
import { startRun } from '../agent/runs';
import { renewClaims, routineClaim, type ClaimOptions } from './claims';

/** Failures in a row after which a routine is paused (with one notice). */
export const MAX_FAILURES = 3;
/** An occurrence this late is still "on time"; older ones missed while Tidy was not running are caught up (or skipped). */
const ON_TIME_MS = 10 * 60_000;
/** The hard cap over a run's own time limit: a run (a model, a tool) that ignores its signal is cut here. */
const HARD_CAP_GRACE_MS = 30_000;
/** At most this many missed occurrences are recorded as skipped (the history of a long absence stays short). */
const MAX_SKIPPED_ROWS = 20;

type RoutineRunKind = 'scheduled' | 'catch_up' | 'skipped' | 'manual' | 'continued';
type RoutineRunStatus = RunStatus | 'running' | 'waiting' | 'skipped';

interface RoutineRunRecord {
  routineId: string;
  occurrence: string;
  kind: RoutineRunKind;
  claimedAt: string;
  claimedBy: string;
  runId: string | null;
  status: RoutineRunStatus;
  message: string | null;
  finishedAt: string | null;
}

/** A notice for the user: a run changed something, waits for an answer, or the routine was paused (the shape the window reads too). */
export type { RoutineNotice };

/** What a host gives the runner. */
export interface RoutineHost {
  db: Db;
  /**
   * The agent's dependencies (model from the host's connection; the key is read by then), and the
   * endpoint the runs use (default: the settings').
   */
  deps: () => Promise<AgentDeps & { endpoint?: { baseUrl: string; model: string } }>;
  /** The clock (tests move it by hand). */
  now: () => number;
  /** Who claims, for the history: "tidy serve (pid 42)". */
  owner: string;
  notify?: (notice: RoutineNotice) => void;
  /** Every event of the runs it starts (a host forwards them to its windows). */
  onEvent?: (event: AgentEvent) => void;
  /** The claim's lease and settle time while sync is on (claims.ts; tests shorten them). */
  claims?: ClaimOptions;
}

interface RunRow {
  routine_id: string;
  occurrence: string;
  kind: RoutineRunKind;
  claimed_at: string;
  claimed_by: string;
  run_id: string | null;
  status: RoutineRunStatus;
  message: string | null;
  finished_at: string | null;
}

const toRecord = (r: RunRow): RoutineRunRecord => ({
  routineId: r.routine_id,
  occurrence: r.occurrence,
  kind: r.kind,
  claimedAt: r.claimed_at,
  claimedBy: r.claimed_by,
  runId: r.run_id,
  status: r.status,
  message: r.message,
  finishedAt: r.finished_at,
});

const iso = (ms: number): string => new Date(ms).toISOString();

/** The latest scheduled occurrence claimed (run or skipped), as ms; null when none yet. */
export function lastOccurrence(db: Db, routineId: string): number | null {
  const row = cached(db, `SELECT max(occurrence) AS o FROM routine_runs WHERE routine_id = ? AND kind IN ('scheduled', 'catch_up', 'skipped')`).get(routineId) as { o: string | null };
  return row.o ? Date.parse(row.o) : null;
}

/**
 * The occurrences of a routine due at `now` that no process has claimed: after the last one claimed (or
 * after the routine was last changed, whichever is later) up to now. At most the latest 1,000.
 */
export function dueOccurrences(routine: Routine, lastRun: number | null, now: number): number[] {
  if (!routine.enabled || routine.archived) return [];
  const since = Math.max(lastRun ?? -Infinity, Date.parse(routine.updatedAt) || 0, Date.parse(routine.createdAt) || 0);
  return occurrences(routine, since, now, 1000, true);
}

/** Claims an occurrence; false when another process (or an earlier call) has it. */
function claim(db: Db, routineId: string, occurrence: string, kind: RoutineRunKind, by: string, at: string, status: RoutineRunStatus = 'running', message: string | null = null): boolean {
  const r = cached(
    db,
    `INSERT INTO routine_runs (routine_id, occurrence, kind, claimed_at, claimed_by, status, message, finished_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(routineId, occurrence, kind, at, by, status, message, status === 'skipped' ? at : null);
  return r.changes === 1;
}

function finishRecord(db: Db, routineId: string, occurrence: string, patch: { runId?: string | null; status: RoutineRunStatus; message: string | null; at: string }): void {
  cached(db, `UPDATE routine_runs SET run_id = coalesce(?, run_id), status = ?, message = ?, finished_at = ? WHERE routine_id = ? AND occurrence = ?`).run(
    patch.runId ?? null,
    patch.status,
    patch.message,
    patch.at,
    routineId,
    occurrence,
  );
}

function setRunId(db: Db, routineId: string, occurrence: string, runId: string): void {
  cached(db, `UPDATE routine_runs SET run_id = ? WHERE routine_id = ? AND occurrence = ?`).run(runId, routineId, occurrence);
}

/** A routine's runs, newest first. */
export function routineHistory(db: Db, routineId?: string, limit = 100): RoutineRunRecord[] {
  const rows = cached(db, `SELECT * FROM routine_runs WHERE (? IS NULL OR routine_id = ?) ORDER BY claimed_at DESC, rowid DESC LIMIT ?`).all(
    routineId ?? null,
    routineId ?? null,
    Math.max(1, Math.min(limit, 1000)),
  ) as RunRow[];
  return rows.map(toRecord);
}

interface State {
  failures: number;
  conversation_id: string | null;
}

function stateOf(db: Db, routineId: string): State {
  return (cached(db, `SELECT failures, conversation_id FROM routine_state WHERE routine_id = ?`).get(routineId) as State | undefined) ?? { failures: 0, conversation_id: null };
}

function saveState(db: Db, routineId: string, s: Partial<State>): void {
  cached(db, `INSERT INTO routine_state (routine_id) VALUES (?) ON CONFLICT DO NOTHING`).run(routineId);
  if (s.failures !== undefined) cached(db, `UPDATE routine_state SET failures = ? WHERE routine_id = ?`).run(s.failures, routineId);
  if (s.conversation_id !== undefined) cached(db, `UPDATE routine_state SET conversation_id = ? WHERE routine_id = ?`).run(s.conversation_id, routineId);
}

/** Failures in a row of a routine (0 after a run that did not fail). */
export const failuresInARow = (db: Db, routineId: string): number => stateOf(db, routineId).failures;

/**
 * The tools a routine may use: those it lists, else every tool that is logged and undoable — Tidy's own,
 * never another app's (MCP) tools unless listed, and never one that makes more routines unless listed.
 */
function routineToolFilter(routine: Pick<Routine, 'tools'>): (tool: Tool) => boolean {
  if (routine.tools) {
    const allowed = new Set(routine.tools);
    return (t) => allowed.has(t.name);
  }
  return (t) => !t.external && t.name !== 'create_routine';
}

/** A routine's run options: its tools, limits, and approvals kept as rows (never auto-approved). */
function routineRunOptions(db: Db, routine: Routine): Omit<StartRunInput, 'message' | 'conversationId' | 'resume'> {
  const settings = readSettings(db);
  return {
    detached: { routineId: routine.id },
    allowTool: routineToolFilter(routine),
    approveAll: false,
    limits: {
      maxActions: routine.maxActions ?? settings.maxActions,
      timeLimitMs: (routine.timeLimitSec ?? settings.timeLimitSec) * 1000,
    },
  };
}

export interface RoutineRunResult {
  routine: Routine;
  occurrence: string;
  kind: RoutineRunKind;
  status: RoutineRunStatus;
  runId: string | null;
  message: string | null;
  waitingFor?: string;
}

/** Waits for a run's end, or cuts it at the hard cap (cancel first, then give up waiting). */
async function withHardCap(deps: AgentDeps, runId: string, finished: Promise<RunResult>, capMs: number): Promise<RunResult | { cut: true }> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<{ cut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ cut: true }), capMs);
  });
  try {
    const first = await Promise.race([finished, cap]);
    if (!('cut' in first)) return first;
    deps.live.get(runId)?.controller.abort();
    let grace: NodeJS.Timeout | undefined;
    const late = await Promise.race([finished, new Promise<{ cut: true }>((resolve) => (grace = setTimeout(() => resolve({ cut: true }), 5_000)))]);
    clearTimeout(grace);
    return 'cut' in late ? late : { cut: true };
  } finally {
    clearTimeout(timer);
  }
}

const FAILED: ReadonlySet<RoutineRunStatus> = new Set(['error', 'limit', 'cancelled']);

/** After a run: failures in a row, pausing at MAX_FAILURES with one notice, and the notices. */
function afterRun(host: RoutineHost, routine: Routine, result: RoutineRunResult, changed: boolean): void {
  const { db } = host;
  if (FAILED.has(result.status)) {
    const failures = stateOf(db, routine.id).failures + 1;
    saveState(db, routine.id, { failures });
    const current = getRoutine(db, routine.id);
    if (failures >= MAX_FAILURES && current?.enabled) {
      const paused = editRoutine(db, newUserRequest(db), { routine: routine.id, enabled: false });
      if (paused.ok) {
        host.notify?.({
          kind: 'paused',
          routineId: routine.id,
          routineName: routine.name,
          text: `Routine "${routine.name}" was paused after ${failures} failed runs in a row (last: ${result.message ?? result.status}). Resume it when it is fixed.`,
          ...(result.runId ? { runId: result.runId } : {}),
        });
      }
    }
    return;
  }
  saveState(db, routine.id, { failures: 0 });
  if (result.waitingFor)
    host.notify?.({
      kind: 'waiting',
      routineId: routine.id,
      routineName: routine.name,
      text: `Routine "${routine.name}" waits for your approval (${result.waitingFor}).`,
      approvalId: result.waitingFor,
      ...(result.runId ? { runId: result.runId } : {}),
    });
  else if (changed)
    host.notify?.({ kind: 'changed', routineId: routine.id, routineName: routine.name, text: `Routine "${routine.name}" changed things; see its history to undo.`, ...(result.runId ? { runId: result.runId } : {}) });
}

/**
 * Runs one occurrence of a routine that this process claimed (or claims it first: a manual run claims
 * `manual:<now>`). Returns null when another process has the occurrence.
 */
async function runRoutineOccurrence(host: RoutineHost, routine: Routine, occurrence: string, kind: RoutineRunKind, claimed = false): Promise<RoutineRunResult | null> {
  const { db } = host;
  const at = iso(host.now());
  if (!claimed && !claim(db, routine.id, occurrence, kind, host.owner, at)) return null;
  const done = (status: RoutineRunStatus, message: string | null, runId: string | null, extra: Partial<RoutineRunResult> = {}, changed = false): RoutineRunResult => {
    finishRecord(db, routine.id, occurrence, { runId, status, message, at: iso(host.now()) });
    const result: RoutineRunResult = { routine, occurrence, kind, status, runId, message, ...extra };
    afterRun(host, routine, result, changed);
    return result;
  };
  let deps: AgentDeps & { endpoint?: { baseUrl: string; model: string } };
  try {
    deps = await host.deps();
  } catch (e) {
    return done('error', e instanceof Error ? e.message : String(e), null);
  }
  const state = stateOf(db, routine.id);
  const conversationId = routine.conversation === 'routine' && state.conversation_id && getConversation(db, state.conversation_id) ? state.conversation_id : undefined;
  const options = routineRunOptions(db, routine);
  const started = startRun(
    deps,
    { ...options, ...deps.endpoint, message: routine.request, ...(conversationId ? { conversationId } : {}) },
    (e) => host.onEvent?.(e),
  );
  if (!started.ok) return done('error', started.error, null);
  const { runId } = started.value;
  setRunId(db, routine.id, occurrence, runId);
  if (routine.conversation === 'routine') saveState(db, routine.id, { conversation_id: started.value.conversationId });
  const cap = (options.limits?.timeLimitMs ?? 120_000) + HARD_CAP_GRACE_MS;
  const end = await withHardCap(deps, runId, started.value.finished, cap);
  if ('cut' in end) return done('error', `cut at the routine's hard cap of ${Math.round(cap / 1000)} s`, runId);
  if (end.waitingFor) return done('waiting', end.answer ?? 'waiting for an approval', runId, { waitingFor: end.waitingFor }, end.actions > 0);
  return done(end.status, end.status === 'done' ? (end.answer ?? null) : (end.message ?? end.status), runId, {}, end.actions > 0);
}

/**
 * Runs what is due now, once: for each routine on, the occurrence due on time runs; occurrences missed
 * while no Tidy was running are caught up once (the latest of them) or, for a routine that skips,
 * recorded as skipped. Every occurrence is claimed in the database first, so two processes calling this
 * at once never run the same one. Runs go one after another.
 */
export async function runDue(host: RoutineHost): Promise<RoutineRunResult[]> {
  const { db } = host;
  const results: RoutineRunResult[] = [];
  renewClaims(db, host.now(), host.claims);
  for (const routine of listRoutines(db)) {
    const now = host.now();
    const due = dueOccurrences(routine, lastOccurrence(db, routine.id), now);
    if (due.length === 0) continue;
    const latest = due[due.length - 1]!;
    const onTime = now - latest <= ON_TIME_MS;
    const missed = onTime ? due.slice(0, -1) : due;
    const at = iso(now);
    // With sync on, one device runs a routine: another holds it (its occurrences are that device's), or a new claim waits
    const claimed = routineClaim(db, routine.id, now, host.claims);
    if (!claimed.run) {
      if (claimed.reason === 'other') {
        const message = `runs on ${claimed.name ?? 'another device'}, which holds this routine`;
        recordSkipped(db, routine, due, host.owner, at, message);
        results.push({ routine, occurrence: iso(latest), kind: 'skipped', status: 'skipped', runId: null, message });
      }
      continue;
    }
    if (onTime || routine.catchUp === 'once') {
      // The one to run: claimed first, so the skipped rows below never make another process skip it too.
      const kind: RoutineRunKind = onTime ? 'scheduled' : 'catch_up';
      if (!claim(db, routine.id, iso(latest), kind, host.owner, at)) continue;
      recordSkipped(db, routine, onTime ? missed : missed.slice(0, -1), host.owner, at, 'missed while Tidy was not running; caught up once');
      const r = await runRoutineOccurrence(host, routine, iso(latest), kind, true);
      if (r) results.push(r);
    } else {
      recordSkipped(db, routine, missed, host.owner, at, 'missed while Tidy was not running; this routine skips missed runs');
      results.push({ routine, occurrence: iso(latest), kind: 'skipped', status: 'skipped', runId: null, message: `${missed.length} missed run${missed.length === 1 ? '' : 's'} skipped` });
    }
  }
  return results;
}

function recordSkipped(db: Db, routine: Routine, missed: number[], owner: string, at: string, why: string): void {
  const latest = missed.slice(-MAX_SKIPPED_ROWS);
  const more = missed.length - latest.length;
  latest.forEach((ms, i) => claim(db, routine.id, iso(ms), 'skipped', owner, at, 'skipped', i === 0 && more > 0 ? `${why} (and ${more} earlier)` : why));
}

/** Runs a routine now, by hand (the window's "Run now", `tidy routines run`). */
export async function runRoutineNow(host: RoutineHost, ref: string): Promise<RoutineRunResult> {
  const routine = resolveRoutine(host.db, ref);
  if (routine.archived) fail(`routine "${routine.name}" was removed`, 'undo its removal first, or add it again');
  let occurrence = `manual:${iso(host.now())}`;
  for (let i = 2; !claim(host.db, routine.id, occurrence, 'manual', host.owner, iso(host.now())); i++) occurrence = `manual:${iso(host.now())}#${i}`;
  return (await runRoutineOccurrence(host, routine, occurrence, 'manual', true))!;
}

/**
 * Answers a pending approval by id, with the options of the routine it came from (its tools and limits,
 * and approvals kept as rows again). The run that goes on is recorded in the routine's history.
 */
export async function answerApprovalById(
  host: RoutineHost,
  id: string,
  decision: ApprovalDecision,
  args?: unknown,
): Promise<{ answered: AnsweredApproval; result?: Promise<RoutineRunResult | RunResult> }> {
  const { db } = host;
  const a = getApproval(db, id);
  const routine = a?.routineId ? getRoutine(db, a.routineId) : null;
  const deps = await host.deps();
  const extra = { ...(routine ? routineRunOptions(db, routine) : {}), ...deps.endpoint };
  const answered = answerStoredApproval(deps, id, decision, args, extra, (e) => host.onEvent?.(e));
  if (!answered.continued) return { answered };
  if (!routine) return { answered, result: answered.run.finished };
  const occurrence = `continued:${a!.id}`;
  claim(db, routine.id, occurrence, 'continued', host.owner, iso(host.now()));
  setRunId(db, routine.id, occurrence, answered.run.runId);
  const cap = (extra.limits?.timeLimitMs ?? 120_000) + HARD_CAP_GRACE_MS;
  const result = withHardCap(deps, answered.run.runId, answered.run.finished, cap).then((end): RoutineRunResult => {
    const status: RoutineRunStatus = 'cut' in end ? 'error' : end.waitingFor ? 'waiting' : end.status;
    const message = 'cut' in end ? `cut at the routine's hard cap of ${Math.round(cap / 1000)} s` : end.status === 'done' ? (end.answer ?? null) : (end.message ?? end.status);
    finishRecord(db, routine.id, occurrence, { runId: answered.run.runId, status, message, at: iso(host.now()) });
    const r: RoutineRunResult = { routine, occurrence, kind: 'continued', status, runId: answered.run.runId, message, ...(!('cut' in end) && end.waitingFor ? { waitingFor: end.waitingFor } : {}) };
    afterRun(host, routine, r, !('cut' in end) && end.actions > 0);
    return r;
  });
  return { answered, result };
}

interface Scheduler {
  /** Runs what is due now (the timer calls it; a host may too). Never two at once. */
  tick(): Promise<RoutineRunResult[]>;
  stop(): void;
}

/** Looks for due routines every `intervalMs` (default 30 s) and at once; never keeps the process alive. */
export function startScheduler(host: RoutineHost, options: { intervalMs?: number; onError?: (e: unknown) => void } = {}): Scheduler {
  let running: Promise<RoutineRunResult[]> | null = null;
  let stopped = false;
  const tick = (): Promise<RoutineRunResult[]> => {
    if (stopped) return Promise.resolve([]);
    running ??= runDue(host)
      .catch((e: unknown) => {
        options.onError?.(e);
        return [];
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? 30_000);
  timer.unref();
  void tick();
  return {
    tick,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** A routine as the window and `tidy routines list --json` show it: with its next runs, last result and failures in a row. */
export function routineInfo(db: Db, r: Routine, now: number): RoutineInfo {
  return {
    id: r.id,
    name: r.name,
    request: r.request,
    schedule: r.schedule,
    rrule: r.rrule,
    tz: r.tz,
    conversation: r.conversation,
    tools: r.tools,
    enabled: r.enabled,
    catchUp: r.catchUp,
    maxActions: r.maxActions,
    timeLimitSec: r.timeLimitSec,
    nextRuns: r.enabled && !r.archived ? nextRuns(r, now, 3).map((ms) => new Date(ms).toISOString()) : [],
    lastRun: routineHistory(db, r.id, 1)[0] ?? null,
    failures: failuresInARow(db, r.id),
  };
}

/** Schedule words read as a routine would read them at `now` (nothing changes): the words Tidy stores and the next three runs (ISO, UTC). Fails with the parser's one line. */
export function previewSchedule(words: string, now: Date): { words: string; nextRuns: string[] } {
  const s = parseSchedule(words, now);
  return { words: s.words, nextRuns: nextRuns(s, now.getTime(), 3).map((ms) => new Date(ms).toISOString()) };
}
