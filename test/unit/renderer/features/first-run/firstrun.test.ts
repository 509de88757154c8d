// The store behind the first-run welcome and the quick-capture answer: a key refused by the keychain is
// reported (and the form told not to forget it), a working test makes the examples appear and clears stale
// errors, a profile change clears what was said about the last one, and the capture answer's changes.
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { ConnectionReport, KeyStatus, ProviderProfile } from '../../../../../src-shared/providers';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { fakeApi } from '../../fake-api';
import { events, finished, started, what } from '../../fixtures';

const report = (ok: boolean): ConnectionReport => ({
  ok,
  problem: ok ? null : 'no_key',
  message: ok ? 'connected to 127.0.0.1:11434: 2 models listed' : 'no API key for profile openai',
  hint: ok ? '' : 'add a key or pick a local server',
  url: 'http://127.0.0.1:11434/v1/models',
  status: ok ? 200 : null,
  keySource: null,
  models: ok ? ['a', 'b'] : [],
  modelCount: ok ? 2 : 0,
  model: 'a',
  modelListed: ok,
  warning: null,
  elapsedMs: 3,
});
const status: KeyStatus = { profile: 'custom', stored: true, source: 'keychain', required: false, keychain: { available: true }, problem: null };
const openai: ProviderProfile = { id: 'openai', preset: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' };

describe('first-run setup in the store', () => {
  it('checks the active profile once: needed when it fails, ready when it works', async () => {
    const fake = fakeApi({ 'providers.test': () => report(false) });
    const store = createAppStore({ api: fake.api });
    await store.getState().checkSetup();
    await store.getState().checkSetup();
    expect(store.getState().setup.state).toBe('needed');
    expect(fake.callsTo('providers.test')).toHaveLength(1);
  });

  it('a keychain refusal is reported, nothing else is changed, and the form may keep the key', async () => {
    const fake = fakeApi({
      'providers.list': () => ({ profiles: [openai], active: 'openai' }),
      'providers.update': (i) => ({ ...openai, ...i }) as ProviderProfile,
      'keys.set': () => {
        throw new BridgeError('failed', 'no OS keychain available (no keyring service is running)', "start your desktop's keyring", 'keychain_unavailable');
      },
    });
    const store = createAppStore({ api: fake.api });
    const r = await store.getState().setUpModel({ id: 'openai', preset: 'openai', baseUrl: openai.baseUrl, model: 'gpt-4o-mini', key: 'sk-typed-SECRET' });
    expect(r).toMatchObject({ keySaved: false, report: null, problem: { message: 'no OS keychain available (no keyring service is running)' } });
    expect(fake.callsTo('providers.use')).toEqual([]);
    expect(store.getState().setup.state).toBe('unknown');
    expect(JSON.stringify(store.getState())).not.toContain('SECRET');
  });

  it('adds a new profile, stores its key, uses and tests it; a working test clears stale errors', async () => {
    const custom: ProviderProfile = { id: 'custom', preset: 'custom', baseUrl: 'http://127.0.0.1:8000/v1', model: 'a' };
    const fake = fakeApi({
      'providers.list': () => ({ profiles: [openai], active: 'openai' }),
      'providers.add': () => custom,
      'keys.set': () => status,
      'keys.status': () => status,
      'providers.use': () => ({ profiles: [openai, custom], active: 'custom' }),
      'providers.test': () => report(true),
    });
    const store = createAppStore({ api: fake.api });
    store.setState({ sendProblem: { message: 'no API key for profile openai', hint: 'add a key', code: 'failed' }, keyProblem: { message: 'old', hint: '', code: 'failed' } });
    const r = await store.getState().setUpModel({ id: 'custom', preset: 'custom', baseUrl: custom.baseUrl, model: 'a', key: ' sk-1 ' });
    expect(r).toMatchObject({ keySaved: true, problem: null, report: { ok: true } });
    expect(fake.callsTo('providers.add')).toEqual([{ id: 'custom', preset: 'custom', baseUrl: custom.baseUrl, model: 'a' }]);
    expect(fake.callsTo('keys.set')).toEqual([{ profile: 'custom', key: 'sk-1' }]);
    expect(fake.callsTo('providers.test')).toEqual([{ id: 'custom' }]);
    expect(store.getState()).toMatchObject({ setup: { state: 'ready' }, sendProblem: null, keyProblem: null });
  });

  it('a model whose context window cannot hold Tidy’s prompt keeps the welcome until "Use it anyway"', async () => {
    const local: ProviderProfile = { id: 'ollama', preset: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' };
    const small: ConnectionReport = {
      ...report(true),
      context: { tokens: 4096, modelMax: 40960, source: 'the num_ctx of the model', promptTokens: 3600, budget: null, tooSmall: true, note: 'context window 4,096 tokens: too small' },
    };
    const fake = fakeApi({
      'providers.list': () => ({ profiles: [openai, local], active: 'openai' }),
      'providers.update': () => local,
      'providers.use': () => ({ profiles: [openai, local], active: 'ollama' }),
      'providers.test': () => small,
      'keys.status': () => status,
    });
    const store = createAppStore({ api: fake.api });
    const r = await store.getState().setUpModel({ id: 'ollama', preset: 'ollama', baseUrl: local.baseUrl, model: 'qwen3:8b' });
    expect(r.report?.context?.tooSmall).toBe(true);
    expect(store.getState().setup.state).not.toBe('ready');
    store.getState().acceptSetup(small);
    expect(store.getState().setup).toEqual({ state: 'ready', report: small });
  });

  it('switching the profile clears what was said about the last one and checks again', async () => {
    const fake = fakeApi({ 'providers.use': () => ({ profiles: [openai], active: 'openai' }) });
    const store = createAppStore({ api: fake.api });
    store.setState({
      sendProblem: { message: 'no API key', hint: '', code: 'failed' },
      keyProblem: { message: 'no OS keychain available', hint: '', code: 'failed' },
      setup: { state: 'needed', report: report(false) },
    });
    expect(await store.getState().switchProfile('openai')).toBe(true);
    expect(store.getState()).toMatchObject({ sendProblem: null, keyProblem: null, setup: { state: 'unknown', report: null } });
  });
});

describe('the quick-capture answer in the store', () => {
  it('remembers the run it asked for, lists only that run’s changes, and opens its conversation in Tidy', async () => {
    const entry = (id: string, requestId: string) => ({ id, requestId, source: 'agent' as const, tool: 'add_task', args: {}, summary: `Added ${id}`, what: what('added'), createdAt: '', undoneAt: null, undoes: null });
    const fake = fakeApi({
      'capture.ask': () => ({ runId: 'r4', conversationId: 'c2' }),
      'actions.list': () => ({ groups: [{ requestId: 'r4', source: 'agent', request: 'x', actions: [entry('a9', 'r4'), entry('a8', 'r4')] }], nextBefore: null }),
      'app.open': () => ({ opened: true }),
    });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    expect(await store.getState().openInTidy()).toBeNull();
    expect(fake.callsTo('app.open')).toEqual([]);
    expect(await store.getState().askFromCapture('plan the garden')).toBeNull();
    expect(store.getState().captureRun).toEqual({ runId: 'r4', conversationId: 'c2' });
    await store.getState().loadCaptureChanges();
    expect(fake.callsTo('actions.list')).toEqual([{ requestId: 'r4', limit: 1000 }]);
    expect(store.getState().captureChanges.value?.map((a) => a.id)).toEqual(['a9', 'a8']);
    expect(await store.getState().openInTidy()).toBeNull();
    expect(fake.callsTo('app.open')).toEqual([{ conversationId: 'c2' }]);

    fake.handlers['capture.ask'] = () => {
      throw new BridgeError('failed', 'no API key for profile openai', 'add a key or pick a local server', 'no_key');
    };
    expect(await store.getState().askFromCapture('again')).toMatchObject({ message: 'no API key for profile openai' });
    // A new capture keeps the answer of a run still going (it may wait for an approval only shown there)…
    store.getState().clearCapture();
    expect(store.getState().captureRun).toEqual({ runId: 'r4', conversationId: 'c2' });
    // …and forgets it once the run has ended.
    for (const e of events('r4', started('c2', 'plan the garden'), finished('done', 2))) fake.emit('agent.event', e);
    expect(store.getState().runs['r4']?.status).toBe('done');
    store.getState().clearCapture();
    expect(store.getState().captureRun).toBeNull();
  });
});
