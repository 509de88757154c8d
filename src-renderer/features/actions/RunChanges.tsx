/**
 * What an answer changed, under it: one line in words ("Created 3 projects · moved 9 tasks"), Undo all
 * (then "Undone", with Redo), and the list of changes, each with its own Undo or Redo, on demand.
 */
import { useEffect, useId, useState } from 'react';
import type { ActionEntry } from '../../../src-shared/domain';
import { changesInWords } from '../../lib/words';
import { readableDates } from '../../lib/when';
import type { RunState } from '../../lib/runs';
import { canRedo, canUndo } from './slice';
import { useApp } from '../../store/react';
import { Undoable } from './Undoable';
import '../../styles/chat-undo.css';


export function RunChanges({ run }: { run: RunState }) {
  const entries = useApp((s) => s.runChanges[run.id]);
  const load = useApp((s) => s.loadRunChanges);
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
      <Undoable
        target={{ kind: 'request', id: run.id }}
        focusId={`chat-request:${run.id}`}
        rowClassName="run-changes-bar"
        canUndo={live.length > 0 && !running}
        canRedo={undone.length > 0 && !running}
        undoName="Undo all changes"
        redoName="Redo all changes"
        undoText="Undo all"
      >
        <button type="button" className="run-changes-toggle grow" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((o) => !o)}>
          <span className="run-changes-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {state === 'undone' && <span className="badge warn">Undone</span>}
          <span className="run-changes-words">{words}</span>
          {state === 'partly' && <span className="muted"> · {undone.length} undone</span>}
        </button>
      </Undoable>
      {open && (
        <ul id={listId} className="run-changes-list" aria-label="Changes, newest first">
          {changes.map((e) => (
            <ChangeRow key={e.id} entry={e} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ChangeRow({ entry }: { entry: ActionEntry }) {
  const undone = entry.undoneAt !== null;
  const summary = readableDates(entry.summary);
  return (
    <li className={undone ? 'undone' : undefined}>
      <Undoable
        target={{ kind: 'action', id: entry.id }}
        focusId={`chat-action:${entry.id}`}
        rowClassName="run-change"
        canUndo={canUndo(entry)}
        canRedo={canRedo(entry)}
        undoName={`Undo: ${summary}`}
        redoName={`Redo: ${summary}`}
        buttonClassName="btn small ghost"
        revealProblem
      >
        <span className="grow">{summary}</span>
        {undone && <span className="badge warn">Undone</span>}
      </Undoable>
    </li>
  );
}
