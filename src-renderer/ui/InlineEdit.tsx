/**
 * Editing one line of text in place (a list item, a memory): a row shows its text with an Edit button;
 * Edit turns it into this form, Enter saves (an unchanged text just closes it), Esc and Cancel close it,
 * and a refusal stays under the field, with the text kept.
 */
import { useId, useState, type ReactNode } from 'react';
import type { Problem } from '../lib/problem';
import { FieldError } from './FieldError';

/** Whether a row is being edited; `start` opens its form (fresh: the row's text, no refusal), `stop` closes it. */
export function useInlineEdit(): { editing: boolean; start(): void; stop(): void } {
  const [editing, setEditing] = useState(false);
  return { editing, start: () => setEditing(true), stop: () => setEditing(false) };
}

interface InlineEditProps {
  /** The form's accessible name, e.g. `Edit item Milk`. */
  name: string;
  /** The field's accessible name, e.g. `Item text`. */
  field: string;
  /** The text as it is. */
  text: string;
  maxLength?: number;
  /** Saves the new text: null when it was saved, else why not. */
  save(text: string): Promise<Problem | null>;
  /** Closes the form (saved, unchanged, or cancelled). */
  close(): void;
  /** More fields after the text (a memory's scope); their state is the caller's. */
  children?: ReactNode;
  /** Whether those fields changed, so an unchanged text still saves. */
  extraChanged?: boolean;
}

export function InlineEdit({ name, field, text: current, maxLength, save, close, children, extraChanged = false }: InlineEditProps) {
  const [text, setText] = useState(current);
  const [problem, setProblem] = useState<Problem | null>(null);
  const errorId = useId();
  return (
    <>
      <form
        className="item-edit"
        aria-label={name}
        onSubmit={(e) => {
          e.preventDefault();
          const value = text.trim();
          if (!value) return;
          if (value === current && !extraChanged) return close();
          void save(value).then((p) => {
            setProblem(p);
            if (!p) close();
          });
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            close();
          }
        }}
      >
        <input
          className="input"
          aria-label={field}
          value={text}
          maxLength={maxLength}
          autoFocus
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? errorId : undefined}
        />
        {children}
        <button type="submit" className="btn primary small">
          Save
        </button>
        <button type="button" className="btn small" onClick={close}>
          Cancel
        </button>
      </form>
      <FieldError id={errorId} problem={problem} />
    </>
  );
}
