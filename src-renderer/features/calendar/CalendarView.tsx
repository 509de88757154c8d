/**
 * The Calendar view: a week or a day of every calendar's events, coloured by calendar (the legend lists
 * the calendars, with Remove for imported ones), free time within working hours, today and now marked.
 * Keys (outside text fields, from src-renderer/ui/keymaps.ts, which the help shows): N / P the next / previous event, ← / → or PageUp /
 * PageDown the previous / next week or day, T today, W week, D day, Esc closes an event's details. An .ics file is imported from the picker or by dropping it on the view.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState, type CSSProperties, type DragEvent, type KeyboardEvent } from 'react';
import { PERSONAL_CALENDAR_ID } from '../../../src-shared/calendar';
import { actionOf, CALENDAR_KEYS } from '../../ui/keymaps';
import { isTyping } from '../../ui/shortcuts';
import type { Problem } from '../../lib/problem';
import { useApp } from '../../store/react';
import { ProblemAlert, ViewHead } from '../../ui/common';
import { addLocalDays, daysOf, DEFAULT_WORKING_HOURS, localDateOf, parseWorkDays, type WorkingHours } from './layout';
import { EventDetails } from './EventDetails';
import { formatDay, personOf, type CalEvent, type CalendarInfo } from './model';
import { WeekGrid } from './WeekGrid';
import '../../styles/calendar-ui.css';
import { FieldError } from '../../ui/FieldError';

const monthFmt = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const shortFmt = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });

/** "24 – 30 Nov 2026", or the day. */
function rangeLabel(days: number[]): string {
  if (days.length === 1) return `${formatDay(days[0]!)} ${new Date(days[0]!).getFullYear()}`;
  const last = days[days.length - 1]!;
  return `${shortFmt.format(days[0]!)} – ${shortFmt.format(last)} ${new Date(last).getFullYear()}`;
}

const ICS = /\.(ics|ical|ifb|icalendar)$/i;

/** A refusal in words when the chosen or dropped file is not an iCalendar file; null when it is. */
function notIcs(file: File): Problem | null {
  if (ICS.test(file.name) || file.type === 'text/calendar') return null;
  return { code: 'client', message: 'it is not an iCalendar file', hint: 'choose a .ics file (exported from Google, Outlook or Apple Calendar)' };
}

export function CalendarView() {
  const calAnchor = useApp((s) => s.calAnchor);
  const calMode = useApp((s) => s.calMode);
  const calEvents = useApp((s) => s.calEvents);
  const calendars = useApp((s) => s.calendars);
  const settings = useApp((s) => s.settings.value);
  const importProblem = useApp((s) => s.importProblem);
  const importing = useApp((s) => s.importing);
  const loadCalendar = useApp((s) => s.loadCalendar);
  const loadCalendarsList = useApp((s) => s.loadCalendarsList);
  const loadSettings = useApp((s) => s.loadSettings);
  const showCalendarAt = useApp((s) => s.showCalendarAt);
  const stepCalendar = useApp((s) => s.stepCalendar);
  const importCalendar = useApp((s) => s.importCalendar);
  const refuseImport = useApp((s) => s.refuseImport);
  const goToEvent = useApp((s) => s.goToEvent);

  const [selected, setSelected] = useState<{ id: string; opener: HTMLElement | null } | null>(null);
  const [dragging, setDragging] = useState(false);
  const [person, setPerson] = useState('');
  const fileRef = useRef<HTMLInputElement>(null);
  const personId = useId();

  useEffect(() => {
    void loadCalendarsList();
    void loadCalendar();
    if (!settings) void loadSettings();
    // Once per visit: the calendar refreshes itself on data.changed (store/views.ts).
  }, []);

  const days = useMemo(() => daysOf(calAnchor, calMode), [calAnchor, calMode]);
  const page = calEvents.value;
  const shownRange = page && page.from === days[0] && page.to === addLocalDays(days[days.length - 1]!, 1);
  const events = useMemo(() => (page && shownRange ? page.events : []), [page, shownRange]);
  const hours: WorkingHours = useMemo(() => {
    const s = settings as { workStart?: unknown; workEnd?: unknown; workDays?: unknown } | null;
    return {
      start: typeof s?.workStart === 'string' ? s.workStart : DEFAULT_WORKING_HOURS.start,
      end: typeof s?.workEnd === 'string' ? s.workEnd : DEFAULT_WORKING_HOURS.end,
      days: parseWorkDays(s?.workDays) ?? DEFAULT_WORKING_HOURS.days,
    };
  }, [settings]);
  const ownCalendars = useMemo(() => new Set((calendars.value ?? []).filter((c) => personOf(c) === null).map((c) => c.id).concat(PERSONAL_CALENDAR_ID)), [calendars.value]);
  const selectedEvent = selected ? (events.find((e) => e.id === selected.id) ?? null) : null;

  const onSelect = useCallback((e: CalEvent, opener: HTMLElement) => setSelected((s) => (s?.id === e.id ? null : { id: e.id, opener })), []);
  const onOpenDay = useCallback((d: number) => void showCalendarAt(d, 'day'), [showCalendarAt]);
  const closeDetails = () => {
    const opener = selected?.opener;
    setSelected(null);
    // Back to the event it was opened from (or, if that is gone after a refresh, its replacement).
    setTimeout(() => (opener?.isConnected ? opener : document.querySelector<HTMLElement>(`[data-event-id="${CSS.escape(selected?.id ?? '')}"]`))?.focus(), 0);
  };

  const importFiles = async (files: FileList | File[] | null) => {
    for (const file of files ? [...files] : []) {
      const problem = notIcs(file);
      if (problem) {
        refuseImport({ fileName: file.name, problem });
        return;
      }
      if (!(await importCalendar(file, person.trim() || undefined))) return;
    }
    setPerson('');
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    const action = actionOf(CALENDAR_KEYS, e.key);
    if (action === 'close' && selected) closeDetails();
    else if (action === 'previous') void stepCalendar(-1);
    else if (action === 'next') void stepCalendar(1);
    else if (action === 'today') void stepCalendar(0);
    else if (action === 'week') void showCalendarAt(calAnchor, 'week');
    else if (action === 'day') void showCalendarAt(calAnchor, 'day');
    else if (action === 'nextEvent') void goToEvent('next');
    else if (action === 'previousEvent') void goToEvent('previous');
    else return;
    e.preventDefault();
  };

  const isFileDrag = (e: DragEvent) => [...e.dataTransfer.types].includes('Files');
  const unit = calMode === 'week' ? 'week' : 'day';

  return (
    <div
      className={`calendar-view${dragging ? ' dropping' : ''}`}
      onKeyDown={onKeyDown}
      onDragEnter={(e) => {
        if (!isFileDrag(e)) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragOver={(e) => {
        if (!isFileDrag(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        if (!isFileDrag(e)) return;
        e.preventDefault();
        setDragging(false);
        void importFiles(e.dataTransfer.files);
      }}
    >
      <ViewHead title="Calendar">
        <span className="cal-range" aria-live="polite">
          {rangeLabel(days)}
          <span className="visually-hidden">{calMode === 'week' ? `, week of ${monthFmt.format(days[0]!)}` : ''}</span>
        </span>
      </ViewHead>
      <div className="cal-toolbar" role="toolbar" aria-label="Calendar" data-pane="list">
        <div className="row">
          <button type="button" className="btn small" aria-keyshortcuts="ArrowLeft PageUp" onClick={() => void stepCalendar(-1)} aria-label={`Previous ${unit}`} title={`Previous ${unit} (←)`}>
            ‹
          </button>
          <button type="button" className="btn small" aria-keyshortcuts="T" onClick={() => void stepCalendar(0)} title="Today (T)">
            Today
          </button>
          <button type="button" className="btn small" aria-keyshortcuts="ArrowRight PageDown" onClick={() => void stepCalendar(1)} aria-label={`Next ${unit}`} title={`Next ${unit} (→)`}>
            ›
          </button>
        </div>
        {/* An imported calendar may have nothing near today: these find its events wherever they are. */}
        <div className="row cal-jump">
          <button type="button" className="btn small" aria-keyshortcuts="P" onClick={() => void goToEvent('previous')} title="The last event before the shown days (P)">
            ‹ Previous event
          </button>
          <button type="button" className="btn small" aria-keyshortcuts="N" onClick={() => void goToEvent('next')} title="The first event after the shown days (N)">
            Next event ›
          </button>
          <input
            type="date"
            className="input small"
            aria-label="Go to date"
            title="Go to date"
            value={localDateOf(days[0]!)}
            onChange={(e) => {
              const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(e.target.value);
              if (m) void showCalendarAt(new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime());
            }}
          />
        </div>
        <div className="row cal-modes" role="group" aria-label="Show">
          <button type="button" className="btn small" aria-pressed={calMode === 'week'} aria-keyshortcuts="W" onClick={() => void showCalendarAt(calAnchor, 'week')}>
            Week
          </button>
          <button type="button" className="btn small" aria-pressed={calMode === 'day'} aria-keyshortcuts="D" onClick={() => void showCalendarAt(calAnchor, 'day')}>
            Day
          </button>
        </div>
        <div className="row cal-import">
          <label htmlFor={personId} className="visually-hidden">
            Whose calendar (optional)
          </label>
          <input id={personId} className="input small" placeholder="Whose? (optional)" value={person} onChange={(e) => setPerson(e.target.value)} maxLength={200} />
          <button type="button" className="btn small" disabled={importing} onClick={() => fileRef.current?.click()}>
            {importing ? 'Importing…' : 'Import .ics…'}
          </button>
          <input
            ref={fileRef}
            type="file"
            accept=".ics,.ical,.ifb,text/calendar"
            multiple
            hidden
            onChange={(e) => {
              const files = e.target.files ? [...e.target.files] : [];
              e.target.value = '';
              void importFiles(files);
            }}
          />
        </div>
      </div>
      {importProblem && (
        <div className="cal-alert">
          <div className="alert cal-import-problem" role="alert">
            <p>
              <strong>Could not import {importProblem.fileName}:</strong> {importProblem.problem.message}
              {importProblem.problem.hint && <span className="muted"> — {importProblem.problem.hint}</span>}
            </p>
            <button type="button" className="btn small" onClick={() => refuseImport(null)}>
              Dismiss
            </button>
          </div>
        </div>
      )}
      <CalendarLegend calendars={calendars.value ?? []} />
      {calEvents.problem && <ProblemAlert problem={calEvents.problem} title="Could not load the calendar" />}
      {page?.truncated && shownRange && <p className="cal-note">Only the first {page.events.length.toLocaleString()} events of this range are shown.</p>}
      <div className="cal-main" data-pane="main">
        <WeekGrid days={days} events={events} hours={hours} ownCalendars={ownCalendars} selectedId={selectedEvent?.id ?? null} onSelect={onSelect} onOpenDay={onOpenDay} />
        {selectedEvent && <EventDetails event={selectedEvent} onClose={closeDetails} />}
        {calEvents.loading && !shownRange && (
          <p className="cal-loading" role="status">
            Loading events…
          </p>
        )}
      </div>
      {dragging && (
        <div className="cal-drop" aria-hidden="true">
          Drop an .ics file to import it
        </div>
      )}
    </div>
  );
}

/**
 * The calendars with their colours; each can be renamed, an imported one removed (actions in the log:
 * Ctrl+Z brings the old name or the calendar back).
 */
function CalendarLegend({ calendars }: { calendars: CalendarInfo[] }) {
  const removeCalendar = useApp((s) => s.removeCalendar);
  const [renaming, setRenaming] = useState<string | null>(null);
  if (calendars.length === 0) return null;
  return (
    <ul className="cal-legend" aria-label="Calendars">
      {calendars.map((c) => {
        const who = personOf(c);
        if (renaming === c.id) return <RenameCalendar key={c.id} calendar={c} done={() => setRenaming(null)} />;
        return (
          <li key={c.id} className={c.kind === 'imported' ? 'removable' : undefined} style={{ '--cal-colour': c.colour } as CSSProperties}>
            <span className="cal-swatch" aria-hidden="true" />
            <span>
              {c.name}
              {who && who !== c.name && <span className="muted"> ({who})</span>}
              <span className="visually-hidden">
                , {c.readOnly ? 'imported, read-only' : 'yours'}, {c.events.toLocaleString()} {c.events === 1 ? 'event' : 'events'}
              </span>
            </span>
            <button type="button" className="btn small ghost" aria-label={`Rename calendar ${c.name}`} title="Rename this calendar (undo with Ctrl+Z)" onClick={() => setRenaming(c.id)}>
              Rename
            </button>
            {c.kind === 'imported' && (
              <button type="button" className="btn small ghost" aria-label={`Remove calendar ${c.name}`} title="Remove this calendar (undo with Ctrl+Z)" onClick={() => void removeCalendar(c.id)}>
                Remove
              </button>
            )}
          </li>
        );
      })}
      <li className="cal-legend-free">
        <span className="cal-swatch" aria-hidden="true" />
        <span>Free: your own time in working hours</span>
      </li>
    </ul>
  );
}

/** A calendar's name in a field: Enter or Save renames it, Esc or Cancel leaves it; a refusal stays by the field. */
function RenameCalendar({ calendar, done }: { calendar: CalendarInfo; done: () => void }) {
  const renameCalendar = useApp((s) => s.renameCalendar);
  const [name, setName] = useState(calendar.name);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const errorId = useId();
  const save = async () => {
    if (busy) return;
    if (name.trim() === calendar.name) return done();
    setBusy(true);
    const p = await renameCalendar(calendar.id, name);
    setBusy(false);
    if (p) setProblem(p);
    else done();
  };
  return (
    <li className="cal-rename" style={{ '--cal-colour': calendar.colour } as CSSProperties}>
      <form
        className="cal-rename-form"
        aria-label={`Rename calendar ${calendar.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
      <span className="cal-swatch" aria-hidden="true" />
      <input
        className="input small"
        aria-label={`New name for calendar ${calendar.name}`}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? errorId : undefined}
        value={name}
        maxLength={120}
        autoFocus
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => {
          // Esc leaves the field as it was; the view's own Esc (close the event's details) is not meant here.
          if (actionOf(CALENDAR_KEYS, e.key) !== 'close') return;
          e.preventDefault();
          e.stopPropagation();
          done();
        }}
      />
      <button type="submit" className="btn small" disabled={busy || !name.trim()}>
        Save
      </button>
      <button type="button" className="btn small ghost" onClick={done}>
        Cancel
      </button>
      <FieldError as="span" id={errorId} problem={problem} />
      </form>
    </li>
  );
}
