import { useEffect } from 'react';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';
import { QuickAddForm } from './QuickAdd';

/** The inbox: what was captured and not yet organised. Updates live as the agent moves tasks out. */
export function InboxView() {
  const inbox = useApp((s) => s.inbox);
  const loadInbox = useApp((s) => s.loadInbox);
  const addQuick = useApp((s) => s.addQuick);
  const reorderTask = useApp((s) => s.reorderTask);
  const problem = useApp((s) => s.formProblems['inbox.add']);
  useEffect(() => {
    void loadInbox();
  }, [loadInbox]);
  const page = inbox.value;
  return (
    <>
      <ViewHead title="Inbox">{page && <span className="badge">{page.total} open</span>}</ViewHead>
      <div className="view-body">
        <QuickAddForm label="New inbox task" button="Add" placeholder="Add a task to the inbox" problem={problem} onAdd={(parsed) => addQuick('inbox.add', parsed, 'inbox')} />
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
