// Placeholder renderer: proves the bridge end to end (read the inbox, add to it, live updates, quick
// capture) until the real UI lands. Everything goes through ./api, never window.* (STYLE 11).
import { StrictMode, useCallback, useEffect, useState, type KeyboardEvent } from 'react';
import { createRoot } from 'react-dom/client';
import type { Task } from '../src-shared/domain';
import { api, BridgeError } from './api';

const describe = (e: unknown): string => (e instanceof BridgeError ? `${e.message} — ${e.hint}` : String(e));

function Inbox() {
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [error, setError] = useState('');
  const [text, setText] = useState('');

  const load = useCallback(() => {
    api.invoke('tasks.list', { project: 'inbox' }).then((r) => setTasks(r.tasks), (e: unknown) => setError(describe(e)));
  }, []);
  useEffect(() => {
    load();
    return api.on('data.changed', ({ topics }) => {
      if (topics.includes('tasks')) load();
    });
  }, [load]);

  const add = () => {
    if (!text.trim()) return;
    api.invoke('capture.add', { text }).then(() => setText(''), (e: unknown) => setError(describe(e)));
  };

  return (
    <main>
      <h1>Tidy</h1>
      <p>Your tasks, projects and lists live here. The chat arrives with the UI issue.</p>
      <section aria-labelledby="inbox-heading">
        <h2 id="inbox-heading">Inbox</h2>
        {error && <p role="alert">{error}</p>}
        {tasks === null ? (
          <p>Loading…</p>
        ) : tasks.length === 0 ? (
          <p>The inbox is empty.</p>
        ) : (
          <ul aria-label="Inbox tasks">
            {tasks.map((t) => (
              <li key={t.id}>{t.content}</li>
            ))}
          </ul>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <input aria-label="New task" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit">Add to inbox</button>
        </form>
      </section>
    </main>
  );
}

/** The quick-capture window: Enter adds to the inbox at once (no model needed); Ctrl/Cmd+Enter asks the agent. */
function Capture() {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape') return window.close();
    if (e.key !== 'Enter' || !text.trim()) return;
    e.preventDefault();
    const sent = e.ctrlKey || e.metaKey ? api.invoke('capture.ask', { text }) : api.invoke('capture.add', { text });
    sent.then(
      () => {
        setText('');
        window.close();
      },
      (err: unknown) => setError(describe(err)),
    );
  };
  return (
    <main>
      <input
        aria-label="Quick capture"
        placeholder="Add to inbox (Enter) or ask Tidy (Ctrl+Enter)"
        autoFocus
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {error && <p role="alert">{error}</p>}
    </main>
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode>{window.location.hash.startsWith('#/capture') ? <Capture /> : <Inbox />}</StrictMode>);
