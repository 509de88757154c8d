import { useEffect } from 'react';
import { INBOX_ID } from '../../../src-shared/domain';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';
import { TaskAddForm } from './QuickAdd';

/** What the inbox's box adds to, unless its line names a #Project. */
const INBOX_BOX = { project: INBOX_ID };

/** The inbox: what was captured and not yet organised. Updates live as the agent moves tasks out. */
export function InboxView() {
  const inbox = useApp((s) => s.inbox);
  const loadInbox = useApp((s) => s.loadInbox);
  const reorderTask = useApp((s) => s.reorderTask);
  useEffect(() => {
    void loadInbox();
  }, [loadInbox]);
  const page = inbox.value;
  return (
    <>
      <ViewHead title="Inbox">{page && <span className="badge">{page.total} open</span>}</ViewHead>
      <div className="view-body">
        <TaskAddForm label="New inbox task" placeholder="Add a task to the inbox" box="inbox.add" defaults={INBOX_BOX} />
        {inbox.problem && <ProblemAlert problem={inbox.problem} title="Could not load the inbox" />}
        {page === null ? (
          inbox.loading && <Loading what="the inbox" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">The inbox is empty. Nicely done.</p>
        ) : (
          <>
            <TaskList tasks={page.tasks} label="Inbox tasks" onReorder={reorderTask} />
            {page.total > page.tasks.length && <p className="muted" style={{ marginTop: 8 }}>Showing the first {page.tasks.length} of {page.total} tasks.</p>}
          </>
        )}
      </div>
    </>
  );
}
