/** Reminders: whether Tidy may show system notifications when a task's due time comes. */
import { useState } from 'react';
import { inDesktopApp } from '../../api';
import { askNotifyPermission, notifyPermission, type NotifyPermission } from '../../lib/notify';

const SAID: Record<NotifyPermission, string> = {
  granted: 'Allowed: a task with a due time notifies you at that time, also while Tidy is in the background.',
  denied: 'Blocked in this browser or system. Allow notifications for Tidy in its site or system settings; meanwhile reminders show inside the window.',
  default: 'Not allowed yet: reminders show inside the window only.',
  unsupported: 'This window cannot show system notifications: reminders show inside it.',
};

export function NotificationsSection() {
  const [permission, setPermission] = useState(notifyPermission);
  if (inDesktopApp)
    return (
      <section aria-labelledby="set-reminders">
        <h2 id="set-reminders">Reminders</h2>
        <div className="setting">
          <p>A task with a due time notifies you at that time, with Complete and Snooze where your system shows them.</p>
        </div>
      </section>
    );
  return (
    <section aria-labelledby="set-reminders">
      <h2 id="set-reminders">Reminders</h2>
      <div className="setting">
        <p role="status">{SAID[permission]}</p>
        {permission === 'default' && (
          <div className="row" style={{ marginTop: 6 }}>
            <button type="button" className="btn" onClick={() => void askNotifyPermission().then(setPermission)}>
              Allow notifications
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
