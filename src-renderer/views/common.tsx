/** Pieces the views share: a view header, an inline problem, an add-one-line form, a task list. */
import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Task } from '../../src-shared/domain';
import { focusIfIdle, focusIsLost } from '../lib/focus';
import { argPairs } from '../lib/format';
import { argsInWords, type Names } from '../lib/words';
import type { Problem } from '../lib/problem';
import { useApp } from '../store/react';

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

/**
 * Tasks with a checkbox each (complete / reopen). A completed task leaves the list when the view
 * refreshes: the focus then moves to the task that took its place (or the one before it), never to the
 * page body.
 */
export function TaskList({ tasks, label, showProject = false }: { tasks: Task[]; label: string; showProject?: boolean }) {
  const setTaskDone = useApp((s) => s.setTaskDone);
  const listRef = useRef<HTMLUListElement>(null);
  /** The row the focus was on, while it is in the list. */
  const focusedRow = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = focusedRow.current;
    const list = listRef.current;
    if (at === null || !list || list.contains(document.activeElement)) return;
    if (!focusIsLost()) {
      focusedRow.current = null;
      return;
    }
    const boxes = list.querySelectorAll<HTMLInputElement>('input[type=checkbox]');
    boxes[Math.min(at, boxes.length - 1)]?.focus();
  }, [tasks]);
  useLayoutEffect(
    () => () => {
      // The last task went and the list with it: the view's heading has the focus next.
      if (focusedRow.current !== null) setTimeout(() => focusIfIdle(document.querySelector<HTMLElement>('main [data-view-heading]')), 0);
    },
    [],
  );
  return (
    <ul
      ref={listRef}
      className="task-list"
      aria-label={label}
      onFocus={(e) => {
        const row = e.target.closest('li');
        focusedRow.current = row ? [...e.currentTarget.children].indexOf(row) : null;
      }}
      onBlur={(e) => {
        // Gone to another control: forget the row. (To nothing: the row was removed, keep it.)
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) focusedRow.current = null;
      }}
    >
      {tasks.map((t) => (
        <li key={t.id}>
          <label>
            <input type="checkbox" checked={t.status === 'done'} onChange={(e) => void setTaskDone(t.id, e.target.checked)} />
            <span className={t.status === 'done' ? 'done grow' : 'grow'}>{t.content}</span>
          </label>
          {showProject && <span className="badge">{t.project}</span>}
          {t.due && <span className="badge">{t.due}</span>}
        </li>
      ))}
    </ul>
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
