import { describe, expect, it } from 'vitest';
import { createAppStore } from '../../../src-renderer/app/store';
import { traceShown } from '../../../src-renderer/store/nav';
import { fakeApi } from './fake-api';

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
