/** The global quick-capture shortcut (desktop app). */
import { useEffect, useId, useState } from 'react';
import { useApp } from '../../store/react';
import { Setting, useField } from './fields';

export function ShortcutSection() {
  const current = useApp((s) => s.settings.value?.quickCaptureShortcut ?? '');
  const saveSetting = useApp((s) => s.saveSetting);
  const field = useField('quickCaptureShortcut');
  const [text, setText] = useState(current);
  const id = useId();
  useEffect(() => setText(current), [current]);
  return (
    <section aria-labelledby="set-capture">
      <h2 id="set-capture">Quick capture</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void saveSetting('quickCaptureShortcut', text);
        }}
      >
        <Setting
          id={id}
          label="Global shortcut"
          help="Opens the small capture window from anywhere (desktop app). Enter adds to the inbox, Ctrl+Enter asks Tidy. E.g. CommandOrControl+Shift+Space."
          {...field}
        >
          <input id={id} className="input grow" value={text} spellCheck={false} onChange={(e) => setText(e.target.value)} {...field.invalid} />
          <button type="submit" className="btn" disabled={text === current}>
            Save shortcut
          </button>
        </Setting>
      </form>
    </section>
  );
}
