/**
 * Settings: values from the main side, validated here with the same schemas (src-shared/settings.ts)
 * so a bad value is shown inline before it is sent; the main side validates again and its refusal is
 * shown the same way.
 */
import type { Input, Output } from '../../../src-shared/ipc';
import { BaseUrl, ModelName, type ConnectionReport, type DetectedServer, type KeyStatus, type PresetId } from '../../../src-shared/providers';
import { ApprovalPolicy, isSettingKey, SETTINGS } from '../../../src-shared/settings';
import { problemLine, toProblem, type Problem } from '../../lib/problem';
import { idle, loaded, loadInto, type Loadable } from '../../store/loadable';
import { attempt, outcome } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

type SettingsValues = Output<'settings.get'>;
/** A setting's value as sent: JSON. */
type SettingValue = Input<'settings.set'>['value'];
type ProvidersValue = Output<'providers.list'>;
type AgentTool = Output<'agent.tools'>[number];

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
  /** Saves the profile's key in the keychain, or with keep 'session' in memory for this session only. */
  setKey(key: string, keep?: 'session'): Promise<boolean>;
  clearKey(): Promise<boolean>;
  testConnection(): Promise<void>;
  refreshSettings(topics: readonly string[]): Promise<void>;

  /**
   * Whether a model works: 'ready' once a test of the active profile succeeded. Until then the chat shows
   * the first-run welcome instead of the example prompts.
   */
  setup: { state: 'unknown' | 'checking' | 'ready' | 'needed'; report: ConnectionReport | null };
  /** Tests the active profile once (when the state is unknown) and sets `setup` from the answer. */
  checkSetup(): Promise<void>;
  /** Local model servers answering on this machine. */
  detected: Loadable<DetectedServer[]>;
  detectServers(): Promise<void>;
  /** The models a URL not yet saved lists (no key is sent). */
  listModels(baseUrl: string, preset?: PresetId): Promise<ConnectionReport | Problem>;
  /**
   * Saves a profile (added, or updated when the id exists), stores its key when one is given, makes it the
   * active one and tests it. `keySaved` tells the form whether it may forget the typed key.
   */
  setUpModel(plan: ModelPlan): Promise<{ report: ConnectionReport | null; problem: Problem | null; keySaved: boolean }>;
  /** Uses the model "Test and use" connected to despite its warning (not listed, a small context window): the examples show. */
  acceptSetup(report: ConnectionReport): void;
  /** Adds a profile from a preset (Settings); null when it worked, else the refusal. */
  addProfile(input: Input<'providers.add'>): Promise<Problem | null>;
  removeProfile(id: string): Promise<Problem | null>;
  /**
   * Takes a message's refusal for want of a key or keychain off the chat (which shows it under the
   * thread), for the welcome to say it where the user sets the model up; null when there is none.
   */
  takeSetupRefusal(): Problem | null;
}

declare module '../../store/types' {
  interface AppState extends SettingsSlice {}
}

export interface ModelPlan {
  id: string;
  preset: PresetId;
  baseUrl: string;
  model: string;
  apiVersion?: string;
  /** Stored in the keychain under the profile; left out for servers that need none. */
  key?: string;
  /** Keep the key for this session only (memory, forgotten when Tidy quits) instead of the keychain. */
  keep?: 'session';
}

/** Anything that is a Problem rather than a report (listModels answers either). */
export const isProblem = (v: ConnectionReport | Problem): v is Problem => 'code' in v && !('ok' in v);

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
        const problem = await attempt(() => api.invoke('settings.set', { key, value }), (settings) => set({ settings: loaded(settings), settingSaved: key }));
        if (problem) setError(key, problemLine(problem));
        return problem === null;
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
        const problem = await attempt(
          () => api.invoke('providers.use', { id }),
          // Another profile: what was said about the last one (key, connection, a refused message) no longer holds.
          (value) =>
            set({
              providers: loaded(value),
              connection: { report: null, testing: false, problem: null },
              settingErrors: {},
              keyProblem: null,
              sendProblem: null,
              setup: { state: 'unknown', report: null },
            }),
        );
        if (problem) setError('profile', problemLine(problem));
        return problem === null;
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
        const field = change.baseUrl !== undefined ? 'profile.baseUrl' : 'profile.model';
        const problem = await attempt(async () => {
          await api.invoke('providers.update', { id, ...change });
          set({ settingSaved: field, connection: { report: null, testing: false, problem: null } });
          await get().loadProviders();
        });
        if (problem) setError(field, problemLine(problem));
        return problem === null;
      },
      loadKeyStatus: () => loadInto(set, 'keyStatus', () => api.invoke('keys.status', {})),
      setKey: async (key, keep) => {
        if (!key.trim()) {
          set({ keyProblem: { message: 'the key is empty', hint: 'paste the API key from your provider', code: 'client' } });
          return false;
        }
        return keyChange(() => api.invoke('keys.set', { key: key.trim(), ...(keep ? { keep } : {}) }));
      },
      clearKey: () => keyChange(() => api.invoke('keys.clear', {})),
      testConnection: async () => {
        set({ connection: { report: null, testing: true, problem: null } });
        try {
          const report = await api.invoke('providers.test', {});
          set({ connection: { report, testing: false, problem: null } });
          // A model answers: earlier complaints about the key or a refused message are stale now.
          if (report.ok) set({ setup: { state: 'ready', report }, keyProblem: null, sendProblem: null });
        } catch (e) {
          set({ connection: { report: null, testing: false, problem: toProblem(e) } });
        }
      },
      setup: { state: 'unknown', report: null },
      checkSetup: async () => {
        if (get().setup.state !== 'unknown') return;
        set({ setup: { state: 'checking', report: null } });
        try {
          const report = await api.invoke('providers.test', {});
          set({ setup: { state: report.ok ? 'ready' : 'needed', report } });
        } catch {
          set({ setup: { state: 'needed', report: null } });
        }
      },
      detected: idle(),
      detectServers: () => loadInto(set, 'detected', () => api.invoke('providers.detect', {})),
      listModels: async (baseUrl, preset) => {
        const r = await outcome(() => api.invoke('providers.models', { baseUrl, ...(preset ? { preset } : {}) }));
        return r.ok ? r.value : r.problem;
      },
      setUpModel: async (plan) => {
        let keySaved = false;
        try {
          const known = (await api.invoke('providers.list', {})).profiles.some((p) => p.id === plan.id);
          const fields = { baseUrl: plan.baseUrl, model: plan.model, ...(plan.apiVersion ? { apiVersion: plan.apiVersion } : {}) };
          if (known) await api.invoke('providers.update', { id: plan.id, ...fields });
          else await api.invoke('providers.add', { id: plan.id, preset: plan.preset, ...fields });
          if (plan.key !== undefined && plan.key.trim() !== '') {
            set({ keyStatus: loaded(await api.invoke('keys.set', { profile: plan.id, key: plan.key.trim(), ...(plan.keep ? { keep: plan.keep } : {}) })) });
            keySaved = true;
          }
          const profiles = await api.invoke('providers.use', { id: plan.id });
          set({ providers: loaded(profiles), settingErrors: {}, keyProblem: null });
          const report = await api.invoke('providers.test', { id: plan.id });
          set({ connection: { report, testing: false, problem: null } });
          // A warning that the first message would fail or be cut keeps the welcome, with "Use it anyway".
          if (report.ok && !heldBack(report)) set({ setup: { state: 'ready', report }, sendProblem: null });
          void get().loadKeyStatus();
          return { report, problem: null, keySaved };
        } catch (e) {
          return { report: null, problem: toProblem(e), keySaved };
        }
      },
      acceptSetup: (report) => set({ setup: { state: 'ready', report }, sendProblem: null }),
      addProfile: (input) =>
        attempt(async () => {
          await api.invoke('providers.add', input);
          await get().loadProviders();
        }),
      removeProfile: (id) =>
        attempt(async () => {
          await api.invoke('providers.remove', { id });
          await get().loadProviders();
        }),

      takeSetupRefusal: () => {
        const p = get().sendProblem;
        if (!p || (p.reason !== 'no_key' && p.reason !== 'keychain_unavailable')) return null;
        set({ sendProblem: null });
        return p;
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

export { createTransferSlice, type TransferSlice } from './transfer-slice';

/** A connection that works but whose model the server does not list, or whose context window cannot hold Tidy's prompt. */
const heldBack = (report: ConnectionReport): boolean => report.modelListed === false || report.context?.tooSmall === true;
