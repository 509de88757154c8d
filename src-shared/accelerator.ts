/**
 * Electron accelerators (https://www.electronjs.org/docs/latest/api/accelerator), validated before they
 * reach globalShortcut.register — which only returns false on a bad one, with no reason to show the user.
 */
import { z } from 'zod';

/** Canonical spelling of each modifier, by its lower-case forms (Electron matches them case-insensitively). */
const MODIFIERS: Record<string, string> = {
  command: 'Command',
  cmd: 'Command',
  control: 'Control',
  ctrl: 'Control',
  commandorcontrol: 'CommandOrControl',
  cmdorctrl: 'CommandOrControl',
  alt: 'Alt',
  option: 'Option',
  altgr: 'AltGr',
  shift: 'Shift',
  super: 'Super',
  meta: 'Meta',
};

const NAMED_KEYS = [
  'Plus', 'Space', 'Tab', 'Capslock', 'Numlock', 'Scrolllock', 'Backspace', 'Delete', 'Insert', 'Return', 'Enter',
  'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Escape', 'Esc',
  'VolumeUp', 'VolumeDown', 'VolumeMute', 'MediaNextTrack', 'MediaPreviousTrack', 'MediaStop', 'MediaPlayPause', 'PrintScreen',
  'num0', 'num1', 'num2', 'num3', 'num4', 'num5', 'num6', 'num7', 'num8', 'num9', 'numdec', 'numadd', 'numsub', 'nummult', 'numdiv',
];
const KEYS = new Map<string, string>(NAMED_KEYS.map((k) => [k.toLowerCase(), k]));
for (let i = 1; i <= 24; i++) KEYS.set(`f${i}`, `F${i}`);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') KEYS.set(c.toLowerCase(), c);
for (const c of ')!@#$%^&*(:;<=>,_-.?/~`{]}[|\\"\'') KEYS.set(c, c);

const isFunctionKey = (k: string): boolean => /^F\d+$/.test(k);

type ParsedAccelerator = { ok: true; value: string } | { ok: false; error: string };

/**
 * Parses an accelerator into its canonical spelling. A global shortcut needs one key and at least one
 * modifier other than Shift (except F1–F24), so it cannot swallow ordinary typing in every other app.
 */
export function parseAccelerator(text: string): ParsedAccelerator {
  const parts = text.trim().split('+');
  if (parts.some((p) => p.trim() === '')) return { ok: false, error: 'has an empty part; write + as "Plus", e.g. CommandOrControl+Shift+Plus' };
  const mods: string[] = [];
  let key: string | undefined;
  for (const raw of parts.map((p) => p.trim())) {
    const mod = MODIFIERS[raw.toLowerCase()];
    if (mod !== undefined) {
      if (key !== undefined) return { ok: false, error: `modifiers come before the key ("${raw}" after "${key}")` };
      if (mods.includes(mod)) return { ok: false, error: `repeats the modifier ${mod}` };
      mods.push(mod);
      continue;
    }
    const k = KEYS.get(raw.toLowerCase());
    if (k === undefined) return { ok: false, error: `"${raw}" is not a key Electron knows (e.g. A, 5, F5, Space, Up, Plus)` };
    if (key !== undefined) return { ok: false, error: `has two keys ("${key}" and "${k}"); use one key with modifiers` };
    key = k;
  }
  if (key === undefined) return { ok: false, error: 'has no key, only modifiers' };
  if (!isFunctionKey(key) && mods.filter((m) => m !== 'Shift').length === 0) {
    return { ok: false, error: 'needs a modifier such as CommandOrControl, Alt or Super, so it does not take over ordinary typing' };
  }
  return { ok: true, value: [...mods, key].join('+') };
}

/** A global-shortcut accelerator, normalised to Electron's canonical spelling. */
export const Accelerator = z.string().transform((s, ctx) => {
  const r = parseAccelerator(s);
  if (r.ok) return r.value;
  ctx.addIssue({ code: 'custom', message: `${r.error}; e.g. CommandOrControl+Shift+Space` });
  return z.NEVER;
});
