/**
 * What an answer changed, under it: one line in words ("Created 3 projects · moved 9 tasks"), Undo all
 * (then "Undone", with Redo), and the list of changes, each with its own Undo or Redo, on demand.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { ActionEntry } from '../../../src-shared/domain';
import { changesInWords } from '../../lib/words';
import type { RunState } from '../../lib/runs';
import { actionKey, canRedo, canUndo, requestKey } from './slice';
import { useApp } from '../../store/react';
import { UndoProblemNote } from './ActionsView';
import { UndoRedo } from '../../ui/UndoRedo';
import '../../styles/chat-undo.css';


export function RunChanges({ run }: { run: RunState }) {
  const entries = useApp((s) => s.runChanges[run.id]);
  const load = useApp((s) => s.loadRunChanges);
  const key = requestKey(run.id);
  const problem = useApp((s) => s.undoProblems[key]);
  const pending = useApp((s) => key in s.undoPending);
  const undoRequest = useApp((s) => s.undoRequest);
  const redoRequest = useApp((s) => s.redoRequest);
  const listId = useId();
  const [open, setOpen] = useState(false);
  const running = run.status === 'running';
  const acted = run.actions > 0;

  // Loaded once the run has done something (again when it ends); undo and redo reload it (features/chat/slice.ts refreshChat).
  useEffect(() => {
    if (acted) void load(run.id);
  }, [acted, running, run.id, load]);

  const changes = (entries ?? []).filter((e) => e.undoes === null);
  if (changes.length === 0) return null;
  const live = changes.filter(canUndo);
  const undone = changes.filter(canRedo);
  const words = changesInWords([...changes].reverse());
  const state = live.length === 0 ? 'undone' : undone.length > 0 ? 'partly' : 'live';
  return (
    <section className={`run-changes ${state}`} aria-label="Changes">
      <div className="run-changes-bar">
        <button type="button" className="run-changes-toggle grow" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((o) => !o)}>
          <span className="run-changes-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {state === 'undone' && <span className="badge warn">Undone</span>}
          <span className="run-changes-words">{words}</span>
          {state === 'partly' && <span className="muted"> · {undone.length} undone</span>}
        </button>
        <UndoRedo
          id={`chat-request:${run.id}`}
          canUndo={live.length > 0 && !running}
          canRedo={undone.length > 0 && !running}
          undo={() => undoRequest(run.id)}
          redo={() => redoRequest(run.id)}
          pending={pending}
          undoName="Undo all changes"
          redoName="Redo all changes"
          undoText="Undo all"
        />
      </div>
      {open && (
        <ul id={listId} className="run-changes-list" aria-label="Changes, newest first">
          {changes.map((e) => (
            <ChangeRow key={e.id} entry={e} />
          ))}
        </ul>
      )}
      {problem && (
        <UndoProblemNote
          problemKey={key}
          problem={problem}
          undo={(cascade) => undoRequest(run.id, cascade)}
          redo={(cascade) => redoRequest(run.id, cascade)}
        />
      )}
    </section>
  );
}

function ChangeRow({ entry }: { entry: ActionEntry }) {
  const key = actionKey(entry.id);
  const problem = useApp((s) => s.undoProblems[key]);
  const pending = useApp((s) => key in s.undoPending);
  const undoAction = useApp((s) => s.undoAction);
  const redoAction = useApp((s) => s.redoAction);
  const undone = entry.undoneAt !== null;
  const rowRef = useRef<HTMLLIElement>(null);
  // A refusal opens under its row, inside a list that scrolls: brought into view to be read and answered.
  useEffect(() => {
    if (problem) rowRef.current?.scrollIntoView({ block: 'nearest' });
  }, [problem]);
  return (
    <li ref={rowRef} className={undone ? 'undone' : undefined}>
      <div className="run-change">
        <span className="grow">{entry.summary}</span>
        {undone && <span className="badge warn">Undone</span>}
        <UndoRedo
          id={`chat-action:${entry.id}`}
          canUndo={canUndo(entry)}
          canRedo={canRedo(entry)}
          undo={() => undoAction(entry.id)}
          redo={() => redoAction(entry.id)}
          pending={pending}
          undoName={`Undo: ${entry.summary}`}
          redoName={`Redo: ${entry.summary}`}
          className="btn small ghost"
        />
      </div>
      {problem && (
        <UndoProblemNote
          problemKey={key}
          problem={problem}
          undo={(cascade) => undoAction(entry.id, cascade)}
          redo={(cascade) => redoAction(entry.id, cascade)}
        />
      )}
    </li>
  );
}
