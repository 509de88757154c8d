import type { Result } from '../../src-shared/result';
import { DEFAULT_SETTINGS, isSettingKey, SETTING_KEYS, SETTINGS, TOOL_NAME, type SettingKey, type Settings } from '../../src-shared/settings';
import { activeProfile, updateProfile, useProfile } from './providers/profiles';
import type { Db } from './store/db';
import { cached } from './store/statements';

/**
 * All settings, stored values over defaults. A stored value that no longer validates falls back to the
 * default. `profile`, `baseUrl` and `model` are the active provider profile's.
 */
export function readSettings(db: Db): Settings {
  const rows = cached(db, `SELECT key, value FROM settings`).all() as { key: string; value: string }[];
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const { key, value } of rows) {
    if (!isSettingKey(key)) continue;
    let stored: unknown;
    try {
      stored = JSON.parse(value);
    } catch {
      continue; // a value damaged outside Tidy falls back to the default
    }
    const parsed = SETTINGS[key].schema.safeParse(stored);
    if (parsed.success) out[key] = parsed.data;
  }
  const profile = activeProfile(db);
  out['profile'] = profile.id;
  out['baseUrl'] = profile.baseUrl;
  out['model'] = profile.model;
  return out as Settings;
}

/**
 * Validates and stores one setting. The value may be typed (from the UI) or text (from the CLI).
 * `approvals.<tool>` sets the approval policy of one tool.
 */
export function writeSetting(db: Db, key: string, value: unknown): Result<unknown> {
  const tool = /^approvals\.(.+)$/.exec(key)?.[1];
  if (tool !== undefined) {
    if (!TOOL_NAME.test(tool)) return { ok: false, error: `'${tool.slice(0, 60)}' is not a tool name`, hint: 'tool names are lower_snake_case, e.g. approvals.complete_task' };
    const approvals: Record<string, unknown> = Object.assign(Object.create(null) as object, readSettings(db).approvals);
    approvals[tool] = value;
    const r = writeSetting(db, 'approvals', approvals);
    return r.ok ? { ok: true, value } : r;
  }
  if (!isSettingKey(key)) return { ok: false, error: `unknown setting '${key}'`, hint: `use one of: ${SETTING_KEYS.join(', ')}` };
  const parsed = SETTINGS[key].schema.safeParse(value);
  if (!parsed.success) {
    const why = parsed.error.issues[0]?.message ?? 'invalid value';
    return { ok: false, error: `${key} ${JSON.stringify(value)} is not allowed: ${why}`, hint: `${key} is ${SETTINGS[key].help}` };
  }
  // The provider settings live in the profiles: switch the active one, or edit it.
  if (key === 'profile') {
    const r = useProfile(db, String(parsed.data));
    return r.ok ? { ok: true, value: r.value.id } : r;
  }
  if (key === 'baseUrl' || key === 'model') {
    const r = updateProfile(db, activeProfile(db).id, { [key]: parsed.data });
    return r.ok ? { ok: true, value: r.value[key] } : r;
  }
  cached(db, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(
    key,
    JSON.stringify(parsed.data),
  );
  return { ok: true, value: parsed.data };
}

export type { SettingKey, Settings };
