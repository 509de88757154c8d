/**
 * Routines: the agent on a schedule, in one place. The list says each routine's schedule in words, its next
 * run and last result, with Run now, Pause/Resume and Remove; a form adds one from "every …" words (the
 * schedule's one-line error under it when Tidy cannot read it); the history lists the runs, newest first,
 * each with its status, when, and what it changed with Undo all; approvals a run waits for are answered here.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { PendingApproval } from '../../../src-shared/approvals';
import type { RoutineInfo, RoutineRun } from '../../../src-shared/routines';
import { problemLine, type Problem } from '../../lib/problem';
import { changesInWords } from '../../lib/words';
import { dateTimeText, readableDates } from '../../lib/when';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { FieldError } from '../../ui/FieldError';
import { SyncHistory } from '../../ui/SyncHistory';
import { canRedo, canUndo } from '../actions/slice';
import type { RoutinePatch } from './slice';
import { Undoable } from '../actions';
import '../../styles/routines.css';

const STATUS_WORDS: Record<RoutineRun['status'], string> = {
  running: 'Running',
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
  limit: 'Stopped at its limit',
  waiting: 'Waiting for your answer',
  skipped: 'Skipped',
};
const STATUS_TONE: Record<RoutineRun['status'], string> = { running: 'accent', done: 'ok', error: 'error', cancelled: 'warn', limit: 'warn', waiting: 'warn', skipped: '' };
const KIND_WORDS: Record<RoutineRun['kind'], string> = { scheduled: 'on schedule', catch_up: 'caught up', skipped: 'missed', manual: 'run now', continued: 'after an answer' };

export function RoutinesView() {
  const routines = useApp((s) => s.routines);
  const runs = useApp((s) => s.routineRuns);
  const approvals = useApp((s) => s.routineApprovals);
  const load = useApp((s) => s.loadRoutines);

  useEffect(() => {
    void load();
  }, [load]);

  const names = new Map((routines.value ?? []).map((r) => [r.id, r.name]));
  return (
    <>
      <ViewHead title="Routines">
        {routines.value && (
          <span className="badge">
            {routines.value.length}
            <span className="visually-hidden"> routines</span>
          </span>
        )}
      </ViewHead>
      <div className="view-body routines">
        {routines.problem && <ProblemAlert problem={routines.problem} />}
        <RoutineForm />
        {(approvals.value ?? []).length > 0 && (
          <section aria-labelledby="routine-approvals-h">
            <h2 id="routine-approvals-h">Waiting for your answer</h2>
            <ul className="routine-approvals" aria-label="Pending approvals">
              {approvals.value!.map((a) => (
                <ApprovalRow key={a.id} approval={a} routineName={names.get(a.routineId ?? '') ?? 'A routine'} />
              ))}
            </ul>
          </section>
        )}
        <section aria-labelledby="routine-list-h">
          <h2 id="routine-list-h">Your routines</h2>
          {routines.value === null && routines.loading && <Loading what="routines" />}
          {routines.value?.length === 0 && <p className="empty">No routines yet. Add one above: the agent does it on schedule, and every change it makes can be undone.</p>}
          {routines.value && routines.value.length > 0 && (
            <ul className="routine-list" aria-label="Routines">
              {routines.value.map((r) => (
                <RoutineRow key={r.id} routine={r} />
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="routine-history-h">
          <h2 id="routine-history-h">History</h2>
          {runs.problem && <ProblemAlert problem={runs.problem} />}
          {runs.value?.length === 0 && <p className="empty">No runs yet.</p>}
          {runs.value && runs.value.length > 0 && (
            <ul className="routine-history" aria-label="Runs, newest first">
              {runs.value.map((run) => (
                <RunRow key={`${run.routineId}:${run.occurrence}`} run={run} routineName={names.get(run.routineId) ?? 'Removed routine'} />
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}

function RoutineRow({ routine: r }: { routine: RoutineInfo }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <RoutineForm routine={r} close={() => setEditing(false)} />;
  return <RoutineShown routine={r} edit={() => setEditing(true)} />;
}

function RoutineShown({ routine: r, edit }: { routine: RoutineInfo; edit: () => void }) {
  const busy = useApp((s) => r.id in s.routineBusy);
  const runNow = useApp((s) => s.runRoutineNow);
  const setEnabled = useApp((s) => s.setRoutineEnabled);
  const remove = useApp((s) => s.removeRoutine);
  const next = r.nextRuns[0];
  const last = r.lastRun;
  return (
    <li className={r.enabled ? 'routine' : 'routine paused'} aria-label={r.name} aria-busy={busy || undefined}>
      <div className="routine-main">
        <strong className="routine-name">{r.name}</strong>
        {!r.enabled && <span className="badge warn">Paused</span>}
        <span className="routine-schedule">{readableDates(r.schedule)}</span>
        <span className="muted routine-request">“{r.request}”</span>
      </div>
      <div className="routine-meta muted">
        <span>{r.enabled && next ? <>Next run: <time dateTime={next}>{dateTimeText(next)}</time></> : 'No next run while paused'}</span>
        <span>
          {last ? (
            <>
              Last: {STATUS_WORDS[last.status]}, <time dateTime={last.claimedAt}>{dateTimeText(last.claimedAt)}</time>
            </>
          ) : (
            'Not run yet'
          )}
        </span>
        {r.failures > 0 && <span className="badge error">{r.failures} failed in a row</span>}
      </div>
      <div className="routine-actions row">
        <button type="button" className="btn small" disabled={busy} aria-label={`Run ${r.name} now`} onClick={() => void runNow(r.id)}>
          {busy ? 'Running…' : 'Run now'}
        </button>
        <button type="button" className="btn small" disabled={busy} aria-label={`${r.enabled ? 'Pause' : 'Resume'} ${r.name}`} onClick={() => void setEnabled(r.id, !r.enabled)}>
          {r.enabled ? 'Pause' : 'Resume'}
        </button>
        <button type="button" className="btn small" disabled={busy} aria-label={`Edit ${r.name}`} onClick={edit}>
          Edit
        </button>
        <button type="button" className="btn small ghost" disabled={busy} aria-label={`Remove ${r.name}`} onClick={() => void remove(r.id)}>
          Remove
        </button>
      </div>
    </li>
  );
}

const PREVIEW_WAIT_MS = 250;
/** A limit field's value: a whole number, or null (empty: the settings'). NaN when it is not a whole number. */
const limitOf = (v: string): number | null => (v.trim() === '' ? null : /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN);

/**
 * The routine form, for a new routine (no `routine`: name, schedule and request; emptied once added) or
 * in place for one (`routine`, closed by `close`): name, request, schedule (its words and next three runs
 * as you type, or the parser's one-line error), where it writes, missed runs, allowed tools and its
 * limits. Saving an edit changes only what was changed, as one logged change whose notice offers Undo.
 */
const ROUTINE_HISTORY_LABELS: Record<string, string> = {
  name: 'Name',
  request: 'Request',
  schedule: 'Schedule',
  enabled: 'Paused or running',
  catch_up: 'Missed runs',
  conversation: 'Writes to',
  tools: 'Allowed tools',
  max_actions: 'Max actions',
  time_limit_sec: 'Time limit',
  archived_at: 'Removed',
};
/** Read from the schedule's words: their conflicts repeat the schedule's. */
const ROUTINE_DERIVED: ReadonlySet<string> = new Set(['rrule', 'start', 'tz']);
/** What Restore writes back through routines.edit (the schedule is read again from its words). */
const ROUTINE_RESTORABLE: ReadonlySet<string> = new Set(['name', 'request', 'schedule']);

const restorePatch = (column: string, value: string): RoutinePatch => (column === 'name' ? { name: value } : column === 'request' ? { request: value } : { schedule: value });

function RoutineForm({ routine: r, close }: { routine?: RoutineInfo; close?: () => void }) {
  const add = useApp((s) => s.addRoutine);
  const edit = useApp((s) => s.editRoutine);
  const preview = useApp((s) => s.previewSchedule);
  const [name, setName] = useState(r?.name ?? '');
  const [request, setRequest] = useState(r?.request ?? '');
  const [schedule, setSchedule] = useState(r?.schedule ?? '');
  const [conversation, setConversation] = useState(r?.conversation ?? 'routine');
  const [catchUp, setCatchUp] = useState(r?.catchUp ?? 'once');
  const [tools, setTools] = useState((r?.tools ?? []).join(', '));
  const [maxActions, setMaxActions] = useState(r?.maxActions == null ? '' : String(r.maxActions));
  const [timeLimit, setTimeLimit] = useState(r?.timeLimitSec == null ? '' : String(r.timeLimitSec));
  const [reading, setReading] = useState<{ words: string; nextRuns: string[] } | Problem | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const previewId = useId();
  const errorId = useId();
  const editing = r !== undefined;

  // While editing, the schedule read as you type, once the typing pauses.
  useEffect(() => {
    if (!editing) return;
    let live = true;
    const timer = setTimeout(() => {
      if (!schedule.trim()) return setReading(null);
      void preview(schedule.trim()).then((p) => live && setReading(p));
    }, PREVIEW_WAIT_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [editing, schedule, preview]);

  /** What the edit changes, or a problem with a limit. */
  const patchOf = (was: RoutineInfo): RoutinePatch | Problem => {
    const patch: RoutinePatch = {};
    if (name.trim() !== was.name) patch.name = name.trim();
    if (request.trim() !== was.request) patch.request = request.trim();
    if (schedule.trim() !== was.schedule) patch.schedule = schedule.trim();
    if (conversation !== was.conversation) patch.conversation = conversation;
    if (catchUp !== was.catchUp) patch.catchUp = catchUp;
    const listed = tools
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    const toolsNow = listed.length ? listed : null;
    if (JSON.stringify(toolsNow) !== JSON.stringify(was.tools)) patch.tools = toolsNow;
    const limits = { maxActions: limitOf(maxActions), timeLimitSec: limitOf(timeLimit) };
    if (Number.isNaN(limits.maxActions) || Number.isNaN(limits.timeLimitSec))
      return { code: 'client', message: 'a limit must be a whole number', hint: 'or leave it empty for the settings’ value' };
    if (limits.maxActions !== was.maxActions) patch.maxActions = limits.maxActions;
    if (limits.timeLimitSec !== was.timeLimitSec) patch.timeLimitSec = limits.timeLimitSec;
    return patch;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    let save: () => Promise<Problem | null>;
    if (r) {
      const patch = patchOf(r);
      if ('message' in patch) return setProblem(patch);
      if (Object.keys(patch).length === 0) return close?.();
      save = () => edit(r.id, patch);
    } else save = () => add({ name, schedule, request });
    setBusy(true);
    const p = await save();
    setBusy(false);
    setProblem(p);
    if (p) return;
    if (r) return close?.();
    setName('');
    setSchedule('');
    setRequest('');
  };
  const scheduleProblem = reading && 'message' in reading ? reading : null;
  const form = (
    <form
      className="routine-form"
      aria-label={r ? `Edit routine ${r.name}` : 'New routine'}
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (r && e.key === 'Escape') {
          e.stopPropagation();
          close?.();
        }
      }}
    >
      <label>
        <span>Name</span>
        <input className="input" value={name} maxLength={200} required placeholder={r ? undefined : 'Morning plan'} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        <span>Schedule</span>
        <input
          className="input"
          value={schedule}
          maxLength={100}
          required
          placeholder={r ? undefined : 'every weekday at 8am'}
          aria-invalid={(r ? scheduleProblem : problem) ? true : undefined}
          aria-describedby={r ? previewId : problem ? errorId : undefined}
          onChange={(e) => setSchedule(e.target.value)}
        />
      </label>
      {r && (
        <p id={previewId} className={`wide ${scheduleProblem ? 'field-error' : 'muted'}`} role={scheduleProblem ? 'alert' : 'status'}>
          {scheduleProblem
            ? problemLine(scheduleProblem)
            : reading && 'words' in reading
              ? `${readableDates(reading.words)}. Next: ${reading.nextRuns.map((t) => dateTimeText(t)).join('; ')}`
              : ''}
        </p>
      )}
      <label className="wide">
        <span>Request</span>
        <textarea className="input" value={request} maxLength={2000} required rows={2} placeholder={r ? undefined : 'plan my day'} onChange={(e) => setRequest(e.target.value)} />
      </label>
      {r && (
        <>
          <label>
            <span>Writes to</span>
            <select className="input" value={conversation} onChange={(e) => setConversation(e.target.value as RoutineInfo['conversation'])}>
              <option value="routine">One conversation</option>
              <option value="new">A new conversation each run</option>
            </select>
          </label>
          <label>
            <span>Missed runs</span>
            <select className="input" value={catchUp} onChange={(e) => setCatchUp(e.target.value as RoutineInfo['catchUp'])}>
              <option value="once">Catch up once</option>
              <option value="skip">Skip them</option>
            </select>
          </label>
          <label className="wide">
            <span>Allowed tools</span>
            <input className="input" value={tools} maxLength={4000} placeholder="Empty: every tool that is logged and undoable" onChange={(e) => setTools(e.target.value)} />
          </label>
          <label>
            <span>Max actions</span>
            <input className="input" inputMode="numeric" value={maxActions} placeholder="As in Settings" onChange={(e) => setMaxActions(e.target.value)} />
          </label>
          <label>
            <span>Time limit (seconds)</span>
            <input className="input" inputMode="numeric" value={timeLimit} placeholder="As in Settings" onChange={(e) => setTimeLimit(e.target.value)} />
          </label>
        </>
      )}
      <div className={r ? 'row wide' : 'row'}>
        <button type="submit" className="btn primary small" disabled={busy}>
          {r ? 'Save' : 'Add routine'}
        </button>
        {r && (
          <button type="button" className="btn small" onClick={close}>
            Cancel
          </button>
        )}
      </div>
      <FieldError id={errorId} className="wide" problem={problem} />
      {r && (
        <div className="wide">
          <SyncHistory
            table="routines"
            row={r.id}
            name={r.name}
            labels={ROUTINE_HISTORY_LABELS}
            hide={ROUTINE_DERIVED}
            restore={{ columns: ROUTINE_RESTORABLE, run: (c) => edit(r.id, restorePatch(c.column, String(c.lostValue ?? ''))) }}
            onRestored={(column, value) => {
              // the fields show the restored value, so a Save after it does not write the overwritten one back
              const text = String(value ?? '');
              if (column === 'name') setName(text);
              if (column === 'request') setRequest(text);
              if (column === 'schedule') setSchedule(text);
            }}
          />
        </div>
      )}
    </form>
  );
  return r ? (
    <li className="routine editing" aria-label={r.name}>
      {form}
    </li>
  ) : (
    form
  );
}

function RunRow({ run, routineName }: { run: RoutineRun; routineName: string }) {
  const entries = useApp((s) => (run.runId ? s.routineChanges[run.runId] : undefined));
  const loadChanges = useApp((s) => s.loadRoutineChanges);
  const openRun = useApp((s) => s.openRoutineRun);
  const running = run.status === 'running';
  useEffect(() => {
    if (run.runId) void loadChanges(run.runId);
  }, [run.runId, run.status, loadChanges]);
  const changes = (entries ?? []).filter((e) => e.undoes === null);
  const live = changes.filter(canUndo);
  const undone = changes.filter(canRedo);
  const label = `${routineName}, ${dateTimeText(run.claimedAt)}`;
  return (
    <li className="routine-run" aria-label={label}>
      <div className="row wrap">
        <strong>{routineName}</strong>
        <span className={`badge ${STATUS_TONE[run.status]}`}>{STATUS_WORDS[run.status]}</span>
        <span className="muted">
          {KIND_WORDS[run.kind]} · <time dateTime={run.claimedAt}>{dateTimeText(run.claimedAt)}</time>
        </span>
      </div>
      {run.message && <p className="muted routine-run-message">{readableDates(run.message)}</p>}
      {run.runId && (
        <button type="button" className="btn small ghost routine-run-open" aria-label={`Open the trace of ${label}`} onClick={() => void openRun(run.runId!)}>
          Open in chat
        </button>
      )}
      {run.runId && changes.length > 0 && (
        <section className="routine-run-changes" aria-label="Changes">
          <Undoable
            target={{ kind: 'request', id: run.runId }}
            focusId={`routine-request:${run.runId}`}
            rowClassName="row"
            canUndo={live.length > 0 && !running}
            canRedo={undone.length > 0 && !running}
            undoName={`Undo all changes of ${routineName}'s run`}
            redoName={`Redo all changes of ${routineName}'s run`}
            undoText="Undo all"
            redoText="Redo all"
          >
            <span className="grow">
              {live.length === 0 && <span className="badge warn">Undone</span>} {changesInWords([...changes].reverse())}
            </span>
          </Undoable>
          <ul className="routine-run-list">
            {changes.map((e) => (
              <li key={e.id} className={e.undoneAt !== null ? 'undone' : undefined}>
                {readableDates(e.summary)}
              </li>
            ))}
          </ul>
        </section>
      )}
    </li>
  );
}

function ApprovalRow({ approval: a, routineName }: { approval: PendingApproval; routineName: string }) {
  const answer = useApp((s) => s.answerRoutineApproval);
  const busy = useApp((s) => a.id in s.routineBusy);
  return (
    <li className="routine-approval" aria-label={`${routineName}: ${a.card.message}`}>
      <span className="grow">
        <strong>{routineName}</strong> asks: {a.card.message}
      </span>
      <button type="button" className="btn small primary" disabled={busy} onClick={() => void answer(a.id, 'approve')}>
        Approve
      </button>
      <button type="button" className="btn small" disabled={busy} onClick={() => void answer(a.id, 'decline')}>
        Decline
      </button>
    </li>
  );
}
