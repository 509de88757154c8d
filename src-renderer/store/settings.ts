/**
 * Settings: values from the main side, validated here with the same schemas (src-shared/settings.ts)
 * so a bad value is shown inline before it is sent; the main side validates again and its refusal is
 * shown the same way.
 */
import type { Input, Output } from '../../src-shared/ipc';
import { BaseUrl, ModelName, type ConnectionReport, type KeyStatus } from '../../src-shared/providers';
import { ApprovalPolicy, isSettingKey, SETTINGS } from '../../src-shared/settings';
import { toProblem, type Problem } from '../lib/problem';
import { idle, loaded, loadInto, type Loadable } from './loadable';
import type { Deps, SliceCreator } from './types';

export type SettingsValues = Output<'settings.get'>;
/** A setting's value as sent: JSON. */
export type SettingValue = Input<'settings.set'>['value'];
export type ProvidersValue = Output<'providers.list'>;
export type AgentTool = Output<'agent.tools'>[number];

export interface SettingsSlice {
  settings: Loadable<SettingsValues>;
  /** Inline validation errors, by setting key (`approvals.<tool>` for one tool's policy). */
  settingErrors: Record<string, string>;
  /** The key saved last, for a short "Saved" next to it. */
  settingSaved: string | null;
  providers: Loadable<ProvidersValue>;
  /** Whether the active profile has a usable key. Never the key itself. */
  keyStatus: Loadable<KeyStatus>;
  keyProblem: Problem | null;
  connection: { report: ConnectionReport | null; testing: boolean; problem: Problem | null };
  /** The agent's tools, for the per-tool approval settings. */
  tools: Loadable<AgentTool[]>;
  loadSettings(): Promise<void>;
  loadTools(): Promise<void>;
  /** Validates and saves one setting; false (and an inline error) when refused. */
  saveSetting(key: string, value: SettingValue): Promise<boolean>;
  clearSettingError(key: string): void;
  loadProviders(): Promise<void>;
  switchProfile(id: string): Promise<boolean>;
  /** Changes the active profile's endpoint or model; errors inline under `profile.baseUrl` / `profile.model`. */
  updateProfile(id: string, change: { baseUrl?: string; model?: string }): Promise<boolean>;
  loadKeyStatus(): Promise<void>;
  /** Hands the key to the keychain; the UI keeps no copy. */
  setKey(key: string): Promise<boolean>;
  clearKey(): Promise<boolean>;
  testConnection(): Promise<void>;
  refreshSettings(topics: readonly string[]): Promise<void>;
}

/** The first validation message of `value` for `key`, or null when the value is acceptable. */
export function validateSetting(key: string, value: unknown): string | null {
  const approvals = /^approvals\.([a-z_]+)$/.exec(key);
  const result = approvals ? ApprovalPolicy.safeParse(value) : isSettingKey(key) ? SETTINGS[key].schema.safeParse(value) : null;
  if (result === null) return `there is no setting "${key}"`;
  if (isRangeKey(key)) {
    // The schemas coerce, and '' would coerce to 0: a blank or non-numeric field is refused here first.
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (!Number.isFinite(n)) {
      const { min, max } = rangeOf(key);
      return `must be a number from ${min} to ${max}`;
    }
  }
  return result.success ? null : (result.error.issues[0]?.message ?? 'not a valid value');
}

/** A slider's range and step, straight from the setting's schema. */
export type RangeKey = 'temperature' | 'maxTokens' | 'historyLength' | 'contextTokens' | 'maxActions' | 'timeLimitSec' | 'bulkApproval';
const RANGES: Record<RangeKey, true> = {
  temperature: true,
  maxTokens: true,
  historyLength: true,
  contextTokens: true,
  maxActions: true,
  timeLimitSec: true,
  bulkApproval: true,
};
const isRangeKey = (k: string): k is RangeKey => Object.hasOwn(RANGES, k);

export function rangeOf(key: RangeKey): { min: number; max: number; step: number } {
  const schema = SETTINGS[key].schema.out; // the number a setting's text or number becomes
  return { min: schema.minValue ?? 0, max: schema.maxValue ?? 0, step: schema.isInt ? 1 : 0.05 };
}

export const createSettingsSlice =
  ({ api }: Deps): SliceCreator<SettingsSlice> =>
  (set, get) => {
    const setError = (key: string, message: string | null) =>
      set((s) => {
        const settingErrors = { ...s.settingErrors };
        if (message === null) delete settingErrors[key];
        else settingErrors[key] = message;
        return { settingErrors };
      });
    /** Sets or clears the key: the reply is only its new status; a refusal shows by the key field. */
    const keyChange = async (call: () => Promise<KeyStatus>): Promise<boolean> => {
      try {
        set({ keyStatus: loaded(await call()), keyProblem: null });
        return true;
      } catch (e) {
        set({ keyProblem: toProblem(e) });
        return false;
      }
    };
    return {
      settings: idle(),
      settingErrors: {},
      settingSaved: null,

      loadSettings: () => loadInto(set, 'settings', () => api.invoke('settings.get', {})),

      saveSetting: async (key, value) => {
        const invalid = validateSetting(key, value);
        setError(key, invalid);
        if (invalid !== null) return false;
        try {
          const settings = await api.invoke('settings.set', { key, value });
          set({ settings: loaded(settings), settingSaved: key });
          return true;
        } catch (e) {
          const p: Problem = toProblem(e);
          setError(key, p.hint ? `${p.message} — ${p.hint}` : p.message);
          return false;
        }
      },
      clearSettingError: (key) => {
        if (key in get().settingErrors) setError(key, null);
      },

      providers: idle(),
      keyStatus: idle(),
      keyProblem: null,
      connection: { report: null, testing: false, problem: null },
      tools: idle(),

      // The tools do not change while the app runs.
      loadTools: async () => {
        if (get().tools.value === null) await loadInto(set, 'tools', () => api.invoke('agent.tools', {}));
      },

      loadProviders: () => loadInto(set, 'providers', () => api.invoke('providers.list', {})),
      switchProfile: async (id) => {
        try {
          const value = await api.invoke('providers.use', { id });
          set({ providers: loaded(value), connection: { report: null, testing: false, problem: null }, settingErrors: {} });
          return true;
        } catch (e) {
          const p = toProblem(e);
          setError('profile', `${p.message} — ${p.hint}`);
          return false;
        }
      },
      updateProfile: async (id, change) => {
        const checks: [string, string | undefined, typeof BaseUrl | typeof ModelName][] = [
          ['profile.baseUrl', change.baseUrl, BaseUrl],
          ['profile.model', change.model, ModelName],
        ];
        let ok = true;
        for (const [key, value, schema] of checks) {
          if (value === undefined) continue;
          const r = schema.safeParse(value);
          setError(key, r.success ? null : (r.error.issues[0]?.message ?? 'not valid'));
          ok &&= r.success;
        }
        if (!ok) return false;
        try {
          await api.invoke('providers.update', { id, ...change });
          set({ settingSaved: change.baseUrl !== undefined ? 'profile.baseUrl' : 'profile.model', connection: { report: null, testing: false, problem: null } });
          await get().loadProviders();
          return true;
        } catch (e) {
          const p = toProblem(e);
          setError(change.baseUrl !== undefined ? 'profile.baseUrl' : 'profile.model', `${p.message} — ${p.hint}`);
          return false;
        }
      },
      loadKeyStatus: () => loadInto(set, 'keyStatus', () => api.invoke('keys.status', {})),
      setKey: async (key) => {
        if (!key.trim()) {
          set({ keyProblem: { message: 'the key is empty', hint: 'paste the API key from your provider', code: 'client' } });
          return false;
        }
        return keyChange(() => api.invoke('keys.set', { key: key.trim() }));
      },
      clearKey: () => keyChange(() => api.invoke('keys.clear', {})),
      testConnection: async () => {
        set({ connection: { report: null, testing: true, problem: null } });
        try {
          const report = await api.invoke('providers.test', {});
          set({ connection: { report, testing: false, problem: null } });
        } catch (e) {
          set({ connection: { report: null, testing: false, problem: toProblem(e) } });
        }
      },
      refreshSettings: async (topics) => {
        const s = get();
        const jobs: Promise<void>[] = [];
        if (topics.includes('settings') && s.settings.value !== null) jobs.push(s.loadSettings());
        if (topics.includes('providers') && s.providers.value !== null) jobs.push(s.loadProviders());
        if (topics.includes('secrets') && s.keyStatus.value !== null) jobs.push(s.loadKeyStatus());
        await Promise.all(jobs);
      },
    };
  };
