import { useEffect } from 'react';
import { isoDay } from '../../lib/due';
import { useApp } from '../../store/react';
import { TodayEvents } from '../calendar';
import { PlanMyDay } from '../plan';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';
import { TaskAddForm } from './QuickAdd';

/** Today: today's events from every calendar, then what is overdue (marked) and what is due today, across every project. */
export function TodayView() {
  const today = useApp((s) => s.today);
  const loadToday = useApp((s) => s.loadToday);
  const loadCounts = useApp((s) => s.loadCounts);
  useEffect(() => {
    void loadToday();
    void loadCounts();
  }, [loadToday, loadCounts]);
  const page = today.value;
  const day = isoDay(new Date());
  const overdue = page?.tasks.filter((t) => (t.due ?? '').slice(0, 10) < day) ?? [];
  const due = page?.tasks.filter((t) => (t.due ?? '').slice(0, 10) >= day) ?? [];
  return (
    <>
      <ViewHead title="Today">{page && <span className="badge">{page.total} open</span>}</ViewHead>
      <div className="view-body">
        {/* Added here, a task is due today unless the line says another date. */}
        <TaskAddForm label="New task for today" placeholder="Add a task due today" box="today.add" defaults={{ due: day }} />
        <TodayEvents />
        <PlanMyDay />
        {today.problem && <ProblemAlert problem={today.problem} title="Could not load today's tasks" />}
        {page === null ? (
          today.loading && <Loading what="today's tasks" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">Nothing due today. Enjoy the day.</p>
        ) : (
          <>
            {overdue.length > 0 && (
              <section className="task-group" aria-labelledby="today-overdue">
                <h2 id="today-overdue" className="group-head overdue">
                  Overdue <span className="count">{overdue.length}</span>
                </h2>
                <TaskList tasks={overdue} label="Overdue tasks" showProject />
              </section>
            )}
            {due.length > 0 && (
              <section className="task-group" aria-labelledby="today-due">
                <h2 id="today-due" className="group-head">
                  Due today <span className="count">{due.length}</span>
                </h2>
                <TaskList tasks={due} label="Tasks due today" showProject />
              </section>
            )}
          </>
        )}
      </div>
    </>
  );
}
