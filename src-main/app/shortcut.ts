/**
 * The global shortcut that opens quick capture, from the `quickCaptureShortcut` setting (validated as an
 * Electron accelerator when it is set), re-registered when it changes.
 */
import { globalShortcut } from 'electron';

type ShortcutResult = { ok: true; accelerator: string } | { ok: false; message: string };

let current: string | null = null;

/** Replaces the quick-capture shortcut. On refusal the previous one stays in place. */
export function setCaptureShortcut(accelerator: string, onPress: () => void): ShortcutResult {
  if (accelerator === current) return { ok: true, accelerator };
  let registered: boolean;
  try {
    registered = globalShortcut.register(accelerator, onPress);
  } catch {
    registered = false;
  }
  // register() says only yes or no: another app holds the combination, or the system (e.g. some Wayland
  // desktops) does not let apps take global shortcuts.
  if (!registered) {
    return {
      ok: false,
      message: `The system refused the quick-capture shortcut ${accelerator}: another app may use it, or this desktop does not allow global shortcuts. Choose another in Settings (quickCaptureShortcut), or use the tray menu.`,
    };
  }
  if (current) globalShortcut.unregister(current);
  current = accelerator;
  return { ok: true, accelerator };
}

export const captureShortcut = (): string | null => current;
