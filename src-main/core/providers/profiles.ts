/**
 * Provider profiles in the settings table: the list under `profiles`, the active id under `profile`.
 * Keys are not here: they are in the OS keychain under the profile id (core/secrets).
 */
import { DEFAULT_PROFILE_ID, DEFAULT_PROFILES, PRESETS, PresetId, ProfileId, ProviderProfile, ProviderProfiles } from '../../../src-shared/providers';
import type { Result } from '../../../src-shared/result';
import type { Db } from '../store/db';
import { cached } from '../store/statements';

const PROFILES_KEY = 'profiles';
const ACTIVE_KEY = 'profile';

function readRow(db: Db, key: string): unknown {
  const row = cached(db, `SELECT value FROM settings WHERE key = ?`).get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value);
  } catch {
    return undefined;
  }
}

function writeRow(db: Db, key: string, value: unknown): void {
  cached(db, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(key, JSON.stringify(value));
}

const fail = (error: string, hint: string): Result<never> => ({ ok: false, error, hint });

const issue = (e: { issues: { path: PropertyKey[]; message: string }[] }): string => {
  const i = e.issues[0];
  if (!i) return 'invalid profile';
  return i.path.length ? `${String(i.path[0])} ${i.message}` : i.message;
};

/**
 * The stored profiles, or the defaults on a fresh database. A stored list that no longer validates (hand
 * edited, or written by a newer Tidy) is read as the defaults rather than failing every request.
 */
export function listProfiles(db: Db): ProviderProfile[] {
  const parsed = ProviderProfiles.safeParse(readRow(db, PROFILES_KEY));
  return parsed.success ? parsed.data : DEFAULT_PROFILES.map((p) => ({ ...p }));
}

export function getProfile(db: Db, id: string): ProviderProfile | undefined {
  return listProfiles(db).find((p) => p.id === id);
}

const unknownProfile = (db: Db, id: string): Result<never> =>
  fail(`no provider profile '${id}'`, `use one of: ${listProfiles(db).map((p) => p.id).join(', ')} (or add one: tidy config profile add ID --preset P)`);

/** The active profile; falls back to the first one if the stored id was removed by hand. */
export function activeProfile(db: Db): ProviderProfile {
  const profiles = listProfiles(db);
  const id = readRow(db, ACTIVE_KEY);
  return profiles.find((p) => p.id === id) ?? profiles.find((p) => p.id === DEFAULT_PROFILE_ID) ?? profiles[0]!;
}

function save(db: Db, profiles: ProviderProfile[]): Result<ProviderProfile[]> {
  const parsed = ProviderProfiles.safeParse(profiles);
  if (!parsed.success) return fail(`cannot save the profiles: ${issue(parsed.error)}`, 'check the values and try again');
  writeRow(db, PROFILES_KEY, parsed.data);
  return { ok: true, value: parsed.data };
}

export function useProfile(db: Db, id: string): Result<ProviderProfile> {
  const profile = getProfile(db, id);
  if (!profile) return unknownProfile(db, id);
  writeRow(db, ACTIVE_KEY, profile.id);
  return { ok: true, value: profile };
}

export interface NewProfile {
  id: string;
  preset: string;
  baseUrl?: string | undefined;
  model?: string | undefined;
  apiVersion?: string | undefined;
}

/** Adds a profile from a preset; the preset's URL and model fill in what is not given. */
export function addProfile(db: Db, input: NewProfile): Result<ProviderProfile> {
  const presetId = PresetId.safeParse(input.preset);
  if (!presetId.success) return fail(`unknown preset '${input.preset}'`, `use one of: ${PresetId.options.join(', ')}`);
  const preset = PRESETS[presetId.data];
  const id = ProfileId.safeParse(input.id);
  if (!id.success) return fail(`profile id '${input.id}' ${id.error.issues[0]?.message ?? 'is not valid'}`, 'e.g. work, ollama-big, azure.eu');
  const profiles = listProfiles(db);
  if (profiles.some((p) => p.id === input.id)) {
    return fail(`a profile '${input.id}' exists already`, `change it with: tidy config profile edit ${input.id} --base-url URL --model NAME, or pick another id`);
  }
  if (preset.needsBaseUrl && input.baseUrl === undefined) {
    return fail(`the ${preset.label} preset needs --base-url`, `e.g. --base-url ${preset.baseUrl}`);
  }
  const model = input.model ?? preset.model;
  if (model === '') {
    return fail(`the ${preset.label} preset needs --model`, preset.id === 'azure' ? 'pass your deployment name: --model <deployment>' : 'pass the model name the server knows: --model NAME');
  }
  const candidate = {
    id: input.id,
    preset: preset.id,
    baseUrl: input.baseUrl ?? preset.baseUrl,
    model,
    ...(input.apiVersion !== undefined ? { apiVersion: input.apiVersion } : {}),
  };
  const parsed = ProviderProfile.safeParse(candidate);
  if (!parsed.success) return fail(`profile ${input.id}: ${issue(parsed.error)}`, `the ${preset.label} preset: ${preset.help}`);
  const saved = save(db, [...profiles, parsed.data]);
  return saved.ok ? { ok: true, value: parsed.data } : saved;
}

export interface ProfileChanges {
  baseUrl?: string | undefined;
  model?: string | undefined;
  /** null removes it. */
  apiVersion?: string | null | undefined;
}

/** Changes a profile's endpoint, model or Azure api-version, validated as a whole. */
export function updateProfile(db: Db, id: string, changes: ProfileChanges): Result<ProviderProfile> {
  const profiles = listProfiles(db);
  const i = profiles.findIndex((p) => p.id === id);
  if (i < 0) return unknownProfile(db, id);
  const { apiVersion: _old, ...rest } = profiles[i]!;
  const apiVersion = changes.apiVersion === null ? undefined : (changes.apiVersion ?? profiles[i]!.apiVersion);
  const candidate = {
    ...rest,
    ...(changes.baseUrl !== undefined ? { baseUrl: changes.baseUrl } : {}),
    ...(changes.model !== undefined ? { model: changes.model } : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
  };
  const parsed = ProviderProfile.safeParse(candidate);
  if (!parsed.success) return fail(`profile ${id}: ${issue(parsed.error)}`, `the ${PRESETS[rest.preset].label} preset: ${PRESETS[rest.preset].help}`);
  const next = profiles.slice();
  next[i] = parsed.data;
  const saved = save(db, next);
  return saved.ok ? { ok: true, value: parsed.data } : saved;
}

/**
 * Removes a profile (not the active one: switch first, so requests never run against a vanished profile).
 * Its keychain entry is the caller's to clear — that is asynchronous and may be unavailable.
 */
export function removeProfile(db: Db, id: string): Result<ProviderProfile> {
  const profiles = listProfiles(db);
  const profile = profiles.find((p) => p.id === id);
  if (!profile) return unknownProfile(db, id);
  if (activeProfile(db).id === id) {
    const other = profiles.find((p) => p.id !== id);
    return fail(`'${id}' is the active profile`, other ? `switch first: tidy config profile use ${other.id}` : 'add another profile first');
  }
  const saved = save(
    db,
    profiles.filter((p) => p.id !== id),
  );
  return saved.ok ? { ok: true, value: profile } : saved;
}
