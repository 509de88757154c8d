import { useEffect, useRef, useState } from 'react';
import { downloadText } from '../lib/download';
import { shortTime } from '../lib/format';
import { toProblem } from '../lib/problem';
import { useApp } from '../store/react';
import { Icon } from '../app/Icon';

/** The conversations, the most recently active first; "New conversation" starts an empty one. */
export function ConversationList() {
  const conversations = useApp((s) => s.conversations);
  const current = useApp((s) => s.conversationId);
  const open = useApp((s) => s.openConversation);
  return (
    <nav className="conversations" aria-label="Conversations" data-pane="list">
      <div className="conversations-head">
        <h2 className="grow">Conversations</h2>
        <button type="button" className="btn small" onClick={() => void open(null)} aria-label="New conversation" title="New conversation (Alt+N)">
          <Icon name="plus" size={14} /> New
        </button>
      </div>
      <ul className="conversation-list">
        {conversations.problem && <li className="field-error">{conversations.problem.message}</li>}
        {conversations.value?.length === 0 && <li className="muted" style={{ padding: 8 }}>No conversations yet.</li>}
        {(conversations.value ?? []).map((c) => (
          <li key={c.id}>
            <button type="button" className="conversation-item" aria-current={c.id === current ? 'true' : undefined} onClick={() => void open(c.id)} title={c.title}>
              {c.title || 'Untitled'}
              <small>{shortTime(c.updatedAt)}</small>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The open conversation's title, with rename and export. */
export function ConversationHeader() {
  const id = useApp((s) => s.conversationId);
  const title = useApp((s) => s.conversations.value?.find((c) => c.id === s.conversationId)?.title ?? null);
  const rename = useApp((s) => s.renameConversation);
  const notify = useApp((s) => s.notify);
  const exportConversation = useApp((s) => s.exportConversation);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const renameRef = useRef<HTMLButtonElement>(null);
  /** Where the focus goes when the title field closes: the renamed conversation, or back to Rename. */
  const after = useRef<'renamed' | 'rename' | null>(null);
  useEffect(() => {
    if (editing) inputRef.current?.select();
    else if (after.current === 'rename') renameRef.current?.focus();
    else if (after.current === 'renamed') document.querySelector<HTMLElement>('.conversations [aria-current="true"]')?.focus();
    after.current = null;
  }, [editing]);
  const close = (then: 'renamed' | 'rename') => {
    after.current = then;
    setEditing(false);
  };

  const exportAs = async (format: 'markdown' | 'json') => {
    if (!id) return;
    try {
      const file = await exportConversation(id, format);
      downloadText(file.filename, file.mimeType, file.content);
    } catch (e) {
      const p = toProblem(e);
      notify(`${p.message} — ${p.hint}`, 'error');
    }
  };

  return (
    <header className="view-head">
      {editing && id ? (
        <form
          className="row grow"
          onSubmit={(e) => {
            e.preventDefault();
            void rename(id, text.trim() || 'Untitled').then((ok) => ok && close('renamed'));
          }}
        >
          <input
            ref={inputRef}
            className="input grow"
            aria-label="Conversation title"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.stopPropagation();
                close('rename');
              }
            }}
          />
          <button type="submit" className="btn small primary">
            Save
          </button>
          <button type="button" className="btn small" onClick={() => close('rename')}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <h1 tabIndex={-1} data-view-heading="">
            {id ? (title ?? 'Conversation') : 'New conversation'}
          </h1>
          {id && (
            <>
              <button
                ref={renameRef}
                type="button"
                className="btn small"
                onClick={() => {
                  setText(title ?? '');
                  setEditing(true);
                }}
              >
                Rename
              </button>
              <button type="button" className="btn small" onClick={() => void exportAs('markdown')}>
                Export Markdown
              </button>
              <button type="button" className="btn small" onClick={() => void exportAs('json')}>
                Export JSON
              </button>
            </>
          )}
        </>
      )}
    </header>
  );
}
