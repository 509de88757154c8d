import { useEffect, useMemo, useState } from 'react';
import { groupByDay } from '../../lib/days';
import { isoDay } from '../../lib/due';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';

/**
 * The logbook: completed tasks under the day they were done (Today, Yesterday, "Fri 20 Nov"), the most
 * recent first, with the count of each day; unticking one reopens it. The latest page of tasks is loaded
 * (TASK_PAGE, src-renderer/features/tasks/data-slice.ts) and grouped in one pass when it or the day changes.
 */
export function CompletedView() {
  const completed = useApp((s) => s.completed);
  const loadCompleted = useApp((s) => s.loadCompleted);
  useEffect(() => {
    void loadCompleted();
  }, [loadCompleted]);
  const today = useToday();
  const page = completed.value;
  // Grouped again when the day turns, so "Today" becomes "Yesterday".
  const grouped = useMemo(() => (page ? groupByDay(page.tasks, new Date()) : null), [page, today]);
  return (
    <>
      <ViewHead title="Completed">{page && <span className="badge">{page.total} done</span>}</ViewHead>
      <div className="view-body">
        <p className="muted view-intro">Untick a task to reopen it.</p>
        {completed.problem && <ProblemAlert problem={completed.problem} title="Could not load the completed tasks" />}
        {page === null || grouped === null ? (
          completed.loading && <Loading what="the completed tasks" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">Nothing completed yet.</p>
        ) : (
          <>
            <TaskList tasks={grouped.tasks} groups={grouped.groups} groupsPartial={page.total > page.tasks.length} label="Completed tasks" showProject />
            {page.total > page.tasks.length && <p className="muted">Showing the latest {page.tasks.length} of {page.total}.</p>}
          </>
        )}
      </div>
    </>
  );
}

/** Today's local date, checked each minute, so "Today" becomes "Yesterday" at midnight. */
function useToday(): string {
  const [day, setDay] = useState(() => isoDay(new Date()));
  useEffect(() => {
    const timer = setInterval(() => setDay(isoDay(new Date())), 60_000);
    return () => clearInterval(timer);
  }, []);
  return day;
}
