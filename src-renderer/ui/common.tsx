/** Pieces the views share: a view header, an inline problem, an add-one-line form, a task list. */
import { useId, useState, type ReactNode } from 'react';
import { argPairs } from '../lib/format';
import { argsInWords, type Names } from '../lib/words';
import type { Problem } from '../lib/problem';

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

/** One text field and a button; Enter submits; the text is kept when the submit is refused. */
export function AddForm({ label, button, placeholder, problem, onAdd }: { label: string; button: string; placeholder?: string; problem?: Problem | undefined; onAdd: (text: string) => Promise<boolean> }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const errorId = useId();
  return (
    <form
      className="add-form-wrap"
      onSubmit={(e) => {
        e.preventDefault();
        const value = text.trim();
        if (!value || busy) return;
        setBusy(true);
        void onAdd(value).then((ok) => {
          setBusy(false);
          if (ok) setText('');
        });
      }}
    >
      <div className="add-form">
        <input
          className="input"
          aria-label={label}
          placeholder={placeholder}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? errorId : undefined}
        />
        <button type="submit" className="btn" disabled={busy || !text.trim()}>
          {button}
        </button>
      </div>
      {problem && (
        <p id={errorId} className="field-error" role="alert" style={{ marginTop: -6, marginBottom: 10 }}>
          {problem.message} — {problem.hint}
        </p>
      )}
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
