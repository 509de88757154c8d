/**
 * The calendar: the shown range (a week or a day), its events from every calendar, the calendars with
 * their colours, today's events (for the Today view), imports of .ics files, and the edits made on an
 * approval card's event form (sent as `args` with the approval, src-renderer/features/chat/slice.ts).
 */
import { BridgeError } from '../../../src-shared/bridge';
import type { CalendarEvent, ImportReport } from '../../../src-shared/calendar';
import type { Task } from '../../../src-shared/domain';
import { toProblem, type Problem } from '../../lib/problem';
import { sendFile, type FileLike } from '../../lib/upload';
import type { EditedArgs } from './approval';
import { addLocalDays, daysOf, parseEventTime, step } from './layout';
import { toEvents, type CalEvent, type CalendarInfo } from './model';
import { createCoalescer } from '../../lib/coalesce';
import { idle, loadInto, type Loadable } from '../../store/loadable';
import { attempt, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

type CalendarMode = 'week' | 'day';

interface CalendarPage {
  /** The range asked for, epoch ms [from, to). */
  from: number;
  to: number;
  events: CalEvent[];
  /** More events than the core sends at once fell in the range. */
  truncated: boolean;
}

/** The edited arguments of an approval's form, and why they cannot be sent yet (null when they can). */
type ApprovalEdit = EditedArgs;

export interface CalendarSlice {
  /** A moment inside the shown range. */
  calAnchor: number;
  calMode: CalendarMode;
  calendars: Loadable<CalendarInfo[]>;
  calEvents: Loadable<CalendarPage>;
  todayEvents: Loadable<CalendarPage>;
  /** The last import's refusal (one line) and the file it was about, or null. */
  importProblem: { fileName: string; problem: Problem } | null;
  importing: boolean;
  /** The task an opened event blocks time for. */
  linkedTask: Loadable<Task>;
  /** Edits of approval forms, by approvalKey (features/chat/slice.ts). */
  approvalEdits: Record<string, ApprovalEdit>;
  loadCalendarsList(): Promise<void>;
  showCalendarAt(anchor: number, mode?: CalendarMode): Promise<void>;
  /** Previous (-1) or next (+1) week or day; 0 for today. */
  stepCalendar(steps: -1 | 0 | 1): Promise<void>;
  loadCalendar(): Promise<void>;
  loadTodayEvents(): Promise<void>;
  refreshCalendar(): Promise<void>;
  /** Imports an .ics file's text; true when it worked (a refusal is in importProblem). */
  /** Sends an .ics file (lib/upload.ts) and imports it; false, with importProblem set, when refused. */
  importCalendar(file: FileLike, person?: string): Promise<boolean>;
  /** A file that cannot be sent (too big, not text): its refusal, shown like the core's; null dismisses. */
  refuseImport(refusal: { fileName: string; problem: Problem } | null): void;
  removeCalendar(id: string): Promise<boolean>;
  /** Renames a calendar (logged, undoable): null when it worked, else the problem for the field. */
  renameCalendar(id: string, name: string): Promise<Problem | null>;
  /** Moves an event to a new start and end (logged, undoable; a planned block is pinned): null when it worked, else the problem for the form. */
  moveEventTime(e: CalEvent, start: string, end: string): Promise<Problem | null>;
  /**
   * Shows the week (or day) of the nearest event after the shown range (`next`) or before it
   * (`previous`), in any calendar; when there is none, a notice says so. The event found, or null.
   */
  goToEvent(direction: 'next' | 'previous'): Promise<CalendarEvent | null>;
  setApprovalEdit(key: string, edit: ApprovalEdit | null): void;
  loadLinkedTask(taskId: string): Promise<void>;
}

declare module '../../store/types' {
  interface AppState extends CalendarSlice {}
}

const toRange = (anchor: number, mode: CalendarMode) => {
  const days = daysOf(anchor, mode);
  return { from: days[0]!, to: addLocalDays(days[days.length - 1]!, 1) };
};

export const createCalendarSlice =
  ({ api, now }: Deps): SliceCreator<CalendarSlice> =>
  (set, get) => {
    const coalesce = createCoalescer();

    const fetchRange = async (from: number, to: number): Promise<CalendarPage> => {
      const { events, truncated } = await api.invoke('events.list', { from: new Date(from).toISOString(), to: new Date(to).toISOString() });
      return { from, to, events: toEvents(events), truncated };
    };

    return {
      calAnchor: now(),
      calMode: 'week',
      calendars: idle(),
      calEvents: idle(),
      todayEvents: idle(),
      importProblem: null,
      importing: false,
      approvalEdits: {},
      linkedTask: idle(),

      loadCalendarsList: () => coalesce('calendars', () => loadInto(set, 'calendars', () => api.invoke('calendars.list', {}))),

      showCalendarAt: async (anchor, mode) => {
        set((s) => ({ calAnchor: anchor, calMode: mode ?? s.calMode }));
        await get().loadCalendar();
      },
      stepCalendar: async (steps) => {
        const s = get();
        await s.showCalendarAt(steps === 0 ? now() : step(s.calAnchor, s.calMode, steps));
      },
      loadCalendar: () =>
        coalesce('calEvents', () =>
          loadInto(set, 'calEvents', async () => {
            const { calAnchor, calMode } = get();
            const { from, to } = toRange(calAnchor, calMode);
            const page = await fetchRange(from, to);
            // Moved on meanwhile: this page is not what is shown any more.
            const still = toRange(get().calAnchor, get().calMode);
            return still.from === from && still.to === to ? page : undefined;
          }),
        ),
      loadTodayEvents: () =>
        coalesce('todayEvents', () =>
          loadInto(set, 'todayEvents', () => {
            const from = daysOf(now(), 'day')[0]!;
            return fetchRange(from, addLocalDays(from, 1));
          }),
        ),
      refreshCalendar: async () => {
        const s = get();
        const shown = (l: Loadable<unknown>) => l.value !== null || l.loading || l.problem !== null;
        if (shown(s.calendars)) await s.loadCalendarsList();
        await Promise.all([shown(s.calEvents) ? s.loadCalendar() : null, shown(s.todayEvents) ? s.loadTodayEvents() : null]);
      },

      importCalendar: async (file, person) => {
        const fileName = file.name;
        set({ importing: true, importProblem: null });
        try {
          const upload = await sendFile(api, file);
          const { value } = await api.invoke('calendars.importUpload', { upload, ...(person ? { person } : {}) });
          set({ importing: false });
          get().notify(importSummary(fileName, value));
          return true;
        } catch (e) {
          set({ importing: false, importProblem: { fileName, problem: toProblem(e) } });
          return false;
        }
      },
      refuseImport: (refusal) => set({ importProblem: refusal }),
      removeCalendar: async (id) => {
        const name = get().calendars.value?.find((c) => c.id === id)?.name ?? id;
        const r = await request(get, () => api.invoke('calendars.remove', { calendar: id }));
        if (r.ok) get().notify(`Removed the calendar ${name} (Ctrl+Z undoes it)`);
        return r.ok;
      },
      renameCalendar: async (id, name) => {
        const before = get().calendars.value?.find((c) => c.id === id)?.name ?? id;
        const problem = await attempt(() => api.invoke('calendars.rename', { calendar: id, name }));
        if (problem) return problem;
        get().notify(`Renamed the calendar ${before} to ${name.trim()} (Ctrl+Z undoes it)`);
        await get().loadCalendarsList();
        return null;
      },
      moveEventTime: (e, start, end) =>
        attempt(
          () => api.invoke('events.move', { event: e.eventId, start, end }),
          (r) => get().notifyUndoable(`Moved ${e.title}${e.planId && !e.pinned ? ' and pinned it: a re-plan keeps it there' : ''}`, r.actionId),
        ),
      goToEvent: async (direction) => {
        const { from, to } = toRange(get().calAnchor, get().calMode);
        const at = new Date(direction === 'next' ? to : from).toISOString();
        const r = await request(get, () => api.invoke('events.adjacent', { at, direction }));
        if (!r.ok) return null;
        if (r.value === null) {
          get().notify(direction === 'next' ? 'No later event in any calendar' : 'No earlier event in any calendar');
          return null;
        }
        await get().showCalendarAt(parseEventTime(r.value.start));
        return r.value;
      },
      loadLinkedTask: (taskId) =>
        loadInto(set, 'linkedTask', async () => {
          // No channel reads one task by id: every task is listed (a local query) and the one picked.
          const { tasks } = await api.invoke('tasks.list', { status: 'all', limit: 10_000 });
          const task = tasks.find((t) => t.id === taskId);
          if (!task) throw new BridgeError('failed', `task ${taskId} is not there any more`, 'it may have been archived; see the Actions log');
          return task;
        }),
      setApprovalEdit: (key, edit) =>
        set((s) => {
          if (edit === null && !(key in s.approvalEdits)) return s;
          const { [key]: _, ...rest } = s.approvalEdits;
          return { approvalEdits: edit ? { ...rest, [key]: edit } : rest };
        }),
    };
  };

/** "Imported alice.ics as Alice: 40 new, 2 updated events", from what the import reports. */
function importSummary(fileName: string, r: ImportReport): string {
  const parts = [
    r.added > 0 || (r.updated === 0 && r.removed === 0) ? `${r.added.toLocaleString()} new` : null,
    r.updated > 0 ? `${r.updated.toLocaleString()} updated` : null,
    r.removed > 0 ? `${r.removed.toLocaleString()} no longer in the file` : null,
  ].filter(Boolean);
  const warn = r.warnings.length > 0 ? ` (${r.warnings.length === 1 ? r.warnings[0] : `${r.warnings.length} parts skipped: ${r.warnings[0]} …`})` : '';
  return `Imported ${fileName} as ${r.calendar.name}: ${parts.join(', ')} ${r.added + r.updated === 1 ? 'event' : 'events'}${warn}`;
}
