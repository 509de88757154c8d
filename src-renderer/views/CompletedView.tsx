import { useEffect } from 'react';
import { useApp } from '../store/react';
import { Loading, ProblemAlert, TaskList, ViewHead } from './common';

/** The logbook: completed tasks, the most recent first; unticking one reopens it. */
export function CompletedView() {
  const completed = useApp((s) => s.completed);
  const loadCompleted = useApp((s) => s.loadCompleted);
  useEffect(() => {
    void loadCompleted();
  }, [loadCompleted]);
  const page = completed.value;
  return (
    <>
      <ViewHead title="Completed">{page && <span className="badge">{page.total} done</span>}</ViewHead>
      <div className="view-body">
        <p className="muted view-intro">Untick a task to reopen it.</p>
        {completed.problem && <ProblemAlert problem={completed.problem} title="Could not load the completed tasks" />}
        {page === null ? (
          completed.loading && <Loading what="the completed tasks" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">Nothing completed yet.</p>
        ) : (
          <>
            <TaskList tasks={page.tasks} label="Completed tasks" showProject />
            {page.total > page.tasks.length && <p className="muted">Showing the latest {page.tasks.length} of {page.total}.</p>}
          </>
        )}
      </div>
    </>
  );
}
