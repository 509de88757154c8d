/** The calendar: the week grid, today's events, .ics imports, and the editable approval form of booking tools. */
export { createCalendarSlice, type CalendarSlice } from './slice';
export { CalendarView } from './CalendarView';
export { TodayEvents } from './TodayEvents';
export { EventApprovalForm } from './EventApprovalForm';
export { localInputToIso, parseEventTime, toLocalInput } from './layout';
