import { useEffect, type CSSProperties } from 'react';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { TaskList } from './TaskList';

/** The colours a label can have (the calendar's palette, readable on light and dark). */
const LABEL_COLOURS: readonly [string, string][] = [
  ['Red', '#d9534f'],
  ['Orange', '#e67e22'],
  ['Yellow', '#b7950b'],
  ['Green', '#2e9d5b'],
  ['Teal', '#16a085'],
  ['Blue', '#2f6fde'],
  ['Purple', '#8e44ad'],
  ['Pink', '#c2185b'],
];

/** Every label with its number of open tasks; a label opens its tasks (the filter `@name`). */
export function LabelsView() {
  const labels = useApp((s) => s.labels);
  const label = useApp((s) => s.label);
  const loadLabels = useApp((s) => s.loadLabels);
  const openLabel = useApp((s) => s.openLabel);
  const setLabelColour = useApp((s) => s.setLabelColour);
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
                    {l.colour && <span className="label-dot" aria-hidden="true" style={{ background: l.colour }} />}
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
              {(() => {
                const shown = list?.find((l) => l.name === label.name);
                if (!shown) return null;
                return (
                  <div className="label-colours" role="group" aria-label={`Colour of @${shown.name}`}>
                    {LABEL_COLOURS.map(([name, hex]) => (
                      <button
                        key={hex}
                        type="button"
                        className="label-swatch"
                        style={{ '--swatch': hex } as CSSProperties}
                        aria-label={name}
                        aria-pressed={shown.colour === hex}
                        title={name}
                        onClick={() => void (shown.colour !== hex && setLabelColour(shown.name, hex))}
                      />
                    ))}
                    <button type="button" className="btn small" aria-pressed={shown.colour === null} disabled={shown.colour === null} onClick={() => void setLabelColour(shown.name, null)}>
                      No colour
                    </button>
                  </div>
                );
              })()}
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
