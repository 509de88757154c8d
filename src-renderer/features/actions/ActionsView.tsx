/**
 * The action log, the undo list: newest first, grouped by request, virtualised (only the rows on screen
 * are in the DOM) and paged from the contract as the user scrolls, so 100k entries scroll smoothly.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef } from 'react';
import type { ActionEntry } from '../../../src-shared/domain';
import type { ActionGroup } from '../../../src-shared/ipc';
import { count, shortTime } from '../../lib/format';
import { readableDates } from '../../lib/when';
import { canRedo, canUndo, logRows, requestTitle } from './slice';
import { Undoable } from './Undoable';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';

/** Load the next page when the last rendered row is this close to the end. */
const PREFETCH_ROWS = 40;

export function ActionsView() {
  const log = useApp((s) => s.log);
  const loadActions = useApp((s) => s.loadActions);
  const loadMore = useApp((s) => s.loadMoreActions);
  const undoLast = useApp((s) => s.undoLastRequest);
  const redoLast = useApp((s) => s.redoLastRequest);
  const redoStack = useApp((s) => s.redoStack);
  const rows = useMemo(() => logRows(log.groups), [log.groups]);
  const scrollRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void loadActions();
  }, [loadActions]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === 'group' ? 42 : 35),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length ? items[items.length - 1]!.index : -1;

  useEffect(() => {
    if (log.nextBefore !== null && !log.loading && lastIndex >= rows.length - PREFETCH_ROWS) void loadMore();
  }, [lastIndex, rows.length, log.nextBefore, log.loading, loadMore]);

  return (
    <>
      <ViewHead title="Actions">
        {log.loaded && (
          <span className="badge">
            {log.count.toLocaleString()}
            {log.nextBefore !== null ? '+' : ''}
            <span className="visually-hidden"> entries loaded</span>
          </span>
        )}
        <button type="button" className="btn small" onClick={() => void undoLast()} disabled={!log.groups.some((g) => g.actions.some(canUndo))} aria-keyshortcuts="Control+Z">
          Undo last request
        </button>
        <button type="button" className="btn small" onClick={() => void redoLast()} disabled={redoStack.length === 0} aria-keyshortcuts="Control+Shift+Z Control+Y">
          Redo last undo
        </button>
      </ViewHead>
      {log.problem && (
        <div style={{ padding: '8px 16px' }}>
          <ProblemAlert problem={log.problem} title="Could not load the action log">
            <button type="button" className="btn small" onClick={() => void loadActions()}>
              Try again
            </button>
          </ProblemAlert>
        </div>
      )}
      {!log.loaded && log.loading && <Loading what="the action log" />}
      {log.loaded && log.nextBefore === null && rows.length === 0 && <p className="empty">Nothing has changed yet. Every change Tidy or you make shows up here, ready to undo.</p>}
      <div ref={scrollRef} className="log-scroller" role="list" aria-label="Action log" aria-busy={log.loading}>
        <div className="log-inner" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((vi) => {
            const row = rows[vi.index]!;
            return (
              <div key={vi.key} ref={virtualizer.measureElement} data-index={vi.index} className="log-row" role="listitem" style={{ transform: `translateY(${vi.start}px)` }}>
                {row.kind === 'group' ? <GroupRow group={row.group} /> : <EntryRow entry={row.entry} />}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}


const SOURCE_BADGE: Record<ActionGroup['source'], string> = { agent: 'Agent', mcp: 'MCP', user: 'You', import: 'Import' };

const GroupRow = memo(function GroupRow({ group }: { group: ActionGroup }) {
  const live = group.actions.filter(canUndo).length;
  const undone = group.actions.filter(canRedo).length;
  const whole = group.source === 'agent' || group.source === 'mcp' || group.actions.length > 1;
  const title = requestTitle(group);
  const newest = group.actions[0];
  return (
    <Undoable
      target={{ kind: 'request', id: group.requestId }}
      focusId={`request:${group.requestId}`}
      rowClassName="log-group"
      canUndo={whole && live > 0}
      canRedo={whole && undone > 0}
      undoName={`Undo request: ${title}`}
      redoName={`Redo request: ${title}`}
      undoText="Undo request"
      redoText="Redo request"
    >
      <span className={`badge ${group.source === 'agent' || group.source === 'mcp' ? 'accent' : ''}`}>{SOURCE_BADGE[group.source]}</span>
      <span className="title" title={title}>
        {title}
      </span>
      <span className="muted">{count(group.actions.length, 'change')}</span>
      {newest && <time dateTime={newest.createdAt} className="muted">{shortTime(newest.createdAt)}</time>}
    </Undoable>
  );
});

const EntryRow = memo(function EntryRow({ entry }: { entry: ActionEntry }) {
  const undone = entry.undoneAt !== null;
  const reversal = entry.undoes !== null;
  // Its words, with any ISO date in them shown as the user's locale writes dates.
  const summary = readableDates(entry.summary);
  return (
    <Undoable
      target={{ kind: 'action', id: entry.id }}
      focusId={`action:${entry.id}`}
      rowClassName={`log-entry${undone ? ' undone' : ''}${reversal ? ' reversal' : ''}`}
      canUndo={canUndo(entry)}
      canRedo={canRedo(entry)}
      undoName={`Undo: ${summary}`}
      redoName={`Redo: ${summary}`}
    >
      <span className="summary" title={summary}>
        {summary}
      </span>
      {entry.external && <span className="badge warn">Cannot be undone</span>}
      {undone && !reversal && <span className="badge warn">Undone</span>}
      {undone && reversal && <span className="badge">Reverted</span>}
      <time dateTime={entry.createdAt}>{shortTime(entry.createdAt)}</time>
    </Undoable>
  );
});
