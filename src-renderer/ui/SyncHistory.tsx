/**
 * A task's sync history in its editor: each value written on one device and overwritten by a concurrent edit
 * on another ("Title changed on Laptop at 10:02 to “…”, overwritten by Desktop at 10:03 · Restore"), or two
 * descriptions kept as one note. Restore is an ordinary edit of the task with the lost value (tasks.update):
 * logged, undoable in Actions. Nothing shows for a task without conflicts.
 */
import { useEffect, useId, useState } from 'react';
import { useApp } from '../../store/react';
import type { TaskPatch } from './slice';
import type { SyncConflict } from '../../../src-shared/ipc';
import type { Task } from '../../../src-shared/domain';
import { problemLine } from '../../lib/problem';
import { shortTime } from '../../lib/when';
import '../../styles/sync.css';

const LABELS: Record<string, string> = {
  content: 'Title',
  description: 'Description',
  priority: 'Priority',
  due: 'Due date',
  deadline: 'Deadline',
  duration_min: 'Duration',
  status: 'Status',
  project_id: 'Project',
  section_id: 'Section',
  parent_id: 'Parent task',
};
/** The columns Restore can write back, as tasks.update's fields. */
const RESTORABLE: Record<string, string> = { content: 'content', description: 'description', priority: 'priority', due: 'due', deadline: 'deadline', duration_min: 'durationMin' };

const shown = (v: SyncConflict['lostValue']): string => {
  if (v === null || v === '') return 'nothing';
  const s = String(v).replace(/\s+/g, ' ');
  return `“${s.length > 80 ? `${s.slice(0, 79)}…` : s}”`;
};

export function SyncHistory({ task, onRestored }: { task: Task; onRestored?: (column: string, value: SyncConflict['lostValue']) => void }) {
  const list = useApp((s) => s.syncConflicts[task.id]) ?? [];
  const loadSyncConflicts = useApp((s) => s.loadSyncConflicts);
  const editTask = useApp((s) => s.editTask);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    void loadSyncConflicts(task.id);
  }, [loadSyncConflicts, task.id]);
  if (list.length === 0) return null;
  const restore = async (c: SyncConflict) => {
    const field = RESTORABLE[c.column];
    if (!field) return;
    setBusy(true);
    setNote(null);
    const problem = await editTask(task, { [field]: c.lostValue } as TaskPatch);
    setBusy(false);
    if (problem) return setNote(problemLine(problem));
    setNote(`Restored the ${(LABELS[c.column] ?? c.column).toLowerCase()} written on ${c.lostDevice}. Undo it in Actions.`);
    onRestored?.(c.column, c.lostValue);
  };
  return (
    <section className="task-sync-history" aria-labelledby={`${id}-head`}>
      <h3 id={`${id}-head`}>Sync history</h3>
      <ul aria-label={`Sync history of ${task.content}`}>
        {list.map((c, i) => {
          const what = LABELS[c.column] ?? c.column.replace(/_/g, ' ');
          return (
            <li key={i}>
              {c.merged ? (
                <>
                  {what} changed on {c.lostDevice} at <time dateTime={c.lostAt}>{shortTime(c.lostAt)}</time> and on {c.wonDevice} at{' '}
                  <time dateTime={c.wonAt}>{shortTime(c.wonAt)}</time>: both kept in one note
                </>
              ) : (
                <>
                  {what} changed on {c.lostDevice} at <time dateTime={c.lostAt}>{shortTime(c.lostAt)}</time> to {shown(c.lostValue)}, overwritten by {c.wonDevice} at{' '}
                  <time dateTime={c.wonAt}>{shortTime(c.wonAt)}</time>
                  {RESTORABLE[c.column] && (
                    <>
                      {' · '}
                      <button type="button" className="link" disabled={busy} aria-label={`Restore ${what.toLowerCase()} ${shown(c.lostValue)}`} onClick={() => void restore(c)}>
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
