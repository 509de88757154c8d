/**
 * What the desktop app does when its main window is closed, decided here (plain Node, unit-tested) and
 * carried out in src-main/app: with `keepInTray` on, the window hides and Tidy stays in the tray, so
 * routines, reminders and quick capture go on; off, closing the window quits. While quitting (Quit in the
 * tray or the menu), the window simply closes.
 */
type MainWindowClose = 'hide' | 'quit' | 'close';

export function onMainWindowClose(state: { keepInTray: boolean; quitting: boolean }): MainWindowClose {
  if (state.quitting) return 'close';
  return state.keepInTray ? 'hide' : 'quit';
}

export { routineNotification, type SystemNotice } from '../../../src-shared/routines';
