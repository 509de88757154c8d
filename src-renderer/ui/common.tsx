/** Pieces the views share: a view header, an inline problem, an add-one-line form, a task list. */
import { useId, useRef, useState, type ComponentType, type ReactNode, type RefObject } from 'react';
import { argPairs } from '../lib/format';
import { argsInWords, type Names } from '../lib/words';
import type { Problem } from '../lib/problem';
import { FieldError } from './FieldError';

/** The view's header; its heading is where the focus goes when the view is opened by a shortcut. */
export function ViewHead({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="view-head">
      <h1 tabIndex={-1} data-view-heading="">
        {title}
      </h1>
      {children}
    </header>
  );
}

/** A refusal or failure, in words, with what to do. */
export function ProblemAlert({ problem, title, children }: { problem: Problem; title?: string; children?: ReactNode }) {
  return (
    <div className="alert" role="alert">
      <strong>{title ?? problem.message}</strong>
      {title && <p>{problem.message}</p>}
      {problem.hint && <p className="muted">{problem.hint}</p>}
      {children && <div className="actions row">{children}</div>}
    </div>
  );
}

/** What an add form hands its field: the text, the submit button, and `run` for a second way to submit. */
export interface AddFieldProps {
  value: string;
  onValue(value: string): void;
  inputRef: RefObject<HTMLInputElement | null>;
  /** The input's label, placeholder, and its error's wiring. */
  input: { 'aria-label': string; placeholder?: string | undefined; 'aria-invalid'?: true | undefined; 'aria-describedby'?: string | undefined };
  /** The submit button, placed by the field. */
  button: ReactNode;
  busy: boolean;
  /** Runs another submit (e.g. "Create project …"): busy meanwhile, the text cleared when it worked. */
  run(submit: () => Promise<boolean>): void;
}

/** The plain field: an input and the button on one line. */
function PlainField({ value, onValue, inputRef, input, button }: AddFieldProps) {
  return (
    <div className="add-form">
      <input ref={inputRef} className="input" {...input} value={value} onChange={(e) => onValue(e.target.value)} />
      {button}
    </div>
  );
}

/**
 * The one add form (a project, a list item, a memory, a task): one text field and a button; Enter
 * submits; the text is kept when the submit is refused. `onAdd` gets the trimmed text and answers
 * whether it was added; `problem`, the refusal (the store keeps it for this form), is shown under it. `Field` draws the field (default: a plain input; the task boxes' reads the quick-add line).
 */
export function AddForm({
  label,
  button,
  placeholder,
  problem,
  className,
  Field = PlainField,
  onAdd,
}: {
  label: string;
  button: string;
  placeholder?: string;
  problem?: Problem | undefined;
  className?: string;
  Field?: ComponentType<AddFieldProps>;
  onAdd: (text: string) => Promise<boolean>;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const errorId = useId();
  const run = (submit: () => Promise<boolean>) => {
    if (busy) return;
    setBusy(true);
    void submit().then((ok) => {
      setBusy(false);
      if (ok) setText('');
      inputRef.current?.focus();
    });
  };
  return (
    <form
      className={`add-form-wrap${className ? ` ${className}` : ''}`}
      onSubmit={(e) => {
        e.preventDefault();
        const value = text.trim();
        if (value) run(() => onAdd(value));
      }}
    >
      <Field
        value={text}
        onValue={setText}
        inputRef={inputRef}
        input={{ 'aria-label': label, placeholder, 'aria-invalid': problem ? true : undefined, 'aria-describedby': problem ? errorId : undefined }}
        button={
          <button type="submit" className="btn" disabled={busy || !text.trim()}>
            {button}
          </button>
        }
        busy={busy}
        run={run}
      />
      <FieldError id={errorId} problem={problem} />
    </form>
  );
}

/** A tool call's arguments as label/value pairs; null when it has none. */
/** Tool arguments as a definition list; with `names`, in words (ids named: src-renderer/lib/words.ts). */
export function ArgList({ args, className, names }: { args: unknown; className?: string; names?: Names }) {
  const pairs = names ? argsInWords(args, names) : argPairs(args);
  if (pairs.length === 0) return null;
  return (
    <dl className={className}>
      {pairs.map(([k, v]) => (
        <div key={k} style={{ display: 'contents' }}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="empty" role="status">
      Loading {what}…
    </p>
  );
}
