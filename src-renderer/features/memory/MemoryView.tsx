/**
 * The Memory page: the facts the agent keeps for the user, searched, edited in place, forgotten (with
 * Undo), each with where it applies (everywhere, or one project) and where it came from (the conversation
 * that made it, or the user by hand); the switch that turns memory off, and the budget line when a
 * request's prompt leaves some out.
 */
import { useEffect, useId, useState } from 'react';
import type { Memory } from '../../../src-shared/memory';
import type { Problem } from '../../lib/problem';
import { useApp, useAppStore } from '../../store/react';
import { AddForm, Loading, ProblemAlert, ViewHead } from '../../ui/common';
import '../../styles/tasks-ui.css';
import '../../styles/memory.css';

const WAIT_MS = 150;

export function MemoryView() {
  const memory = useApp((s) => s.memory);
  const loadMemory = useApp((s) => s.loadMemory);
  const addMemoryByHand = useApp((s) => s.addMemoryByHand);
  const saveSetting = useApp((s) => s.saveSetting);
  const store = useAppStore();
  const [query, setQuery] = useState(() => store.getState().memoryQuery);
  const [addProblem, setAddProblem] = useState<Problem | undefined>(undefined);
  const switchId = useId();

  useEffect(() => {
    const s = store.getState();
    if (s.memory.value === null && !s.memory.loading) void s.loadMemory();
  }, [store]);

  // Searched as you type, once the typing pauses.
  useEffect(() => {
    if (query === store.getState().memoryQuery) return;
    const timer = setTimeout(() => void loadMemory(query), WAIT_MS);
    return () => clearTimeout(timer);
  }, [query, loadMemory, store]);

  const page = memory.value;
  return (
    <>
      <ViewHead title="Memory" />
      <div className="view-body memory-view">
      <p className="muted">Facts the agent keeps for you, such as “groceries go to Errands”. It remembers only what you tell it to; every change is in Actions, with Undo.</p>
      {page && (
        <div className="memory-switch">
          <input
            id={switchId}
            type="checkbox"
            role="switch"
            checked={page.enabled}
            onChange={(e) => void saveSetting('memory', e.target.checked).then(() => loadMemory())}
          />
          <label htmlFor={switchId}>Use memory</label>
          <span className="muted">{page.enabled ? 'The agent reads the memories that apply and may remember what you tell it.' : 'Off: the agent neither reads nor writes memories.'}</span>
        </div>
      )}
      {page && page.budget.left > 0 && (
        <p className="memory-budget" role="note">
          A request’s prompt carries {page.budget.included} of the {page.budget.applied} memories that apply everywhere: {page.budget.left} left out by the memory budget. Raise
          “memoryTokens” in Settings to include them, or forget those that no longer hold.
        </p>
      )}
      <AddForm
        label="New memory"
        button="Remember"
        placeholder="A lasting preference, e.g. groceries go to Errands"
        problem={addProblem}
        onAdd={async (text) => {
          const p = await addMemoryByHand(text);
          setAddProblem(p ?? undefined);
          return p === null;
        }}
      />
      <input className="input memory-search" type="search" aria-label="Search memories" placeholder="Search memories" value={query} onChange={(e) => setQuery(e.target.value)} />
      {memory.problem && <ProblemAlert problem={memory.problem} />}
      {!page && memory.loading && <Loading what="memories" />}
      {page &&
        (page.memories.length === 0 ? (
          <p className="empty">{query.trim() ? 'No memory matches.' : 'Nothing remembered yet.'}</p>
        ) : (
          <ul className="item-list memory-list" aria-label="Memories">
            {page.memories.map((m) => (
              <MemoryRow key={m.id} memory={m} />
            ))}
          </ul>
        ))}
      </div>
    </>
  );
}

/** One memory: its text (edited in place), where it applies, where it came from, Edit and Forget. */
function MemoryRow({ memory }: { memory: Memory }) {
  const editMemory = useApp((s) => s.editMemory);
  const forget = useApp((s) => s.forgetMemoryWithUndo);
  const projects = useApp((s) => s.projects.value);
  const store = useAppStore();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memory.text);
  /** Where it applies while editing: a project's id, or '' for everywhere. */
  const [scope, setScope] = useState(memory.projectId ?? '');
  const [problem, setProblem] = useState<Problem | null>(null);
  const errorId = useId();

  const openOrigin = () => {
    if (!memory.conversationId) return;
    const s = store.getState();
    void s.openConversation(memory.conversationId);
    s.show('chat');
  };

  const about = (
    <span className="memory-about muted">
      <span>{memory.project ? `Project: ${memory.project}` : 'Everywhere'}</span>
      {' · '}
      {memory.conversationId ? (
        <button type="button" className="btn ghost small memory-origin" onClick={openOrigin} aria-label={`Open the conversation that made ${memory.text}`}>
          From a conversation
        </button>
      ) : (
        <span>You, by hand</span>
      )}
    </span>
  );

  if (editing)
    return (
      <li className="memory-row">
        <form
          className="item-edit"
          aria-label={`Edit memory ${memory.text}`}
          onSubmit={(e) => {
            e.preventDefault();
            const value = text.trim();
            if (!value) return;
            const sameScope = scope === (memory.projectId ?? '');
            if (value === memory.text && sameScope) return setEditing(false);
            void editMemory(memory.id, value, sameScope ? undefined : scope || null).then((p) => {
              setProblem(p);
              if (!p) setEditing(false);
            });
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setEditing(false);
            }
          }}
        >
          <input
            className="input"
            aria-label="Memory text"
            value={text}
            maxLength={500}
            autoFocus
            onChange={(e) => setText(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? errorId : undefined}
          />
          <select className="input memory-scope" aria-label="Applies to" value={scope} onChange={(e) => setScope(e.target.value)}>
            <option value="">Everywhere</option>
            {/* A project the list does not hold (archived since) stays selectable as it is. */}
            {memory.projectId && !projects?.some((p) => p.id === memory.projectId) && <option value={memory.projectId}>Project: {memory.project ?? memory.projectId}</option>}
            {(projects ?? [])
              .filter((p) => !p.builtin && !p.archivedAt)
              .map((p) => (
                <option key={p.id} value={p.id}>
                  Project: {p.name}
                </option>
              ))}
          </select>
          <button type="submit" className="btn primary small">
            Save
          </button>
          <button type="button" className="btn small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
        {problem && (
          <p id={errorId} className="field-error" role="alert">
            {problem.message} — {problem.hint}
          </p>
        )}
        {about}
      </li>
    );
  return (
    <li className="memory-row">
      <span className="memory-text grow">{memory.text}</span>
      <span className="item-actions">
        <button
          type="button"
          className="btn ghost small"
          aria-label={`Edit memory ${memory.text}`}
          onClick={() => {
            setText(memory.text);
            setScope(memory.projectId ?? '');
            if (store.getState().projects.value === null) void store.getState().loadProjects();
            setProblem(null);
            setEditing(true);
          }}
        >
          Edit
        </button>
        <button type="button" className="btn ghost small" aria-label={`Forget ${memory.text}`} onClick={() => void forget(memory)}>
          Forget
        </button>
      </span>
      {about}
    </li>
  );
}
