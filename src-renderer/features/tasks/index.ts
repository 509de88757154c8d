/** Tasks, projects and lists: the Inbox, Today, Upcoming, Completed, Projects and Lists views, quick add, and reminders. */
export { createDataSlice, createRichSlice, createTasksSlice, type DataSlice, type RichSlice, type SearchResults, type TasksSlice } from './slice';
export { InboxView } from './InboxView';
export { TodayView } from './TodayView';
export { UpcomingView } from './UpcomingView';
export { CompletedView } from './CompletedView';
export { ProjectsView } from './ProjectsView';
export { ListsView } from './ListsView';
export { LabelsView } from './LabelsView';
export { FiltersView, SavedFilters } from './FiltersView';
export { Reminders } from './Reminders';
export { QuickAddInput, QuickAddSummary, useQuickAdd, withProjectName } from './QuickAdd';
