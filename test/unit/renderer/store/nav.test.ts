import { describe, expect, it } from 'vitest';
import { createAppStore } from '../../../../src-renderer/app/store';
import { MAX_NOTICES, NOTICE_MS, noticeLifetime, traceShown } from '../../../../src-renderer/store/nav';
import { fakeApi } from '../fake-api';

describe('nav slice', () => {
  it('keeps the newest notices and the newest announcements apart: many announcements never push an error out', () => {
    const store = createAppStore({ api: fakeApi().api });
    store.getState().notify('the key was refused', 'error');
    for (let i = 1; i <= 5; i++) store.getState().announce(`said ${i}`);
    const notices = store.getState().notices.map((n) => [n.tone, n.text]);
    expect(notices).toEqual([
      ['error', 'the key was refused'],
      ['announce', 'said 3'],
      ['announce', 'said 4'],
      ['announce', 'said 5'],
    ]);
  });

  it('a plain notice goes by itself; one holding an action, or an error, waits for the user', () => {
    expect(noticeLifetime({ tone: 'info' })).toBe(NOTICE_MS);
    expect(noticeLifetime({ tone: 'announce' })).toBe(NOTICE_MS);
    expect(noticeLifetime({ tone: 'info', action: { label: 'Undo', run: () => undefined } })).toBeNull();
    expect(noticeLifetime({ tone: 'error' })).toBeNull();
  });

  it('notices never stack without end, and those with an action leave when the view changes', () => {
    const store = createAppStore({ api: fakeApi().api });
    const open = { label: 'Open', run: () => undefined };
    for (let i = 1; i <= 50; i++) store.getState().notify(`Added ${i} to Family`, 'info', open);
    const shown = () => store.getState().notices.filter((n) => n.tone !== 'announce');
    expect(shown().map((n) => n.text)).toEqual(Array.from({ length: MAX_NOTICES }, (_, i) => `Added ${50 - MAX_NOTICES + 1 + i} to Family`));
    store.getState().notify('Backup made.');
    store.getState().show(store.getState().view); // the same view: nothing goes
    expect(shown()).toHaveLength(MAX_NOTICES);
    store.getState().show(store.getState().view === 'inbox' ? 'today' : 'inbox');
    expect(shown().map((n) => n.text)).toEqual(['Backup made.']);
  });

  it('in a narrow window the trace is an overlay, closed until asked for, and the docked choice is kept', () => {
    const store = createAppStore({ api: fakeApi().api });
    expect(traceShown(store.getState())).toBe(true);
    store.getState().setNarrow(true);
    expect(traceShown(store.getState())).toBe(false);
    store.getState().toggleTrace();
    expect(traceShown(store.getState())).toBe(true);
    expect(store.getState().traceOpen).toBe(true);
    store.getState().toggleTrace(false);
    store.getState().setNarrow(false);
    expect(traceShown(store.getState())).toBe(true);
  });
});
