import { useEffect } from 'react';
import type { Task } from '../../../src-shared/domain';
import { dayHeading, dueParts, isoDay } from '../../lib/due';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';
import { TaskAddForm } from './QuickAdd';

/** The tasks of each day, in order (tasks.list gives them by due). */
function byDay(tasks: Task[]): { day: Date; key: string; tasks: Task[] }[] {
  const days = new Map<string, { day: Date; key: string; tasks: Task[] }>();
  for (const t of tasks) {
    const p = dueParts(t.due);
    if (!p) continue;
    const key = isoDay(p.day);
    let group = days.get(key);
    if (!group) days.set(key, (group = { day: p.day, key, tasks: [] }));
    group.tasks.push(t);
  }
  return [...days.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** Upcoming: the next seven days, day by day. */
export function UpcomingView() {
  const upcoming = useApp((s) => s.upcoming);
  const loadUpcoming = useApp((s) => s.loadUpcoming);
  useEffect(() => {
    void loadUpcoming();
  }, [loadUpcoming]);
  const page = upcoming.value;
  const now = new Date();
  return (
    <>
      <ViewHead title="Upcoming">{page && <span className="badge">{page.total} in the next 7 days</span>}</ViewHead>
      <div className="view-body">
        <TaskAddForm label="New upcoming task" placeholder="Add a task, e.g. “call Sam friday 3pm”" box="upcoming.add" />
        {upcoming.problem && <ProblemAlert problem={upcoming.problem} title="Could not load the upcoming tasks" />}
        {page === null ? (
          upcoming.loading && <Loading what="the upcoming tasks" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">Nothing due in the next seven days.</p>
        ) : (
          byDay(page.tasks).map((g) => {
            const heading = dayHeading(g.day, now);
            return (
              <section key={g.key} className="task-group" aria-labelledby={`day-${g.key}`}>
                <h2 id={`day-${g.key}`} className="group-head">
                  {heading} <span className="count">{g.tasks.length}</span>
                </h2>
                <TaskList tasks={g.tasks} label={`Tasks due ${heading}`} showProject />
              </section>
            );
          })
        )}
      </div>
    </>
  );
}
