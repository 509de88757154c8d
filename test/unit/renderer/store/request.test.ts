// The one way the renderer calls the bridge (src-renderer/store/request.ts): a refusal becomes a Problem
// with its code, message and hint; `request` tells it in an error notice, `attempt` gives it back for an
// inline error. Nothing else in the renderer writes its own try/notify.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../src-shared/bridge';
import { createAppStore } from '../../../../src-renderer/app/store';
import { attempt, outcome, request } from '../../../../src-renderer/store/request';
import { REPO } from '../../../support/cli';
import { fakeApi } from '../fake-api';

const refused = () => {
  throw new BridgeError('failed', 'no conversation c9', 'pick one from the list');
};

describe('request and attempt', () => {
  it('request tells a refusal in an error notice with its code, message and hint', async () => {
    const store = createAppStore({ api: fakeApi().api });
    const r = await request(store.getState, async () => refused());
    expect(r).toMatchObject({ ok: false, problem: { code: 'failed', message: 'no conversation c9', hint: 'pick one from the list' } });
    expect(store.getState().notices).toEqual([expect.objectContaining({ tone: 'error', code: 'failed', text: 'no conversation c9 — pick one from the list' })]);
  });

  it('request answers the value and tells nothing when it worked; words may reword the refusal', async () => {
    const store = createAppStore({ api: fakeApi().api });
    expect(await request(store.getState, async () => 42)).toEqual({ ok: true, value: 42 });
    expect(store.getState().notices).toEqual([]);
    await request(store.getState, async () => refused(), (p) => ({ ...p, message: 'Could not open it' }));
    expect(store.getState().notices.map((n) => n.text)).toEqual(['Could not open it — pick one from the list']);
  });

  it('a bug, or something thrown that is no Error, is a client problem and not a crash', async () => {
    const store = createAppStore({ api: fakeApi().api });
    await request(store.getState, async () => {
      throw new TypeError('x is undefined');
    });
    expect(await attempt(() => Promise.reject('a string'))).toMatchObject({ code: 'client', message: 'a string' });
    expect(await outcome(() => Promise.reject({ deep: { deeper: {} } }))).toMatchObject({ ok: false, problem: { code: 'client' } });
    expect(store.getState().notices).toEqual([expect.objectContaining({ tone: 'error', code: 'client', text: expect.stringContaining('x is undefined — ') })]);
  });

  it('attempt gives the problem back (for an inline error) and shows nothing', async () => {
    const store = createAppStore({ api: fakeApi().api });
    const seen: number[] = [];
    expect(await attempt(async () => 7, (v) => seen.push(v))).toBeNull();
    expect(seen).toEqual([7]);
    const huge = 'x'.repeat(1_000_000);
    expect(await attempt(async () => {
      throw new BridgeError('invalid_input', huge, 'shorter');
    })).toMatchObject({ code: 'invalid_input', hint: 'shorter' });
    expect(store.getState().notices).toEqual([]);
  });

  it('no renderer file outside the action log spells out a try/notify of a problem by hand', () => {
    const root = join(REPO, 'src-renderer');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) files.push(p);
      }
    };
    walk(root);
    // features/actions/slice.ts keeps its undo wording until actions carry structure (issue 27, item 3).
    const handWritten = /notify\(`\$\{\w+(\.\w+)?\.message\} — /;
    const offenders = files.filter((f) => !f.endsWith(join('features', 'actions', 'slice.ts')) && handWritten.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
