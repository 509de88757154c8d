/**
 * Under an answer, each fact the agent remembered in that request as one small line with Undo
 * ("Remembered: groceries go to Errands · Undo"), so a memory is never written out of sight. It reads the
 * run's changes the changes summary already loaded (features/actions/RunChanges.tsx).
 */
import type { ActionEntry } from '../../../src-shared/domain';
import type { RunState } from '../../lib/runs';
import { useApp } from '../../store/react';
import { canRedo, canUndo, Undoable } from '../actions';
import '../../styles/memory.css';

/** The request's `remember` changes (not the undos and redos of them), oldest first. */
export function rememberedIn(entries: readonly ActionEntry[] | undefined): ActionEntry[] {
  return (entries ?? []).filter((e) => e.undoes === null && e.what.kind === 'memory' && e.what.verb === 'remembered').reverse();
}

export function Remembered({ run }: { run: RunState }) {
  const entries = useApp((s) => s.runChanges[run.id]);
  const running = run.status === 'running';
  const remembered = rememberedIn(entries);
  if (remembered.length === 0) return null;
  return (
    <ul className="remembered" aria-label="Remembered">
      {remembered.map((e) => {
        const text = e.what.name ?? e.summary;
        const undone = e.undoneAt !== null;
        return (
          <li key={e.id} className={undone ? 'undone' : undefined}>
            <Undoable
              target={{ kind: 'action', id: e.id }}
              focusId={`remembered:${e.id}`}
              rowClassName="remembered-row"
              canUndo={canUndo(e) && !running}
              canRedo={canRedo(e) && !running}
              undoName={`Undo: remembered ${text}`}
              redoName={`Redo: remembered ${text}`}
              buttonClassName="btn small ghost"
            >
              <span className="grow">
                {undone ? 'Not remembered' : 'Remembered'}: {text}
              </span>
            </Undoable>
          </li>
        );
      })}
    </ul>
  );
}
