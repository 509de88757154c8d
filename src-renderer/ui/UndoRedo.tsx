/**
 * The Undo and Redo buttons of one action or one request, wherever they show (the Actions log, the
 * changes under a chat answer): Undo while something is live, Redo once something is undone. Pressing
 * one moves the focus to the one that takes its place (src-renderer/lib/focus.ts, rule 2); refused, the
 * focus goes back to the button pressed, and the reason shows under the row (features/actions/Undoable.tsx).
 */
import { focusIfIdle, focusWhenReady } from '../lib/focus';

const byFocusKey = (key: string) => document.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`);

interface UndoRedoProps {
  /** Unique among the buttons on screen: names their focus keys (`<id>:undo`, `<id>:redo`). */
  id: string;
  canUndo: boolean;
  canRedo: boolean;
  /** Resolve to whether it was done (false: refused, with the reason in the store). */
  undo: () => Promise<boolean>;
  redo: () => Promise<boolean>;
  pending: boolean;
  /** Accessible names, e.g. `Undo: Moved “Cake” to Birthday`. */
  undoName: string;
  redoName: string;
  /** The visible words (default Undo and Redo). */
  undoText?: string;
  redoText?: string;
  className?: string;
}

export function UndoRedo({ id, canUndo, canRedo, undo, redo, pending, undoName, redoName, undoText = 'Undo', redoText = 'Redo', className = 'btn small' }: UndoRedoProps) {
  const button = (verb: 'undo' | 'redo', name: string, text: string, run: () => Promise<boolean>) => {
    const other = verb === 'undo' ? 'redo' : 'undo';
    return (
      <button
        type="button"
        className={className}
        disabled={pending}
        data-focus-key={`${id}:${verb}`}
        aria-label={name}
        onClick={() => {
          focusWhenReady(() => byFocusKey(`${id}:${other}`));
          void run().then((ok) => ok || focusIfIdle(byFocusKey(`${id}:${verb}`)));
        }}
      >
        {text}
      </button>
    );
  };
  return (
    <>
      {canUndo && button('undo', undoName, undoText, undo)}
      {canRedo && button('redo', redoName, redoText, redo)}
    </>
  );
}
