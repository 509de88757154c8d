import { describe, expect, it } from 'vitest';
import { createAppStore, writeOnChange } from '../../../../../src-renderer/app/store';
import { fakeApi } from '../../fake-api';
import { events, started } from '../../fixtures';

/** A frame scheduler the test drives: pieces wait until frame() is called. */
function manualFrames() {
  let queued: (() => void)[] = [];
  return {
    nextFrame: (flush: () => void) => void queued.push(flush),
    frame: () => {
      const q = queued;
      queued = [];
      for (const f of q) f();
    },
    get pending() {
      return queued.length;
    },
  };
}

describe('streamed text is folded in once per frame', () => {
  it('many pieces within a frame make one store update; the text is whole and in order', () => {
    const frames = manualFrames();
    const store = createAppStore({ api: fakeApi({}).api, nextFrame: frames.nextFrame });
    let updates = 0;
    store.subscribe(() => updates++);
    const [start, ...pieces] = events('r1', started('c1', 'hi'), ...Array.from({ length: 50 }, (_, i) => ({ type: 'text_delta' as const, kind: 'text' as const, text: `${i} ` })));
    store.getState().receive(start!);
    updates = 0;
    for (const p of pieces) store.getState().receive(p);
    expect(updates).toBe(0);
    expect(frames.pending).toBe(1);
    frames.frame();
    expect(updates).toBe(1);
    expect(store.getState().runs['r1']!.streamed).toBe(Array.from({ length: 50 }, (_, i) => `${i} `).join(''));
  });

  it('any other event applies the waiting pieces first, so order is kept', () => {
    const frames = manualFrames();
    const store = createAppStore({ api: fakeApi({}).api, nextFrame: frames.nextFrame });
    const evs = events('r1', started('c1', 'hi'), { type: 'text_delta', kind: 'text', text: 'Thinking about it' }, { type: 'thought', text: 'Thinking about it' });
    for (const e of evs) store.getState().receive(e);
    // The thought arrived after the piece: it resets what was streamed, as it would have unbatched.
    expect(store.getState().runs['r1']!.streamed).toBe('');
    frames.frame(); // the scheduled flush finds nothing left to do
    expect(store.getState().runs['r1']!.streamed).toBe('');
  });

  it('without a screen (nextFrame null) every piece applies at once', () => {
    const store = createAppStore({ api: fakeApi({}).api, nextFrame: null });
    for (const e of events('r1', started('c1', 'hi'), { type: 'text_delta', kind: 'text', text: 'a' })) store.getState().receive(e);
    expect(store.getState().runs['r1']!.streamed).toBe('a');
  });
});

describe('writeOnChange', () => {
  it('writes a key to storage only when its value changes (not on every state change)', () => {
    const writes: string[] = [];
    const storage = writeOnChange({ getItem: () => null, setItem: (_k, v) => void writes.push(v), removeItem: () => {} });
    storage.setItem('k', 'a');
    storage.setItem('k', 'a');
    storage.setItem('k', 'b');
    storage.removeItem('k');
    storage.setItem('k', 'b');
    expect(writes).toEqual(['a', 'b', 'b']);
  });

  it('streaming 200 pieces writes the UI preferences at most once', () => {
    const writes: string[] = [];
    const frames = manualFrames();
    const store = createAppStore({ api: fakeApi({}).api, nextFrame: frames.nextFrame, storage: { getItem: () => null, setItem: (_k, v) => void writes.push(v), removeItem: () => {} } });
    const evs = events('r1', started('c1', 'hi'), ...Array.from({ length: 200 }, () => ({ type: 'text_delta' as const, kind: 'text' as const, text: 'x' })));
    for (const e of evs) {
      store.getState().receive(e);
      frames.frame();
    }
    expect(writes.length).toBeLessThanOrEqual(1);
  });
});
