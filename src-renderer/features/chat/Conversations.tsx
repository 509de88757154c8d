import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import '../../styles/chat-undo.css';
import { downloadText } from '../../lib/download';
import { shortTime } from '../../lib/format';
import { useApp, useAppStore } from '../../store/react';
import { request } from '../../store/request';
import { Dialog } from '../../ui/Dialog';
import { Icon } from '../../ui/Icon';
import { FieldError } from '../../ui/FieldError';

/** The conversations, the most recently active first; "New conversation" starts an empty one. */
export function ConversationList() {
  const conversations = useApp((s) => s.conversations);
  const current = useApp((s) => s.conversationId);
  const open = useApp((s) => s.openConversation);
  const archived = useApp((s) => s.showArchived);
  const setArchived = useApp((s) => s.setShowArchived);
  return (
    <nav className="conversations" aria-label="Conversations" data-pane="list">
      <div className="conversations-head">
        <h2 className="grow">{archived ? 'Archived' : 'Conversations'}</h2>
        <button type="button" className="btn small" onClick={() => void open(null)} aria-label="New conversation" title="New conversation (Alt+N)">
          <Icon name="plus" size={14} /> New
        </button>
      </div>
      <div className="conversations-filter">
        <button type="button" className="btn small ghost" aria-pressed={archived} onClick={() => setArchived(!archived)}>
          {archived ? 'Back to conversations' : 'Show archived'}
        </button>
      </div>
      <ul className="conversation-list">
        <FieldError as="li" problem={conversations.problem?.message} role={null} />
        {conversations.value?.length === 0 && <li className="muted" style={{ padding: 8 }}>{archived ? 'No archived conversations.' : 'No conversations yet.'}</li>}
        {(conversations.value ?? []).map((c) => (
          <li key={c.id}>
            <button type="button" className="conversation-item" aria-current={c.id === current ? 'true' : undefined} onClick={() => void open(c.id)} title={c.title}>
              {c.title || 'Untitled'}
              <small>
                {c.incognito && <span className="badge">Incognito</span>} {shortTime(c.updatedAt)}
              </small>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The open conversation's title, and a menu: rename, export, archive (the title keeps the room). */
export function ConversationHeader() {
  const id = useApp((s) => s.conversationId);
  const info = useApp((s) => s.conversations.value?.find((c) => c.id === s.conversationId) ?? null);
  const title = info?.title ?? null;
  const isArchived = Boolean(info?.archivedAt);
  const incognitoNext = useApp((s) => s.incognito);
  const setIncognito = useApp((s) => s.setIncognito);
  const rename = useApp((s) => s.renameConversation);
  const archive = useApp((s) => s.archiveConversation);
  const openConversation = useApp((s) => s.openConversation);
  const store = useAppStore();
  const exportConversation = useApp((s) => s.exportConversation);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  /** Archiving a conversation that made memories: how many, while the question is asked. */
  const [asking, setAsking] = useState<number | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  /** Where the focus goes when the title field closes: the renamed conversation, or back to the menu. */
  const after = useRef<'renamed' | 'rename' | null>(null);
  useEffect(() => {
    if (editing) inputRef.current?.select();
    else if (after.current === 'rename') menuButtonRef.current?.focus();
    else if (after.current === 'renamed') document.querySelector<HTMLElement>('.conversations [aria-current="true"]')?.focus();
    after.current = null;
  }, [editing]);
  const close = (then: 'renamed' | 'rename') => {
    after.current = then;
    setEditing(false);
  };

  const exportAs = async (format: 'markdown' | 'json') => {
    if (!id) return;
    const r = await request(store.getState, () => exportConversation(id, format));
    if (r.ok) downloadText(r.value.filename, r.value.mimeType, r.value.content);
  };

  return (
    <>
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
            <h1 tabIndex={-1} data-view-heading="" title={title ?? undefined}>
              {id ? (title ?? 'Conversation') : 'New conversation'}
            </h1>
            {/* Incognito: neither reads nor writes memory. Chosen before the first message; shown after. */}
            {!id && (
              <button
                type="button"
                className={`btn small${incognitoNext ? ' primary' : ''}`}
                aria-pressed={incognitoNext}
                onClick={() => setIncognito(!incognitoNext)}
                title="An incognito conversation neither reads nor writes memory"
              >
                Incognito
              </button>
            )}
            {id && info?.incognito && (
              <span className="badge" role="status" title="This conversation neither reads nor writes memory">
                Incognito: no memory
              </span>
            )}
            {id && (
              <Menu
                buttonRef={menuButtonRef}
                label="Conversation actions"
                items={[
                  {
                    label: 'Rename',
                    run: () => {
                      setText(title ?? '');
                      setEditing(true);
                    },
                  },
                  { label: 'Export Markdown', run: () => void exportAs('markdown') },
                  { label: 'Export JSON', run: () => void exportAs('json') },
                  null,
                  isArchived
                    ? { label: 'Unarchive conversation', run: () => void archive(id, false) }
                    : {
                        label: 'Archive conversation',
                        // Out of the list: the chat goes on with a new conversation, as after deleting a mail.
                        // One that made memories asks first whether to forget them too (they outlive it otherwise).
                        run: () =>
                          void store
                            .getState()
                            .memoriesMadeIn(id)
                            .then((n) => (n > 0 ? setAsking(n) : void archive(id, true).then((ok) => ok && void openConversation(null)))),
                      },
                ]}
              />
            )}
          </>
        )}
      </header>
      {id && asking !== null && (
        <ForgetMemoriesQuestion
          count={asking}
          onClose={() => setAsking(null)}
          onArchive={(forget) => {
            setAsking(null);
            void archive(id, true, forget).then((ok) => ok && void openConversation(null));
          }}
        />
      )}
      {id && isArchived && (
        <p className="archived-note" role="note">
          This conversation is archived: it stays out of the list. Unarchive it from the menu (⋯) to bring it back.
        </p>
      )}
    </>
  );
}

/** Archiving a conversation that made memories: forget them with it, or keep them. */
function ForgetMemoriesQuestion({ count, onClose, onArchive }: { count: number; onClose: () => void; onArchive: (forget: boolean) => void }) {
  const titleId = useId();
  const them = count === 1 ? 'it' : 'them';
  return (
    <Dialog labelledBy={titleId} onClose={onClose}>
      <h2 id={titleId}>Forget the memories this conversation made?</h2>
      <p>
        It made {count} {count === 1 ? 'memory' : 'memories'} that the agent still uses. Archive the conversation and forget {them}, or keep {them} (the Memory page lists {them}).
        Either way you can undo it from Actions.
      </p>
      <div className="actions row">
        <button type="button" className="btn primary" onClick={() => onArchive(true)}>
          Archive and forget {them}
        </button>
        <button type="button" className="btn" onClick={() => onArchive(false)}>
          Archive, keep {them}
        </button>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

interface MenuItem {
  label: string;
  run: () => void;
}

/**
 * A menu button (WAI-ARIA menu pattern): Enter, Space or ↓ opens it on the first item, ↑/↓ move, Home/End
 * jump, Esc or Tab closes it and the focus goes back to the button; a click outside closes it.
 */
function Menu({ label, items, buttonRef }: { label: string; items: (MenuItem | null)[]; buttonRef: RefObject<HTMLButtonElement | null> }) {
  const [open, setOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const entries = () => [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

  useEffect(() => {
    if (!open) return;
    entries()[0]?.focus();
    const outside = (e: PointerEvent) => {
      if (!menuRef.current?.contains(e.target as Node) && !buttonRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open, buttonRef]);

  const closeToButton = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };

  return (
    <div className="menu-wrap">
      <button
        ref={buttonRef}
        type="button"
        className="btn small"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        title={label}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <div
          ref={menuRef}
          id={menuId}
          className="menu"
          role="menu"
          aria-label={label}
          onKeyDown={(e) => {
            const list = entries();
            const at = list.indexOf(document.activeElement as HTMLElement);
            const go = (i: number) => list[(i + list.length) % list.length]?.focus();
            if (e.key === 'ArrowDown') go(at + 1);
            else if (e.key === 'ArrowUp') go(at - 1);
            else if (e.key === 'Home') go(0);
            else if (e.key === 'End') go(list.length - 1);
            else if (e.key === 'Escape') {
              e.stopPropagation();
              closeToButton();
            } else if (e.key === 'Tab') setOpen(false);
            else return;
            if (e.key !== 'Tab') e.preventDefault();
          }}
        >
          {items.map((item, i) =>
            item ? (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  closeToButton();
                  item.run();
                }}
              >
                {item.label}
              </button>
            ) : (
              <div key={`sep${i}`} role="separator" />
            ),
          )}
        </div>
      )}
    </div>
  );
}
