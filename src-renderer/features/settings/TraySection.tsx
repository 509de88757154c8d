/** The desktop app's tray: whether Tidy keeps running there when its window closes (routines keep running). */
import { useId } from 'react';
import { useApp } from '../../store/react';
import { Setting, useField } from './fields';

export function TraySection() {
  const keep = useApp((s) => s.settings.value?.keepInTray);
  const saveSetting = useApp((s) => s.saveSetting);
  const field = useField('keepInTray');
  const id = useId();
  if (keep === undefined) return null;
  return (
    <section aria-labelledby="set-tray">
      <h2 id="set-tray">Tray</h2>
      <Setting
        id={id}
        label="Keep Tidy running in the tray when the window closes (routines keep running)"
        help={keep ? 'Closing the window hides it; Open Tidy or Quit from the tray icon.' : 'Closing the window quits Tidy: routines run only while it is open, or with tidy routines run-due.'}
        {...field}
      >
        <input id={id} type="checkbox" role="switch" checked={keep} onChange={(e) => void saveSetting('keepInTray', e.target.checked)} />
      </Setting>
    </section>
  );
}
