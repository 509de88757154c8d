/// <reference types="vite/client" />
/**
 * Reminders: when a task's due time comes (`reminder.due`), a system notification if the user allowed
 * them, and always a card in the window with Complete and Snooze (a web notification cannot carry
 * buttons), until answered or dismissed.
 */
import { useEffect, useRef, useState } from 'react';
import { inDesktopApp } from '../../api';
import { dueLabel } from '../../lib/due';
import { askNotifyPermission, notifyPermission, systemNotify } from '../../lib/notify';
import { useApp, useAppStore } from '../../store/react';
import { SNOOZE_MINUTES } from './slice';
import '../../styles/tasks-ui.css';

export function Reminders() {
  const reminders = useApp((s) => s.reminders);
  const setTaskDone = useApp((s) => s.setTaskDone);
  const dismiss = useApp((s) => s.dismissReminder);
  const snooze = useApp((s) => s.snoozeReminder);
  const store = useAppStore();
  const notified = useRef(new Set<string>());
  const [permission, setPermission] = useState(notifyPermission);

  useEffect(() => {
    for (const t of reminders) {
      const key = `${t.id}@${t.due}`;
      if (notified.current.has(key)) continue;
      notified.current.add(key);
      // The desktop app's main process shows its own (with Complete and Snooze where the system allows).
      if (inDesktopApp) continue;
      const when = dueLabel(t.due, new Date());
      systemNotify(`Due: ${t.content}`, { body: [when?.long, t.project].filter(Boolean).join(' · '), tag: `tidy-${t.id}`, onClick: () => store.getState().show('today') });
    }
  }, [reminders, store]);

  if (reminders.length === 0) return null;
  return (
    <section className="reminders" aria-label="Reminders">
      {reminders.map((t) => (
        <div key={t.id} className="reminder" role="group" aria-label={`Reminder: ${t.content}`}>
          <p className="reminder-text">
            <strong>{t.content}</strong>
            <span className="muted"> is due {dueLabel(t.due, new Date())?.text ?? 'now'}</span>
          </p>
          <div className="reminder-actions">
            <button
              type="button"
              className="btn small primary"
              onClick={() => {
                dismiss(t.id);
                void setTaskDone(t.id, true);
              }}
            >
              Complete
            </button>
            <button type="button" className="btn small" onClick={() => void snooze(t)}>
              Snooze {SNOOZE_MINUTES} min
            </button>
            <button type="button" className="btn small ghost" onClick={() => dismiss(t.id)}>
              Dismiss
            </button>
            {permission === 'default' && !inDesktopApp && (
              <button type="button" className="btn small ghost" onClick={() => void askNotifyPermission().then(setPermission)}>
                Notify me outside Tidy
              </button>
            )}
          </div>
        </div>
      ))}
    </section>
  );
}
