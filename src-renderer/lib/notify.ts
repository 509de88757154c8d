/**
 * The browser's Notification API, where there is one. Permission can only be asked for from a user
 * gesture (a click), so the UI asks from a button: in Settings, or on the first reminder.
 */
export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

export function notifyPermission(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Asks for permission (call it from a click). Resolves to what the user chose. */
export async function askNotifyPermission(): Promise<NotifyPermission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

/** Shows a system notification when permitted; false when it could not be shown (the caller shows its own). */
export function systemNotify(title: string, options: { body: string; tag: string; onClick(): void }): boolean {
  if (notifyPermission() !== 'granted') return false;
  try {
    const n = new Notification(title, { body: options.body, tag: options.tag });
    n.onclick = () => {
      window.focus();
      options.onClick();
      n.close();
    };
    return true;
  } catch {
    // Some platforms allow notifications only from a service worker: the in-app notice covers it.
    return false;
  }
}
