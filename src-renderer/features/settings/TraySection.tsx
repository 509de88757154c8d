/** The desktop app's tray: whether Tidy keeps running there when its window closes (routines keep running). */
import { useId } from 'react';
import { useApp } from '../../store/react';

export function TraySection() {
  const keep = useApp((s) => s.settings.value?.keepInTray);
  const saveSetting = useApp((s) => s.saveSetting);
  const id = useId();
  if (keep === undefined) return null;
  return (
    <section aria-labelledby="set-tray">
      <h2 id="set-tray">Tray</h2>
      <div className="setting row">
        <input id={id} type="checkbox" role="switch" checked={keep} onChange={(e) => void saveSetting('keepInTray', e.target.checked)} />
        <label htmlFor={id}>Keep Tidy running in the tray when the window closes (routines keep running)</label>
      </div>
      <p className="muted">{keep ? 'Closing the window hides it; Open Tidy or Quit from the tray icon.' : 'Closing the window quits Tidy: routines run only while it is open, or with tidy routines run-due.'}</p>
    </section>
  );
}
