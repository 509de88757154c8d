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
import { InlineEdit, useInlineEdit } from '../../ui/InlineEdit';
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
  const edit = useInlineEdit();
  /** Where it applies while editing: a project's id, or '' for everywhere. */
  const [scope, setScope] = useState(memory.projectId ?? '');

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

  if (edit.editing)
    return (
      <li className="memory-row">
        <InlineEdit
          name={`Edit memory ${memory.text}`}
          field="Memory text"
          text={memory.text}
          maxLength={500}
          extraChanged={scope !== (memory.projectId ?? '')}
          save={(text) => editMemory(memory.id, text, scope === (memory.projectId ?? '') ? undefined : scope || null)}
          close={edit.stop}
        >
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
        </InlineEdit>
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
            setScope(memory.projectId ?? '');
            if (store.getState().projects.value === null) void store.getState().loadProjects();
            edit.start();
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
