/**
 * The screen of each view of store/views.ts. Typed by the view ids: a view added to that list without a
 * screen here does not compile.
 *
 * Adding a view (docs/ARCHITECTURE.md, "Add a view"): (1) its screen in src-renderer/features/<feature>/,
 * exported by that feature's index.ts (headed by <ViewHead>, which the focus and the skip link go to; a
 * list + detail layout uses <MasterDetail>), (2) its entry in store/views.ts (label, icon, focus, data
 * topics and refresh; the sidebar, the address, Alt+<n> and the help follow), (3) one line here. Its data,
 * if new, is the feature's slice.ts.
 */
import type { ComponentType } from 'react';
import type { View } from '../store/views';
import { ActionsView } from '../features/actions';
import { CalendarView } from '../features/calendar';
import { ChatView } from '../features/chat';
import { CompletedView, FiltersView, InboxView, LabelsView, ListsView, ProjectsView, TodayView, UpcomingView } from '../features/tasks';
import { RoutinesView } from '../features/routines';
import { MemoryView } from '../features/memory';
import { SearchView } from '../features/search';
import { SettingsView } from '../features/settings';

export const SCREENS: Record<View, ComponentType> = {
  chat: ChatView,
  inbox: InboxView,
  today: TodayView,
  upcoming: UpcomingView,
  projects: ProjectsView,
  lists: ListsView,
  labels: LabelsView,
  filters: FiltersView,
  completed: CompletedView,
  calendar: CalendarView,
  actions: ActionsView,
  settings: SettingsView,
  search: SearchView,
  routines: RoutinesView,
  memory: MemoryView,
};
