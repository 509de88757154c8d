import { describe, expect, it } from 'vitest';
import { connectStore, createAppStore } from '../../../../src-renderer/app/store';
import { isView, VIEW_DEFS, VIEWS, viewForDigit } from '../../../../src-renderer/store/views';
import { fakeApi, flush } from '../fake-api';

describe('the view registry', () => {
  it('gives each view one id, a label, an icon and its place in Alt+1…', () => {
    expect(VIEWS).toEqual(['chat', 'inbox', 'today', 'upcoming', 'calendar', 'projects', 'lists', 'actions', 'settings', 'completed', 'search', 'labels', 'filters', 'routines', 'memory']);
    expect(new Set(VIEW_DEFS.map((v) => v.label)).size).toBe(VIEW_DEFS.length);
    for (const v of VIEW_DEFS) expect(v.icon).toMatch(/^M[\d .,A-Za-z-]+$/);
    // Alt+1…9 reach the first nine; Search has Ctrl+F and / instead.
    expect(VIEWS.slice(0, 9).map((_, i) => viewForDigit(`Digit${i + 1}`))).toEqual(VIEWS.slice(0, 9));
    expect(viewForDigit('Digit0')).toBeNull();
    expect(viewForDigit('KeyA')).toBeNull();
    expect(isView('actions')).toBe(true);
    expect(isView('__proto__')).toBe(false);
    expect(isView('capture')).toBe(false);
  });

  it('refreshes on data.changed only the views whose topics changed, and only what they loaded', async () => {
    const fake = fakeApi({
      'actions.list': () => ({ groups: [], nextBefore: null }),
      'settings.get': () => {
        throw new Error('settings were never loaded: not refetched');
      },
      'tasks.list': () => ({ tasks: [], total: 0 }),
      'projects.list': () => [],
      'conversations.list': () => [],
    });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().loadActions();
    await store.getState().loadInbox();
    fake.calls.length = 0;

    fake.emit('data.changed', { topics: ['actions'] });
    await flush();
    expect(fake.calls.map((c) => c.channel)).toEqual(['actions.list']);

    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['settings', 'conversations'] });
    await flush();
    expect(fake.calls.map((c) => c.channel)).toEqual(['conversations.list']);

    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['tasks'] });
    await flush();
    // The inbox was loaded, the projects were not.
    expect(fake.calls.map((c) => c.channel)).toEqual(['tasks.list']);
  });
});
