/**
 * A row's sync history where that row is edited (the task editor, an event's details, a project's or a
 * list's page): each value written on one device and overwritten by a concurrent edit on another ("Title
 * changed on Laptop at 10:02 to “…”, overwritten by Desktop at 10:03 · Restore"), or two texts kept as one
 * note. Restore writes the lost value back through the row's own operation (the caller's `restore`: an
 * ordinary edit, logged and undoable in Actions). Nothing shows for a row without conflicts.
 */
import { useEffect, useId, useState } from 'react';
import { useApp } from '../store/react';
import type { SyncConflict, SyncHistoryTable } from '../../src-shared/ipc';
import { problemLine, type Problem } from '../lib/problem';
import { shortTime } from '../lib/when';
import '../styles/sync.css';

/** Columns derived from another (a name's key, a time's milliseconds): their conflicts repeat that one's. */
const DERIVED = new Set(['name_key', 'start_ms', 'end_ms', 'until_ms']);

export interface SyncRestore {
  /** The columns Restore can write back. */
  columns: ReadonlySet<string>;
  /** Writes the lost value back (given the whole history, for values that go in pairs: an event's start and end). */
  run(c: SyncConflict, all: readonly SyncConflict[]): Promise<Problem | null>;
}

const shown = (v: SyncConflict['lostValue']): string => {
  if (v === null || v === '') return 'nothing';
  const s = String(v).replace(/\s+/g, ' ');
  return `“${s.length > 80 ? `${s.slice(0, 79)}…` : s}”`;
};

export function SyncHistory(p: {
  table: SyncHistoryTable;
  row: string;
  /** The row's name as shown ("Sync history of …"). */
  name: string;
  /** Column → its name in words ("Title"); others show as the column's name. */
  labels: Readonly<Record<string, string>>;
  restore: SyncRestore;
  /** More columns derived from another for this table (a routine's rule and start, read from its schedule's words). */
  hide?: ReadonlySet<string>;
  /** A value in words where the raw one reads badly (an event's start as a day and time); null: as stored. */
  show?: (column: string, value: SyncConflict['lostValue']) => string | null;
  onRestored?: (column: string, value: SyncConflict['lostValue']) => void;
}) {
  const { table, row, labels, restore } = p;
  const list = (useApp((s) => s.syncConflicts[`${table}:${row}`]) ?? []).filter((c) => !DERIVED.has(c.column) && !p.hide?.has(c.column));
  const loadSyncConflicts = useApp((s) => s.loadSyncConflicts);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    void loadSyncConflicts(table, row);
  }, [loadSyncConflicts, table, row]);
  if (list.length === 0) return null;
  const word = (column: string): string => labels[column] ?? column.replace(/_/g, ' ');
  const value = (c: SyncConflict): string => {
    const words = p.show?.(c.column, c.lostValue) ?? null;
    return words === null ? shown(c.lostValue) : `“${words}”`;
  };
  const run = async (c: SyncConflict) => {
    setBusy(true);
    setNote(null);
    const problem = await restore.run(c, list);
    setBusy(false);
    if (problem) return setNote(problemLine(problem));
    setNote(`Restored the ${word(c.column).toLowerCase()} written on ${c.lostDevice}. Undo it in Actions.`);
    p.onRestored?.(c.column, c.lostValue);
  };
  return (
    <section className="task-sync-history" aria-labelledby={`${id}-head`}>
      <h3 id={`${id}-head`}>Sync history</h3>
      <ul aria-label={`Sync history of ${p.name}`}>
        {list.map((c, i) => {
          const what = word(c.column);
          return (
            <li key={i}>
              {c.merged ? (
                <>
                  {what} changed on {c.lostDevice} at <time dateTime={c.lostAt}>{shortTime(c.lostAt)}</time> and on {c.wonDevice} at{' '}
                  <time dateTime={c.wonAt}>{shortTime(c.wonAt)}</time>: both kept in one note
                </>
              ) : (
                <>
                  {what} changed on {c.lostDevice} at <time dateTime={c.lostAt}>{shortTime(c.lostAt)}</time> to {value(c)}, overwritten by {c.wonDevice} at{' '}
                  <time dateTime={c.wonAt}>{shortTime(c.wonAt)}</time>
                  {restore.columns.has(c.column) && (
                    <>
                      {' · '}
                      <button type="button" className="link" disabled={busy} aria-label={`Restore ${what.toLowerCase()} ${value(c)}`} onClick={() => void run(c)}>
                        Restore
                      </button>
                    </>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
      {note && <p role="status">{note}</p>}
    </section>
  );
}
