import { useEffect } from 'react';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';

/** Every label with its number of open tasks; a label opens its tasks (the filter `@name`). */
export function LabelsView() {
  const labels = useApp((s) => s.labels);
  const label = useApp((s) => s.label);
  const loadLabels = useApp((s) => s.loadLabels);
  const openLabel = useApp((s) => s.openLabel);
  useEffect(() => {
    void loadLabels();
  }, [loadLabels]);
  const list = labels.value;
  // The first label is shown when none is chosen (or the chosen one is gone).
  useEffect(() => {
    if (!list) return;
    if (label.name !== null && list.some((l) => l.name === label.name)) return;
    void openLabel(list[0]?.name ?? null);
  }, [list, label.name, openLabel]);

  return (
    <>
      <ViewHead title="Labels">{list && <span className="badge">{list.length}</span>}</ViewHead>
      <div className="split">
        <div className="picker" data-pane="list">
          {labels.problem && <ProblemAlert problem={labels.problem} title="Could not load the labels" />}
          {list === null ? (
            labels.loading && <Loading what="labels" />
          ) : list.length === 0 ? (
            <p className="empty">No labels yet. Add one with @name in a task, e.g. “Call the plumber @phone”.</p>
          ) : (
            <ul aria-label="Labels">
              {list.map((l) => (
                <li key={l.id}>
                  <button type="button" className="picker-item" aria-current={l.name === label.name ? 'true' : undefined} onClick={() => void openLabel(l.name)}>
                    <span className="grow">@{l.name}</span>
                    <span className="count">
                      {l.openTasks}
                      <span className="visually-hidden"> open tasks</span>
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
        <section className="detail" aria-label={label.name !== null ? `Label ${label.name}` : 'Label'} data-pane="main">
          {label.name !== null && (
            <div className="view-body">
              <h2 className="group-head">@{label.name}</h2>
              {label.problem && <ProblemAlert problem={label.problem} title="Could not load the tasks" />}
              {label.value === null ? (
                label.loading && <Loading what="tasks" />
              ) : label.value.tasks.length === 0 ? (
                <p className="empty">No open tasks with @{label.name}.</p>
              ) : (
                <TaskList tasks={label.value.tasks} label={`Tasks labelled ${label.name}`} showProject />
              )}
            </div>
          )}
        </section>
      </div>
    </>
  );
}
