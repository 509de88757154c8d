/** The keyboard shortcuts: one list, used by the handler and shown in the help overlay (a view's own keys are in keymaps.ts). */
import { VIEW_DEFS } from '../store/views';

export { viewForDigit } from '../store/views';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? '⌘' : 'Ctrl';
export const ALT = isMac ? '⌥' : 'Alt';

export interface Shortcut {
  keys: string[];
  what: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ['Enter'], what: 'Send the message' },
  { keys: ['Shift', 'Enter'], what: 'New line in the message' },
  { keys: ['Esc'], what: 'Stop the running request; close a dialog' },
  { keys: [MOD, 'K'], what: 'Focus the message box' },
  { keys: [ALT, 'N'], what: 'New conversation' },
  ...VIEW_DEFS.slice(0, 9).map((v, i) => ({ keys: [ALT, String(i + 1)], what: `Go to ${v.label}` })),
  { keys: [ALT, '0'], what: 'Go to any view by name' },
  { keys: ['Q'], what: 'Add a task: the add field of this view, or of the Inbox (outside a text field)' },
  { keys: [MOD, 'F'], what: 'Search (also /)' },
  { keys: [ALT, 'A'], what: 'Approve the change Tidy asks about' },
  { keys: [ALT, 'D'], what: 'Decline the change Tidy asks about' },
  { keys: [ALT, 'T'], what: 'Show or hide the trace panel' },
  { keys: ['F6'], what: 'Next area: navigation, list, main, trace (Shift+F6 back)' },
  { keys: [MOD, 'Z'], what: 'Undo the last request (outside a text field)' },
  { keys: [MOD, 'Shift', 'Z'], what: `Redo what Undo took back in this window (also ${MOD}+Y)` },
  { keys: ['?'], what: 'Show these shortcuts' },
];

/** Whether the event comes from a place where keys type text. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'range'].includes(target.type);
}
