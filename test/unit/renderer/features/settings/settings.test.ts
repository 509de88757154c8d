import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { KeyStatus } from '../../../../../src-shared/providers';
import { DEFAULT_SETTINGS } from '../../../../../src-shared/settings';
import { createAppStore } from '../../../../../src-renderer/app/store';
import { rangeOf, validateSetting } from '../../../../../src-renderer/features/settings/slice';
import { fakeApi } from '../../fake-api';

const keyStatus = (stored: boolean): KeyStatus => ({
  profile: 'openai',
  stored,
  source: stored ? 'keychain' : null,
  required: true,
  keychain: { available: true },
  problem: stored ? null : { error: 'no API key for openai', hint: 'set one in Settings' },
});

describe('settings slice', () => {
  it('takes the sliders’ ranges from the settings schemas', () => {
    expect(rangeOf('temperature')).toEqual({ min: 0, max: 2, step: 0.05 });
    expect(rangeOf('maxTokens')).toEqual({ min: 16, max: 32_000, step: 1 });
    expect(rangeOf('maxActions')).toEqual({ min: 1, max: 200, step: 1 });
    expect(rangeOf('historyLength')).toEqual({ min: 2, max: 200, step: 1 });
    expect(rangeOf('timeLimitSec')).toEqual({ min: 5, max: 3600, step: 1 });
  });

  it('validates inline with the same schemas as the main side', () => {
    expect(validateSetting('temperature', 0.7)).toBeNull();
    expect(validateSetting('temperature', 3)).toBe('must be from 0 to 2');
    expect(validateSetting('temperature', '')).toBe('must be a number from 0 to 2');
    expect(validateSetting('maxActions', 'lots')).toBe('must be a number from 1 to 200');
    expect(validateSetting('maxTokens', 12.5)).toMatch(/whole number/);
    expect(validateSetting('approvals.complete_task', 'auto')).toBeNull();
    expect(validateSetting('approvals.complete_task', 'sometimes')).not.toBeNull();
    expect(validateSetting('quickCaptureShortcut', 'Space')).toMatch(/needs a modifier/);
    expect(validateSetting('nope', 1)).toBe('there is no setting "nope"');
  });

  it('does not send an invalid value; sends a valid one; shows a refusal from the main side inline', async () => {
    const fake = fakeApi({ 'settings.set': ({ key, value }) => ({ ...DEFAULT_SETTINGS, [key]: value }) as never });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().saveSetting('maxActions', 500)).toBe(false);
    expect(fake.callsTo('settings.set')).toEqual([]);
    expect(store.getState().settingErrors['maxActions']).toBe('must be from 1 to 200');

    expect(await store.getState().saveSetting('maxActions', 30)).toBe(true);
    expect(fake.callsTo('settings.set')).toEqual([{ key: 'maxActions', value: 30 }]);
    expect(store.getState().settingErrors['maxActions']).toBeUndefined();
    expect(store.getState().settings.value?.maxActions).toBe(30);
    expect(store.getState().settingSaved).toBe('maxActions');

    fake.handlers['settings.set'] = () => {
      throw new BridgeError('failed', 'the shortcut is taken by another app', 'pick another one');
    };
    expect(await store.getState().saveSetting('quickCaptureShortcut', 'Alt+Space')).toBe(false);
    expect(store.getState().settingErrors['quickCaptureShortcut']).toBe('the shortcut is taken by another app — pick another one');
  });

  it('hands the key to the main side and keeps no copy of it', async () => {
    const fake = fakeApi({ 'keys.set': () => keyStatus(true), 'keys.clear': () => keyStatus(false) });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().setKey('  sk-test-SECRET-1234  ')).toBe(true);
    expect(fake.callsTo('keys.set')).toEqual([{ key: 'sk-test-SECRET-1234' }]);
    expect(store.getState().keyStatus.value?.stored).toBe(true);
    expect(JSON.stringify(store.getState())).not.toContain('SECRET');

    expect(await store.getState().setKey('   ')).toBe(false);
    expect(store.getState().keyProblem?.message).toBe('the key is empty');
    expect(await store.getState().clearKey()).toBe(true);
    expect(store.getState().keyStatus.value?.stored).toBe(false);
  });

  it('validates a profile’s endpoint before sending it', async () => {
    const fake = fakeApi({
      'providers.update': ({ id, baseUrl }) => ({ id, preset: 'custom', baseUrl: baseUrl ?? '', model: 'm' }),
      'providers.list': () => ({ profiles: [], active: 'openai' }),
    });
    const store = createAppStore({ api: fake.api });
    expect(await store.getState().updateProfile('local', { baseUrl: 'ftp://example.org' })).toBe(false);
    expect(store.getState().settingErrors['profile.baseUrl']).toMatch(/http\(s\) URL/);
    expect(fake.callsTo('providers.update')).toEqual([]);
    expect(await store.getState().updateProfile('local', { baseUrl: 'http://127.0.0.1:8080/v1' })).toBe(true);
    expect(fake.callsTo('providers.update')).toEqual([{ id: 'local', baseUrl: 'http://127.0.0.1:8080/v1' }]);
  });

  it('lists the agent’s tools once, for the approval settings', async () => {
    const fake = fakeApi({ 'agent.tools': () => [{ name: 'complete_task', description: 'Mark a task done.', changes: true, approval: 'ask' as const }] });
    const store = createAppStore({ api: fake.api });
    await store.getState().loadTools();
    await store.getState().loadTools();
    expect(store.getState().tools.value).toEqual([{ name: 'complete_task', description: 'Mark a task done.', changes: true, approval: 'ask' as const }]);
    expect(fake.callsTo('agent.tools')).toHaveLength(1);
  });

  it('remembers whether the trace panel is open, and nothing else', () => {
    const saved = new Map<string, string>();
    const storage = { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => void saved.set(k, v), removeItem: (k: string) => void saved.delete(k) };
    const first = createAppStore({ api: fakeApi().api, storage });
    first.getState().toggleTrace(false);
    first.getState().show('actions');
    const second = createAppStore({ api: fakeApi().api, storage });
    expect(second.getState().traceOpen).toBe(false);
    expect(second.getState().view).toBe('chat');
  });
});
