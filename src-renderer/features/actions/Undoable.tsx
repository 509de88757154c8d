/**
 * One undoable thing on screen — an action or a whole request — as one component: its row with the Undo
 * or Redo button (src-renderer/ui/UndoRedo.tsx), and, when the store holds a refusal for it, the note
 * under the row that says why and offers the way out its hint names. The Actions log and the changes
 * under a chat answer both use it, so a refusal reads and behaves the same in both.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { actionKey, CASCADE_LABEL, requestKey, stillApplies, unarchiveLabel, type UndoProblem } from './slice';
import { useApp } from '../../store/react';
import { ProblemAlert } from '../../ui/common';
import { UndoRedo } from '../../ui/UndoRedo';

/** What Undo and Redo act on: one action of the log, or every change of one request. */
export type UndoTarget = { kind: 'action' | 'request'; id: string };

interface UndoableProps {
  target: UndoTarget;
  /** Unique among the buttons on screen: names their focus keys (`<focusId>:undo`, `<focusId>:redo`). */
  focusId: string;
  canUndo: boolean;
  canRedo: boolean;
  undoName: string;
  redoName: string;
  undoText?: string;
  redoText?: string;
  /** The buttons' class (default `btn small`). */
  buttonClassName?: string;
  /** The row's class; the row holds `children` and then the buttons. */
  rowClassName: string;
  /** Bring a refusal's note into view when it opens (inside a list that scrolls). */
  revealProblem?: boolean;
  /** After an undo or redo that was done (e.g. to reload a list that does not follow data.changed). */
  onDone?: () => void;
  children?: ReactNode;
}

export function Undoable({ target, focusId, canUndo, canRedo, undoName, redoName, undoText, redoText, buttonClassName, rowClassName, revealProblem, onDone, children }: UndoableProps) {
  const key = target.kind === 'action' ? actionKey(target.id) : requestKey(target.id);
  const kept = useApp((s) => s.undoProblems[key]);
  const problem = kept && stillApplies(kept, { canUndo, canRedo }) ? kept : undefined;
  const pending = useApp((s) => key in s.undoPending);
  const undoIt = useApp((s) => (target.kind === 'action' ? s.undoAction : s.undoRequest));
  const redoIt = useApp((s) => (target.kind === 'action' ? s.redoAction : s.redoRequest));
  const then = (ok: boolean) => {
    if (ok) onDone?.();
    return ok;
  };
  const undo = (id: string, cascade?: boolean) => undoIt(id, cascade).then(then);
  const redo = (id: string, cascade?: boolean) => redoIt(id, cascade).then(then);
  return (
    <>
      <div className={rowClassName}>
        {children}
        <UndoRedo
          id={focusId}
          canUndo={canUndo}
          canRedo={canRedo}
          undo={() => undo(target.id)}
          redo={() => redo(target.id)}
          pending={pending}
          undoName={undoName}
          redoName={redoName}
          undoText={undoText}
          redoText={redoText}
          className={buttonClassName}
        />
      </div>
      {problem && (
        <UndoProblemNote
          problemKey={key}
          problem={problem}
          reveal={revealProblem}
          undo={(cascade) => undo(target.id, cascade)}
          redo={(cascade) => redo(target.id, cascade)}
        />
      )}
    </>
  );
}

/**
 * Why an undo or redo was refused (the later changes it names), and the way out its hint names: the same
 * words on the button (src-renderer/features/actions/slice.ts, CASCADE_LABEL).
 */
function UndoProblemNote({
  problemKey,
  problem,
  reveal,
  undo,
  redo,
}: {
  problemKey: string;
  problem: UndoProblem;
  reveal?: boolean;
  /** Undoes the action or request again; with `cascade`, the later changes that block it first. */
  undo: (cascade?: boolean) => Promise<unknown>;
  /** Redoes it; with `cascade`, undoing the later changes that block it first. */
  redo: (cascade?: boolean) => Promise<unknown>;
}) {
  // The refused verb, tried again: as it was, or undoing the later changes first.
  const again = (cascade?: boolean) => void (problem.verb === 'redo' ? redo(cascade) : undo(cascade));
  const dismiss = useApp((s) => s.dismissUndoProblem);
  const unarchive = useApp((s) => s.unarchiveParent);
  const parent = problem.reason === 'parent_archived' ? problem.details?.parent : undefined;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (reveal) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [reveal, problem]);
  return (
    <div className="log-problem" ref={ref}>
      <ProblemAlert problem={problem} title={problem.verb === 'redo' ? "Can't redo this yet" : "Can't undo this yet"}>
        {problem.canCascade && (
          <button type="button" className="btn small danger" onClick={() => again(true)}>
            {CASCADE_LABEL[problem.verb]}
          </button>
        )}
        {parent && (
          <button type="button" className="btn small" onClick={() => void unarchive(parent).then((ok) => ok && again())}>
            {unarchiveLabel(parent.kind, problem.verb)}
          </button>
        )}
        {problem.reason === 'already_undone' && problem.details?.undoneBy && (
          <button type="button" className="btn small" onClick={() => void redo()}>
            Redo
          </button>
        )}
        <button type="button" className="btn small" onClick={() => dismiss(problemKey)}>
          Dismiss
        </button>
      </ProblemAlert>
    </div>
  );
}
