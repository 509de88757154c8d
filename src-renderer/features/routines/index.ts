/** Routines: the agent on a schedule — the list, the form, Run now, Pause, the history with Undo all. */
export { createRoutinesSlice, type RoutinesSlice } from './slice';
export { RoutinesView } from './RoutinesView';
