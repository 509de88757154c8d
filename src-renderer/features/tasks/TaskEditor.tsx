/**
 * The inline editor of one task (split from TaskList.tsx): content, due and repeat in quick-add words with
 * a line saying what each will store, priority, project, and the rich fields — description (Markdown, shown
 * as the chat shows answers), deadline, duration, labels, section — and the task's comments. Enter saves,
 * Esc cancels; each change is one logged, undoable operation.
 */
import { SyncHistory, type SyncRestore } from '../../ui/SyncHistory';
import type { TaskPatch } from './slice';
import { useEffect, useId, useRef, useState } from 'react';
import type { Task } from '../../../src-shared/domain';
import { Markdown } from '../../ui/Markdown';
import { durationText, readLabels, sameLabels } from './tree';
import { dayPhrase, dueParts, isoDay } from '../../lib/due';
import { clockOf, dueFieldText } from '../../lib/when';
import type { Problem } from '../../lib/problem';
import { parseDue } from '../../../src-shared/date-words';
import { readRepeat, type RepeatReading } from '../../../src-shared/quickadd';
import { firstOccurrence, recurrenceWords } from '../../../src-shared/repeat-rules';
import { actionOf, TASK_EDITOR_KEYS } from '../../ui/keymaps';
import { useApp } from '../../store/react';
import { FieldError } from '../../ui/FieldError';

/** The four priorities as people say them: p1 is the most urgent, p4 (normal) shows no flag. */
export const PRIORITIES = [
  { value: 1, label: 'p1 · urgent' },
  { value: 2, label: 'p2 · high' },
  { value: 3, label: 'p3 · medium' },
  { value: 4, label: 'p4 · normal' },
] as const;

/** Which field of the editor gets the focus when it opens. */
export type EditField = 'content' | 'due' | 'repeat' | 'priority' | 'project';

/**
 * What the due field will store, in words: "Fri Nov 27 15:00", "no due date", or why not. A task that
 * repeats (`rule`) needs a due to count its repeats from: left empty, it gets the first occurrence from
 * today, as the core gives one (src-main/core/domain/tasks.ts).
 */
export function duePreview(text: string, now: Date, rule: string | null = null): { due: string | null; words: string; ok: boolean } {
  const t = text.trim();
  if (!t && rule) {
    const first = firstOccurrence(rule, isoDay(now));
    if (first) return { due: first, words: `a repeating task needs a due date: ${dayPhrase(dueParts(first)!.day, now, true)}, its first repeat`, ok: true };
  }
  if (!t) return { due: null, words: 'no due date', ok: true };
  const due = parseDue(t, now);
  const p = dueParts(due);
  if (!due || !p) return { due: null, words: 'not a date I know — try "tomorrow", "fri 3pm" or 2026-12-24', ok: false };
  return { due, words: `${dayPhrase(p.day, now, true)}${p.time ? ` ${clockOf(p.time)}` : ''}`, ok: true };
}

/** The text the Repeats field starts with: the rule in words when they read back as the same rule, else the RRULE. */
export function repeatText(rule: string | null): string {
  if (!rule) return '';
  const words = recurrenceWords(rule);
  const back = readRepeat(words);
  return back.ok && back.rule === rule ? words : rule;
}

/** What the Repeats field will store, in words: "every Monday", "does not repeat", or why not. */
export function repeatPreview(reading: RepeatReading): { words: string; ok: boolean } {
  if (!reading.ok) return { words: `${reading.message} — ${reading.hint}`, ok: false };
  return { words: reading.rule ? `repeats ${recurrenceWords(reading.rule)}` : 'does not repeat', ok: true };
}

/** The inline editor of one task: Enter saves, Esc cancels. Each change is a logged, undoable operation. */
export function TaskEditor({ task, field, now, onClose }: { task: Task; field: EditField; now: Date; onClose: () => void }) {
  const editTask = useApp((s) => s.editTask);
  const archiveTask = useApp((s) => s.archiveTask);
  const projects = useApp((s) => s.projects.value);
  const [content, setContent] = useState(task.content);
  // The due in words the Due field reads back (never 2026-12-01T10:00); unchanged, it saves as stored.
  const startDue = task.due ? dueFieldText(task.due) : '';
  const [due, setDue] = useState(startDue);
  const startRepeat = repeatText(task.recurrence);
  const [repeat, setRepeat] = useState(startRepeat);
  const [priority, setPriority] = useState(task.priority);
  const [project, setProject] = useState(task.projectId);
  const [description, setDescription] = useState(task.description ?? '');
  const [deadline, setDeadline] = useState(task.deadline ?? '');
  const startDuration = durationText(task.durationMin);
  const [duration, setDuration] = useState(startDuration);
  const startLabels = (task.labels ?? []).join(' ');
  const [labels, setLabels] = useState(startLabels);
  const [section, setSection] = useState(task.sectionId ?? '');
  const sections = useApp((s) => s.sections[task.projectId]);
  const loadSections = useApp((s) => s.loadSections);
  useEffect(() => {
    void loadSections(task.projectId);
  }, [loadSections, task.projectId]);
  const deadlineShown = deadlinePreview(deadline, now);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const repeatReading = readRepeat(repeat);
  const repeatChanged = repeat.trim() !== startRepeat;
  // The rule the task will have: the typed one, or (unchanged or unreadable) the one it has.
  const rule = repeatReading.ok && repeatChanged ? repeatReading.rule : task.recurrence;
  const repeatShown = repeatPreview(repeatReading);
  const preview = duePreview(due, now, rule);

  useEffect(() => {
    const el = formRef.current?.querySelector<HTMLElement>(`[data-field="${field}"]`);
    el?.focus();
    if (el instanceof HTMLInputElement) el.select();
  }, [field]);

  const save = async () => {
    if (busy) return;
    if (!content.trim()) return setProblem({ message: 'A task needs some text.', hint: 'type what is to be done, or press Esc to keep it as it was', code: 'client' });
    if (!preview.ok) return setProblem({ message: `"${due.trim()}" is not a date Tidy understands.`, hint: 'try "tomorrow", "next fri 3pm", "in 3 days" or 2026-12-24; empty clears it', code: 'client' });
    if (!repeatReading.ok) return setProblem({ message: repeatReading.message, hint: repeatReading.hint, code: 'client' });
    if (!deadlineShown.ok) return setProblem({ message: `"${deadline.trim()}" is not a date Tidy understands.`, hint: 'try "friday", "dec 24" or 2026-12-24; empty clears the deadline', code: 'client' });
    setBusy(true);
    // An unchanged due stays exactly as stored (a date-time typed as it was parses to itself).
    const nextDue = due.trim() === startDue && (task.due !== null || !rule) ? task.due : preview.due;
    const rich = {
      ...(description !== (task.description ?? '') ? { description: description.trim() === '' ? null : description } : {}),
      ...(deadlineShown.date !== (task.deadline ?? null) ? { deadline: deadlineShown.date } : {}),
      // Typed as it was shown: unchanged; the core reads 45m, 2h, 1h30m or minutes.
      ...(duration.trim() !== startDuration ? { durationMin: duration.trim() === '' ? null : duration.trim() } : {}),
      ...(!sameLabels(readLabels(labels), task.labels ?? []) ? { labels: readLabels(labels) } : {}),
      // A section belongs to the task's project: after a move to another project it starts without one.
      ...(project === task.projectId && section !== (task.sectionId ?? '') ? { section: section === '' ? null : section } : {}),
    };
    const p = await editTask(task, { content: content.trim(), due: nextDue, priority, project, ...(repeatChanged ? { recurrence: repeatReading.rule } : {}), ...rich });
    setBusy(false);
    if (p) setProblem(p);
    else onClose();
  };

  const choices = projects ?? [{ id: task.projectId, name: task.project }];
  return (
    <form
      ref={formRef}
      className="task-edit"
      aria-label={`Edit task: ${task.content}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      onKeyDown={(e) => {
        // A choice list would keep Enter to itself: there it saves as in a text field (where the form submits).
        if (actionOf(TASK_EDITOR_KEYS, e.key) === 'save' && e.target instanceof HTMLSelectElement) {
          e.preventDefault();
          void save();
        } else if (actionOf(TASK_EDITOR_KEYS, e.key) === 'cancel') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <input
        className="input task-edit-content"
        data-field="content"
        aria-label="Task"
        value={content}
        onChange={(e) => setContent(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
      />
      <div className="task-edit-fields">
        <PreviewedField id={id} field="due" label="Due" value={due} placeholder="tomorrow, fri 3pm…" onChange={setDue} shown={preview} />
        <PreviewedField id={id} field="repeat" label="Repeats" value={repeat} placeholder="every monday, every 2 weeks…" onChange={setRepeat} shown={repeatShown} />
        {repeat.trim() !== '' && (
          <button
            type="button"
            className="btn ghost small"
            onClick={() => {
              setRepeat('');
              // The button goes with the text: the focus stays on the field.
              formRef.current?.querySelector<HTMLElement>('[data-field="repeat"]')?.focus();
            }}
          >
            Stop repeating
          </button>
        )}
        <label className="task-edit-field">
          <span>Priority</span>
          <select className="input" data-field="priority" aria-label="Priority" value={priority} onChange={(e) => setPriority(Number(e.target.value))}>
            {PRIORITIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <label className="task-edit-field">
          <span>Project</span>
          <select className="input" data-field="project" aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)}>
            {choices.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        {project === task.projectId && (sections?.length ?? 0) + (task.sectionId ? 1 : 0) > 0 && (
          <label className="task-edit-field">
            <span>Section</span>
            <select className="input" data-field="section" aria-label="Section" value={section} onChange={(e) => setSection(e.target.value)}>
              <option value="">No section</option>
              {task.sectionId && !sections?.some((x) => x.id === task.sectionId) && <option value={task.sectionId}>{task.section ?? task.sectionId}</option>}
              {(sections ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <div className="task-edit-fields">
        <PreviewedField id={id} field="deadline" label="Deadline" value={deadline} placeholder="friday, dec 24…" onChange={setDeadline} shown={deadlineShown} />
        <label className="task-edit-field">
          <span>Duration</span>
          <input className="input short" data-field="duration" aria-label="Duration" value={duration} placeholder="45m, 2h…" onChange={(e) => setDuration(e.target.value)} />
        </label>
        <label className="task-edit-field">
          <span>Labels</span>
          <input className="input" data-field="labels" aria-label="Labels" value={labels} placeholder="@home @errands" onChange={(e) => setLabels(e.target.value)} />
        </label>
      </div>
      <label className="task-edit-field task-edit-description">
        <span>Description</span>
        <textarea
          className="input"
          data-field="description"
          aria-label="Description"
          value={description}
          rows={Math.min(12, Math.max(3, description.split('\n').length + 1))}
          placeholder="Notes, links, a checklist… (Markdown)"
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      {description.trim() !== '' && (
        <section className="task-edit-notes" aria-label="Description as shown">
          <Markdown source={description} />
        </section>
      )}
      <div className="task-edit-actions">
        <button type="submit" className="btn primary small" disabled={busy}>
          Save
        </button>
        <button type="button" className="btn small" onClick={onClose}>
          Cancel
        </button>
        <span className="grow" />
        <button
          type="button"
          className="btn ghost small"
          onClick={() => {
            void archiveTask(task);
          }}
        >
          Archive task
        </button>
      </div>
      <FieldError id={`${id}-problem`} problem={problem} />
      <Comments task={task} />
      <SyncHistory
        table="tasks"
        row={task.id}
        name={task.content}
        labels={TASK_HISTORY_LABELS}
        restore={{ columns: TASK_RESTORABLE, run: (c) => editTask(task, { [TASK_RESTORE_FIELDS[c.column]!]: c.lostValue } as TaskPatch) } satisfies SyncRestore}
        onRestored={(column, value) => {
          // the fields show the restored value, so a Save after it does not write the overwritten one back
          if (column === 'content') setContent(String(value ?? ''));
          if (column === 'description') setDescription(String(value ?? ''));
          if (column === 'priority' && typeof value === 'number') setPriority(value);
        }}
      />
    </form>
  );
}

/** A task's columns in its sync history. */
const TASK_HISTORY_LABELS: Record<string, string> = {
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
const TASK_RESTORE_FIELDS: Record<string, string> = { content: 'content', description: 'description', priority: 'priority', due: 'due', deadline: 'deadline', duration_min: 'durationMin' };
const TASK_RESTORABLE = new Set(Object.keys(TASK_RESTORE_FIELDS));

/** What the deadline field will store: a date (words as in quick add), none, or why not. */
/** An editor field whose words are read as typed: the input, and the line saying what it will store (marked when unread). */
function PreviewedField(p: { id: string; field: string; label: string; value: string; placeholder: string; onChange: (v: string) => void; shown: { ok: boolean; words: string } }) {
  const described = `${p.id}-${p.field}`;
  return (
    <>
      <label className="task-edit-field">
        <span>{p.label}</span>
        <input
          className="input"
          data-field={p.field}
          aria-label={p.label}
          value={p.value}
          placeholder={p.placeholder}
          onChange={(e) => p.onChange(e.target.value)}
          aria-describedby={described}
          aria-invalid={p.shown.ok ? undefined : true}
        />
      </label>
      <span id={described} className={`task-edit-preview${p.shown.ok ? '' : ' bad'}`}>
        {p.shown.words}
      </span>
    </>
  );
}

export function deadlinePreview(text: string, now: Date): { date: string | null; words: string; ok: boolean } {
  const t = text.trim();
  if (!t) return { date: null, words: 'no deadline', ok: true };
  const due = parseDue(t, now);
  const p = dueParts(due);
  if (!due || !p) return { date: null, words: 'not a date I know — try "friday", "dec 24" or 2026-12-24', ok: false };
  return { date: due.slice(0, 10), words: `must be done by ${dayPhrase(p.day, now, true)}`, ok: true };
}

/** A task's comments (dated notes, Markdown), oldest first, and a field to add one (logged, undoable). */
function Comments({ task }: { task: Task }) {
  const comments = useApp((s) => s.comments[task.id]);
  const loadComments = useApp((s) => s.loadComments);
  const addComment = useApp((s) => s.addComment);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    void loadComments(task.id);
  }, [loadComments, task.id]);
  const list = comments?.value ?? [];
  const add = async () => {
    if (!text.trim() || busy) return;
    setBusy(true);
    const p = await addComment(task.id, text);
    setBusy(false);
    setProblem(p);
    if (!p) setText('');
  };
  return (
    <section className="task-comments" aria-labelledby={`${id}-head`}>
      <h3 id={`${id}-head`}>
        Comments <span className="count">{list.length}</span>
      </h3>
      <FieldError problem={comments?.problem?.message} role={null} />
      {list.length > 0 && (
        <ol className="comment-list" aria-label={`Comments on ${task.content}`}>
          {list.map((c) => (
            <li key={c.id} className="comment">
              <time dateTime={c.createdAt} className="muted">
                {new Date(c.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
              </time>
              <Markdown source={c.text} />
            </li>
          ))}
        </ol>
      )}
      <div className="comment-add">
        <textarea
          className="input"
          aria-label="New comment"
          rows={2}
          placeholder="Add a comment…"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
        />
        <button type="button" className="btn small" disabled={busy || !text.trim()} onClick={() => void add()}>
          Add comment
        </button>
      </div>
      <FieldError id={`${id}-problem`} problem={problem} />
    </section>
  );
}
