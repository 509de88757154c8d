/**
 * The trace: what the agent did in a run, step by step — thoughts, tool calls with their arguments,
 * results (long ones collapsed), errors fed back to the model, approvals, tokens and time. The current
 * run live; any past run of the conversation on demand.
 */
import { memo, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { argPairs, count, duration, prettyJson, resultGist, shortTime, toolLabel } from '../../lib/format';
import { clockSeconds, readableDates } from '../../lib/when';
import { elapsedMs, type RunState, type TraceEvent } from '../../lib/runs';
import { focusIsLost } from '../../lib/focus';
import { useApp } from '../../store/react';
import { resultInWords, type Names } from '../../lib/words';
import { ArgList } from '../../ui/common';
import { Markdown } from '../../ui/Markdown';
import { useNames } from './names';
import '../../styles/chat-undo.css';
import { FieldError } from '../../ui/FieldError';

const STATUS_TONE: Record<RunState['status'], string> = { running: 'accent', done: 'ok', error: 'error', cancelled: '', limit: 'warn' };
const STATUS_LABEL: Record<RunState['status'], string> = { running: 'Running', done: 'Done', error: 'Failed', cancelled: 'Stopped', limit: 'Limit reached' };

/**
 * Docked on the right in a wide window; in a narrow one (or at high zoom) an overlay opened on demand:
 * it takes the focus when opened and gives it back when closed (Esc, or Hide).
 */
export function TracePanel({ overlay = false }: { overlay?: boolean }) {
  const runId = useApp((s) => s.traceRunId);
  const run = useApp((s) => (s.traceRunId ? s.runs[s.traceRunId] : undefined));
  const threadIds = useApp((s) => s.thread.value);
  const runs = useApp((s) => s.runs);
  const showTrace = useApp((s) => s.showTrace);
  const toggleTrace = useApp((s) => s.toggleTrace);
  const pinned = useApp((s) => s.tracePinned);
  const pinTrace = useApp((s) => s.pinTrace);
  const problem = useApp((s) => s.traceProblem);
  const bodyRef = useRef<HTMLDivElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    if (!overlay) return;
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    headingRef.current?.focus();
    const panel = panelRef.current;
    return () => {
      if (!opener?.isConnected) return;
      if (focusIsLost() || panel?.contains(document.activeElement)) opener.focus();
    };
  }, [overlay]);

  // A past run's trace is loaded when it is shown.
  useEffect(() => {
    if (runId && run && run.steps === null) void showTrace(runId);
  }, [runId, run, showTrace]);

  useLayoutEffect(() => {
    const el = bodyRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [run]);

  const names = useNames(run);
  const choices = [...(threadIds ?? [])].reverse().map((id) => runs[id]).filter((r): r is RunState => r !== undefined);

  return (
    <aside ref={panelRef} className={`trace${overlay ? ' overlay-panel' : ''}`} aria-label="Trace" data-pane="trace">
      <div className="trace-head">
        <div className="row">
          <h2 ref={headingRef} className="grow" tabIndex={-1} data-pane-focus="">
            Trace
          </h2>
          <button
            type="button"
            className="btn small ghost trace-pin"
            aria-pressed={pinned}
            onClick={() => pinTrace(!pinned)}
            title={pinned ? 'The trace stays on every view' : 'The trace shows with the chat only'}
          >
            {pinned ? 'Pinned' : 'Pin'}
            <span className="visually-hidden"> the trace to every view</span>
          </button>
          <button type="button" className="btn small ghost" onClick={() => toggleTrace(false)} aria-label="Hide trace">
            Hide
          </button>
        </div>
        {choices.length > 0 && (
          <select className="input" aria-label="Run" value={runId ?? ''} onChange={(e) => void showTrace(e.target.value)}>
            {choices.map((r) => (
              <option key={r.id} value={r.id}>
                {shortTime(r.startedAt)} · {r.request.length > 48 ? `${r.request.slice(0, 48)}…` : r.request}
              </option>
            ))}
          </select>
        )}
        {run && <RunStats run={run} />}
      </div>
      <div
        ref={bodyRef}
        className="trace-body"
        // Scrolls on its own: reachable by keyboard (arrow keys scroll it once it has the focus).
        tabIndex={0}
        role="region"
        aria-label="Steps"
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        }}
      >
        <FieldError problem={problem?.message} role={null} />
        {!run ? (
          <p className="empty">Nothing to show yet. When Tidy works on a request, each step appears here as it happens.</p>
        ) : run.steps === null ? (
          <p className="empty" role="status">
            Loading the trace…
          </p>
        ) : (
          <ol aria-label="Trace steps">
            <Steps run={run} names={names} />
          </ol>
        )}
      </div>
    </aside>
  );
}

/**
 * The steps, and the answer being written as the last one. The text streamed and the answer that ends it
 * are one element (the same key): when the run finishes, the Markdown already on screen stays, instead
 * of a long answer being laid out anew in one frame.
 */
function Steps({ run, names }: { run: RunState; names: Names }) {
  let answers = 0;
  const items = (run.steps ?? []).map((e) =>
    e.type === 'answer' ? <TextStep key={`answer:${answers++}`} title={<>Answer {stepTime(e.at)}</>} text={e.text} /> : <Step key={e.seq} event={e} names={names} />,
  );
  if (run.status === 'running' && (run.streamed || run.reasoning)) {
    items.push(<TextStep key={`answer:${answers}`} title="Writing…" reasoning={run.reasoning} text={run.streamed} streaming />);
  }
  return <>{items}</>;
}

/** An answer in the trace, or the text the model is writing (with its reasoning) while it streams. */
const TextStep = memo(function TextStep({ title, reasoning, text, streaming = false }: { title: ReactNode; reasoning?: string; text: string; streaming?: boolean }) {
  return (
    // Only the dot tells writing from written (the stylesheet's `.step.writing`): a class that restyled the
    // text would lay the whole answer out again when it finishes.
    <li className={`step ${streaming ? 'writing' : 'result-ok'}`}>
      <div className="step-title">{title}</div>
      {reasoning && <div className="step-text step-reasoning">{reasoning}</div>}
      {text && <Markdown source={text} streaming={streaming} className="step-text" />}
    </li>
  );
});

const stepTime = (at: string) => <time dateTime={at}>{clockSeconds(new Date(at))}</time>;

function RunStats({ run }: { run: RunState }) {
  const [now, setNow] = useState(() => Date.now());
  const running = run.status === 'running';
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [running]);
  return (
    <div className="trace-stats" role="group" aria-label="Run summary">
      <span className={`badge ${STATUS_TONE[run.status]}`}>{STATUS_LABEL[run.status]}</span>
      <span>
        <span className="visually-hidden">Elapsed time: </span>
        {duration(elapsedMs(run, now))}
      </span>
      <span>
        <span className="visually-hidden">Tool calls: </span>
        {count(run.actions || (run.steps?.filter((s) => s.type === 'tool_call').length ?? 0), 'call')}
      </span>
      <span title={`${run.usage.promptTokens.toLocaleString()} prompt + ${run.usage.completionTokens.toLocaleString()} completion`}>
        <span className="visually-hidden">Token usage: </span>
        {run.usage.totalTokens.toLocaleString()} tokens ({run.usage.promptTokens.toLocaleString()} in{cachedNote(run.usage.cachedTokens)} · {run.usage.completionTokens.toLocaleString()} out)
      </span>
      {run.model && (
        <span>
          {run.model}
          {run.protocol ? ` · ${run.protocol}` : ''}
        </span>
      )}
    </div>
  );
}

/** The exact JSON, for whoever wants it: closed by default, its summary says what it is. */
function Json({ label, value }: { label: string; value: unknown }) {
  const [open, setOpen] = useState(false);
  if (value === undefined) return null;
  return (
    <details className="json" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary aria-label={`JSON of ${label}`}>JSON</summary>
      {open && <pre>{prettyJson(value).text}</pre>}
    </details>
  );
}

const Step = memo(function Step({ event: e, names }: { event: TraceEvent; names: Names }) {
  const at = stepTime(e.at);
  switch (e.type) {
    case 'run_started':
      return (
        <li className="step">
          <div className="step-title">Started {at}</div>
          <div className="step-text muted">
            {e.model} at {e.baseUrl} ({e.protocol} protocol)
          </div>
        </li>
      );
    case 'thought':
      return (
        <li className="step thought">
          <div className="step-title">Thought {at}</div>
          <div className="step-text">{e.text}</div>
        </li>
      );
    case 'tool_call':
      // In words, ids named; the exact call as the model wrote it on demand.
      return (
        <li className="step call">
          <div className="step-title">
            {toolLabel(e.tool)} {at}
          </div>
          {argPairs(e.args).length > 0 ? <ArgList className="args" args={e.args} names={names} /> : <div className="step-text muted">no arguments</div>}
          <Json label={`${e.tool} arguments`} value={e.args} />
        </li>
      );
    case 'tool_result': {
      const failed = !e.ok;
      const hint = failed && e.result && typeof e.result === 'object' && 'hint' in e.result ? String((e.result as { hint: unknown }).hint) : null;
      return (
        <li className={`step ${failed ? 'result-error' : 'result-ok'}`}>
          <div className="step-title">
            {failed ? 'Error, fed back to the model' : 'Result'} <span className="step-tool">{toolLabel(e.tool)}</span> {at}
            {e.external && !failed && <span className="badge warn">On the MCP server {e.external}: cannot be undone</span>}
          </div>
          <div className="step-text step-words">
            {failed ? resultGist(e.result) : resultInWords(e.tool, e.result, names)}
            {hint && <div className="muted">Hint: {hint}</div>}
          </div>
          <Json label={`${e.tool} result`} value={e.result} />
        </li>
      );
    }
    case 'approval_requested':
      return (
        <li className="step ask">
          <div className="step-title">Asked for approval {at}</div>
          <div className="step-text">{readableDates(e.message)}</div>
        </li>
      );
    case 'approval_resolved':
      return (
        <li className="step ask">
          <div className="step-title">
            {e.decision === 'decline' ? 'Declined' : e.decision === 'always' ? 'Approved (always allow)' : 'Approved'}
            {e.edits ? ' with your changes' : ''} {at}
          </div>
          {/* Edited on the card: the call ran with these values, and the model was told so. */}
          {e.edits && e.message && <div className="step-text">{readableDates(e.message.replace(/\?$/, ''))}</div>}
          {e.edits && argPairs(e.args).length > 0 && <ArgList className="args" args={e.args} names={names} />}
          {e.edits && <div className="step-text muted">Tidy was told: {e.edits}</div>}
        </li>
      );
    case 'usage':
      return (
        <li className="step">
          <div className="step-title muted" style={{ fontWeight: 400 }}>
            {e.totalTokens.toLocaleString()} tokens ({e.promptTokens.toLocaleString()} in{cachedNote(e.cachedTokens)} · {e.completionTokens.toLocaleString()} out) {at}
          </div>
        </li>
      );
    case 'answer':
      // Shown by Steps, as the same element as the text streamed before it.
      return null;
    case 'error':
      return (
        <li className="step error">
          <div className="step-title">
            {e.fatal ? 'Error' : 'Problem, recovered'} <span className="muted">{e.kind}</span> {at}
          </div>
          <div className="step-text">{e.message}</div>
        </li>
      );
    case 'run_finished':
      return (
        <li className={`step ${e.status === 'done' ? 'result-ok' : 'error'}`}>
          <div className="step-title">
            Finished: {STATUS_LABEL[e.status]} {at}
          </div>
          <div className="step-text muted">
            {count(e.actions, 'tool call')} · {e.usage.totalTokens.toLocaleString()} tokens
            {e.message ? ` · ${e.message}` : ''}
          </div>
        </li>
      );
  }
});

/** ", 1,024 cached": prompt tokens the provider served from its cache, when it said. */
function cachedNote(cached: number | undefined): string {
  return cached ? `, ${cached.toLocaleString()} cached` : '';
}
