/// <reference types="vite/client" />
/**
 * The one field every "add a task" place uses (the Inbox, a project, the quick-capture window): as the
 * user types, the parts the quick-add grammar recognises (src-shared/quickadd.ts) are highlighted in the
 * text, and a line under it says what will be stored: the due, the project, the priority, the repeat, the
 * labels, the deadline and the duration.
 * An unknown #name is marked and said to stay in the text.
 *
 * The highlights are a mirror of the text drawn under a transparent-background input (same font, padding
 * and scroll), so the field stays a plain <input> for the keyboard, the IME and screen readers.
 */
import { forwardRef, useEffect, useId, useMemo, useRef, type InputHTMLAttributes, type ReactNode } from 'react';
import { parseQuickAdd, type QuickAdd } from '../../../src-shared/quickadd';
import { recurrenceWords } from '../../../src-shared/repeat-rules';
import { dayPhrase, dueParts } from '../../lib/due';
import { clockOf } from '../../lib/when';
import { useApp } from '../../store/react';
import { AddForm, type AddFieldProps } from '../../ui/common';
import type { DataForm } from './data-slice';
import type { AddBox, AddDefaults } from './slice';
import { durationText } from './tree';
import '../../styles/tasks-ui.css';
import '../../styles/tasks-rich.css';

/** What will be stored, as short phrases: "due tomorrow · Tue Nov 24 09:00", "in Birthday Celebration", "p1", "every Monday". */
export function quickAddSummary(q: QuickAdd, now: Date): { label: string; text: string; kind: string }[] {
  const out: { label: string; text: string; kind: string }[] = [];
  const p = dueParts(q.due);
  if (p) out.push({ kind: 'date', label: 'Due', text: `${dayPhrase(p.day, now)}${p.time ? ` ${clockOf(p.time)}` : ''}` });
  if (q.project) out.push({ kind: 'project', label: 'Project', text: q.project.name });
  if (q.priority) out.push({ kind: 'priority', label: 'Priority', text: `p${q.priority}` });
  if (q.recurrence) out.push({ kind: 'recurrence', label: 'Repeats', text: recurrenceWords(q.recurrence) });
  if (q.labels.length) out.push({ kind: 'label', label: 'Labels', text: q.labels.map((l) => `@${l}`).join(' ') });
  const d = dueParts(q.deadline);
  if (d) out.push({ kind: 'deadline', label: 'Deadline', text: dayPhrase(d.day, now) });
  if (q.durationMin) out.push({ kind: 'duration', label: 'Takes', text: durationText(q.durationMin) });
  return out;
}

/** The text cut into plain runs and marked parts (the recognised ones, and an unknown #name). */
function segments(text: string, q: QuickAdd): ReactNode[] {
  const marks: { start: number; end: number; kind: string }[] = q.parts.map((p) => ({ start: p.start, end: p.end, kind: p.kind }));
  if (q.unknownProject) {
    const at = text.toLowerCase().indexOf(`#${q.unknownProject.toLowerCase()}`);
    if (at >= 0 && !marks.some((m) => at < m.end && m.start < at + q.unknownProject!.length + 1))
      marks.push({ start: at, end: at + q.unknownProject.length + 1, kind: 'unknown' });
  }
  if (q.unread) {
    const at = text.toLowerCase().indexOf(q.unread.toLowerCase());
    if (at >= 0 && !marks.some((m) => at < m.end && m.start < at + q.unread!.length)) marks.push({ start: at, end: at + q.unread.length, kind: 'unknown' });
  }
  marks.sort((a, b) => a.start - b.start);
  const out: ReactNode[] = [];
  let at = 0;
  for (const [i, m] of marks.entries()) {
    if (m.start < at) continue;
    if (m.start > at) out.push(text.slice(at, m.start));
    out.push(
      <mark key={i} className={`qa-${m.kind}`}>
        {text.slice(m.start, m.end)}
      </mark>,
    );
    at = m.end;
  }
  out.push(text.slice(at));
  // A trailing space would collapse in the mirror and put it out of step with the caret.
  out.push('\u200b');
  return out;
}

/** Reads `text` with the loaded projects (loading them once if no view has yet). */
export function useQuickAdd(text: string): QuickAdd {
  const projects = useApp((s) => s.projects.value);
  const loadProjects = useApp((s) => s.loadProjects);
  // Once per field: a failed load is not retried in a loop (the views say what failed).
  const asked = useRef(false);
  useEffect(() => {
    if (projects !== null || asked.current) return;
    asked.current = true;
    void loadProjects();
  }, [projects, loadProjects]);
  // Parsed against the minute: "today 9am" turns into tomorrow's date at 9:01 without a re-render storm.
  const minute = Math.floor(Date.now() / 60_000);
  return useMemo(() => parseQuickAdd(text, { projects: projects ?? [], now: new Date(minute * 60_000) }), [text, projects, minute]);
}

interface QuickAddInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> {
  value: string;
  onValue(value: string): void;
  parsed: QuickAdd;
  /** The id of the summary line (for aria-describedby, and to put it where the form wants it). */
  summaryId: string;
}

/** The input with its highlights. The summary line is `<QuickAddSummary>`, placed by the caller. */
export const QuickAddInput = forwardRef<HTMLInputElement, QuickAddInputProps>(function QuickAddInput({ value, onValue, parsed, summaryId, className, ...rest }, ref) {
  const mirror = useRef<HTMLDivElement>(null);
  const sync = (el: HTMLInputElement) => {
    if (mirror.current) mirror.current.scrollLeft = el.scrollLeft;
  };
  return (
    <div className="qa-box">
      <div ref={mirror} className="qa-mirror input" aria-hidden="true">
        {segments(value, parsed)}
      </div>
      <input
        ref={ref}
        {...rest}
        className={`input qa-input${className ? ` ${className}` : ''}`}
        value={value}
        aria-describedby={[rest['aria-describedby'], summaryId].filter(Boolean).join(' ')}
        onChange={(e) => {
          onValue(e.target.value);
          sync(e.target);
        }}
        onScroll={(e) => sync(e.currentTarget)}
        onKeyUp={(e) => sync(e.currentTarget)}
        onSelect={(e) => sync(e.currentTarget)}
      />
    </div>
  );
});

/** The text with its first `#name` (the unknown one) made `#Project` (the suggestion taken). */
export function withProjectName(text: string, unknown: string, project: string): string {
  const at = text.toLowerCase().indexOf(`#${unknown.toLowerCase()}`);
  return at < 0 ? text : `${text.slice(0, at)}#${project}${text.slice(at + 1 + unknown.length)}`;
}

/** What the preview offers for an unknown #name: taking the nearest project's name, or creating the project. */
interface UnknownProjectActions {
  onUseProject?(name: string): void;
  onCreateProject?(): void;
}

/** "Due tomorrow · Tue Nov 24 · Project Birthday Celebration · p1", or the unknown #name, or a hint. */
export function QuickAddSummary({ id, parsed, hint, onUseProject, onCreateProject }: { id: string; parsed: QuickAdd; hint?: string } & UnknownProjectActions) {
  const items = quickAddSummary(parsed, new Date());
  return (
    <p id={id} className="qa-summary">
      {items.map((s) => (
        <span key={s.kind} className={`qa-chip qa-${s.kind}`}>
          <span className="qa-chip-label">{s.label}</span> {s.text}
        </span>
      ))}
      {parsed.unknownProject && (
        <span className="qa-chip qa-unknown">
          No project “{parsed.unknownProject}”: it stays in the text
          {parsed.projectSuggestion && <> · Did you mean {parsed.projectSuggestion.name}?</>}
        </span>
      )}
      {parsed.unknownProject && parsed.projectSuggestion && onUseProject && (
        <button type="button" className="btn small" onClick={() => onUseProject(parsed.projectSuggestion!.name)}>
          Use {parsed.projectSuggestion.name}
        </button>
      )}
      {parsed.unknownProject && onCreateProject && (
        <button type="button" className="btn small" onClick={onCreateProject}>
          Create project {parsed.unknownProject}
        </button>
      )}
      {parsed.unread && <span className="qa-chip qa-unknown">“{parsed.unread}” is not a repeat Tidy reads: it stays in the text</span>}
      {items.length === 0 && !parsed.unknownProject && !parsed.unread && hint && <span className="muted">{hint}</span>}
    </p>
  );
}

const HINT = 'Try “tomorrow 9am”, “#Project”, “p1”, “every monday”';

/** The task boxes' field: the line highlighted as read, the button, and the preview with its offers for an unknown #name. */
function QuickAddField({ value, onValue, inputRef, input, button, busy, run, box, defaults }: AddFieldProps & { box: AddBox; defaults: AddDefaults }) {
  const addTask = useApp((s) => s.addTask);
  const parsed = useQuickAdd(value);
  const summaryId = useId();
  return (
    <>
      <div className="add-form">
        <QuickAddInput {...input} value={value} onValue={onValue} parsed={parsed} summaryId={summaryId} ref={inputRef} />
        {button}
      </div>
      <QuickAddSummary
        id={summaryId}
        parsed={parsed}
        hint={value.trim() ? undefined : HINT}
        onUseProject={(name) => {
          if (parsed.unknownProject) onValue(withProjectName(value, parsed.unknownProject, name));
          inputRef.current?.focus();
        }}
        onCreateProject={() => {
          if (!busy) run(async () => (await addTask(box, value, { ...defaults, createProject: true })).ok);
        }}
      />
    </>
  );
}

/**
 * The box that adds a task (the Inbox, Today, Upcoming, a project): the one add form with the quick-add
 * field, sent by the tasks slice's `addTask` (the one route, the capture window's too) with the box's
 * defaults. Its refusal is the store's `formProblems[box]`.
 */
export function TaskAddForm({ label, placeholder, box, defaults = {} }: { label: string; placeholder?: string; box: DataForm; defaults?: AddDefaults }) {
  const addTask = useApp((s) => s.addTask);
  const problem = useApp((s) => s.formProblems[box]);
  const Field = useMemo(() => (props: AddFieldProps) => <QuickAddField {...props} box={box} defaults={defaults} />, [box, JSON.stringify(defaults)]);
  return <AddForm className="quick-add" label={label} button="Add" placeholder={placeholder} problem={problem} Field={Field} onAdd={async (text) => (await addTask(box, text, defaults)).ok} />;
}
