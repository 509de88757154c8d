/** The chat: conversations on the left; the open conversation's messages, approvals and composer. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { runAdvice, sendAdvice, type Advice } from '../../lib/advice';
import { count, shortTime } from '../../lib/format';
import { latestThought, waitingApprovals, type RunState } from '../../lib/runs';
import { activeRun } from './slice';
import { useApp } from '../../store/react';
import { ApprovalCard } from './ApprovalCard';
import { Composer } from './Composer';
import { ConversationHeader, ConversationList } from './Conversations';
import { CopyButton, Markdown } from '../../ui/Markdown';
import { SetupGate } from '../first-run';
import { useNames } from './names';
import { RunChanges } from '../actions';
import { Remembered } from '../memory';

export function ChatView() {
  const loadConversations = useApp((s) => s.loadConversations);
  useEffect(() => {
    void loadConversations();
  }, [loadConversations]);
  return (
    <div className="chat">
      <ConversationList />
      <section className="thread" aria-label="Conversation" data-pane="main">
        <ConversationHeader />
        <Thread />
        <SendProblem />
        <Composer />
      </section>
    </div>
  );
}

type Row = { key: string; kind: 'user'; run: RunState } | { key: string; kind: 'assistant'; run: RunState } | { key: string; kind: 'sending'; text: string };

const SUGGESTIONS = [
  'Get all tasks in my inbox and group related ones. Create a project for each group if none fits, then move every task to its project so the inbox is empty.',
  'What is in my inbox?',
  'Make a packing list for a weekend trip.',
];

/** The messages, virtualised: a 1,000-message conversation keeps only the rows on screen in the DOM. */
function Thread() {
  const ids = useApp((s) => s.thread.value);
  const runs = useApp((s) => s.runs);
  const sending = useApp((s) => s.sending);
  const conversationId = useApp((s) => s.conversationId);
  const threadProblem = useApp((s) => s.thread.problem);
  const send = useApp((s) => s.send);
  const setupReady = useApp((s) => s.setup.state === 'ready');
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const rows = useMemo(() => {
    const out: Row[] = [];
    for (const id of ids ?? []) {
      const run = runs[id];
      if (!run) continue;
      out.push({ key: `${id}:u`, kind: 'user', run }, { key: `${id}:a`, kind: 'assistant', run });
    }
    if (sending && sending.conversationId === conversationId) out.push({ key: 'sending', kind: 'sending', text: sending.text });
    return out;
  }, [ids, runs, sending, conversationId]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === 'assistant' ? 96 : 52),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 6,
  });
  const total = virtualizer.getTotalSize();

  // Follow the end while the user is there (new messages, streamed text); leave them be when they scrolled up.
  // Only when the height or the number of messages changed: reading scrollHeight forces a layout, and the
  // rows change on every frame of a streamed answer while its height changes only when a line is added.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [total, rows.length]);
  useEffect(() => {
    stick.current = true;
    if (rows.length) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    // Only when another conversation opens (rows and virtualizer change all the time).
  }, [conversationId]);

  // A first message sent before any model works: the welcome stays (with the choice and fields the user
  // filled in) while it is sent; a refusal is said there, a run that starts replaces it.
  const firstWhileSetup = !setupReady && rows.length === 1 && rows[0]!.kind === 'sending';
  if (rows.length === 0 || firstWhileSetup) {
    return (
      <div className="messages">
        {threadProblem ? (
          <p className="empty">{threadProblem.message}</p>
        ) : ids === null ? (
          <p className="empty" role="status">
            Loading the conversation…
          </p>
        ) : (
          // The example prompts only once a model works; until then the first-run welcome.
          <SetupGate>
          <div className="welcome">
            <h2>What should Tidy do?</h2>
            <p>Tidy reads and organises your tasks, projects and lists. Every change it makes shows in Actions, ready to undo.</p>
            <div className="suggestions">
              {SUGGESTIONS.map((s) => (
                <button key={s} type="button" className="btn" onClick={() => void send(s)}>
                  {s}
                </button>
              ))}
            </div>
          </div>
          </SetupGate>
        )}
      </div>
    );
  }

  return (
    <div
      ref={scrollRef}
      className="messages"
      role="log"
      aria-label="Messages"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      }}
    >
      <div className="messages-inner" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((vi) => {
          const row = rows[vi.index]!;
          return (
            <div key={vi.key} ref={virtualizer.measureElement} data-index={vi.index} className="message-row" style={{ transform: `translateY(${vi.start}px)` }}>
              {row.kind === 'user' ? (
                <UserMessage text={row.run.request} at={row.run.startedAt} />
              ) : row.kind === 'assistant' ? (
                <AssistantMessage run={row.run} />
              ) : (
                <UserMessage text={row.text} at={null} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

const UserMessage = memo(function UserMessage({ text, at }: { text: string; at: string | null }) {
  return (
    <article className="message user" aria-label="You">
      <div className="who">
        <strong>You</strong>
        {at ? <time dateTime={at}>{shortTime(at)}</time> : <span>sending…</span>}
      </div>
      <div className="text">{text}</div>
    </article>
  );
});

const AssistantMessage = memo(function AssistantMessage({ run }: { run: RunState }) {
  const showTrace = useApp((s) => s.showTrace);
  const toggleTrace = useApp((s) => s.toggleTrace);
  const running = run.status === 'running';
  const text = run.answer ?? (running ? run.streamed : '');
  const advice = runAdvice(run);
  const waiting = waitingApprovals(run);
  const thought = running && !text ? latestThought(run) : null;
  const names = useNames(run);
  return (
    <article className="message assistant" aria-label="Tidy" aria-busy={running}>
      <div className="who">
        <strong>Tidy</strong>
        {running ? <span role="status">{waiting.length ? 'waiting for your approval' : `working… ${run.actions ? count(run.actions, 'action') : ''}`}</span> : run.finishedAt && <time dateTime={run.finishedAt}>{shortTime(run.finishedAt)}</time>}
        <button
          type="button"
          className="btn ghost small"
          onClick={() => {
            toggleTrace(true);
            void showTrace(run.id);
          }}
          aria-label={`Trace of “${run.request.slice(0, 60)}”`}
        >
          Trace
        </button>
        {!running && run.answer && <CopyButton text={run.answer} label="Copy the answer as Markdown" />}
      </div>
      {thought && <p className="thinking">{thought}</p>}
      {/* The approvals come first: the answer is what followed them. */}
      {run.approvals.map((a) => (
        <ApprovalCard key={a.approvalId} runId={run.id} approval={a} live={running} names={names} />
      ))}
      {(text || running) && <Markdown source={text} streaming={running} className={running && !waiting.length ? 'md-cursor' : undefined} />}
      <Remembered run={run} />
      <RunChanges run={run} />
      {advice && <AdviceNote advice={advice} run={run} />}
    </article>
  );
});

/** Why a run stopped and what to do, with the buttons that do it. */
function AdviceNote({ advice, run }: { advice: Advice; run: RunState | null }) {
  const show = useApp((s) => s.show);
  const send = useApp((s) => s.send);
  const busy = useApp((s) => activeRun(s) !== null || s.sending !== null);
  return (
    <div className={`status alert${advice.tone === 'error' ? '' : ' warn'}`} role={advice.tone === 'error' ? 'alert' : 'status'}>
      <strong>{advice.title}</strong>
      {advice.detail && <p>{advice.detail}</p>}
      <p className="muted">{advice.todo}</p>
      {advice.remedies.length > 0 && (
        <div className="actions row">
          {advice.remedies.includes('settings') && (
            <button type="button" className="btn small" onClick={() => show('settings')}>
              Open settings
            </button>
          )}
          {advice.remedies.includes('retry') && run && (
            <button type="button" className="btn small" disabled={busy} onClick={() => void send(run.request)}>
              Try again
            </button>
          )}
          {advice.remedies.includes('continue') && (
            <button type="button" className="btn small" disabled={busy} onClick={() => void send('Please continue where you stopped.')}>
              Continue
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** A message that could not be sent (no key, host gone…): what happened and what to do. */
function SendProblem() {
  const problem = useApp((s) => s.sendProblem);
  const show = useApp((s) => s.show);
  if (!problem) return null;
  const advice = sendAdvice(problem);
  return (
    <div style={{ padding: '0 20px' }}>
      <div className="alert message" role="alert" style={{ maxWidth: 760, margin: '0 auto' }}>
        <strong>{advice.title}</strong>
        {advice.detail && <p>{advice.detail}</p>}
        <p className="muted">{advice.todo}</p>
        {advice.remedies.includes('settings') && (
          <div className="actions row">
            <button type="button" className="btn small" onClick={() => show('settings')}>
              Open settings
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
