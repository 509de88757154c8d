/** The action log: every change as a row, Undo and Redo; and a run's changes under its answer. */
export { createActionsSlice, actionKey, requestKey, canRedo, canUndo, type ActionsSlice } from './slice';
export { ActionsView } from './ActionsView';
export { RunChanges } from './RunChanges';
export { Undoable, type UndoTarget } from './Undoable';
