// What the desktop app does for routines, decided in plain Node: which notices become system notifications
// and with which words (bounded, one line, no control or bidi characters from a name or a model's message),
// and what closing the main window does with the tray setting on, off, and while quitting.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src-shared/settings';
import { onMainWindowClose, routineNotification } from '../../../src-main/core/routines/desktop';

const notice = (kind: 'changed' | 'waiting' | 'paused' | 'failed', extra: Partial<Parameters<typeof routineNotification>[0]> = {}) => ({
  kind,
  routineId: 'o1',
  routineName: 'Morning plan',
  text: `Routine "Morning plan" ${kind}`,
  runId: 'r7',
  ...extra,
});

describe('routine notifications', () => {
  it('notifies a run that changed something, one that waits for an answer, and a paused routine; not a single failure nor the scheduler’s own', () => {
    expect(routineNotification(notice('changed'))).toEqual({ title: 'Morning plan changed things', body: 'Open Routines to see what it changed and undo it.', tag: 'tidy-routine-o1-r7' });
    expect(routineNotification(notice('waiting', { approvalId: 'w3', runId: undefined }))).toEqual({
      title: 'Morning plan waits for your answer',
      body: 'It asks before a change: answer it in Routines or with tidy approvals.',
      tag: 'tidy-routine-o1-w3',
    });
    expect(routineNotification(notice('paused', { text: 'Routine "Morning plan" was paused after 3 failed runs in a row.' }))).toMatchObject({
      title: 'Morning plan was paused',
      body: 'Routine "Morning plan" was paused after 3 failed runs in a row.',
    });
    // Tidy's window in front shows the notice itself.
    expect(routineNotification(notice('changed'), { windowInFront: true })).toBeNull();
    expect(routineNotification(notice('waiting'), { windowInFront: false })).not.toBeNull();
    expect(routineNotification(notice('failed'))).toBeNull();
    expect(routineNotification(notice('failed', { routineId: '', routineName: '', text: 'routines could not run: disk full' }))).toBeNull();
  });

  it('keeps hostile names and messages to one bounded line without control or bidi characters', () => {
    const shown = routineNotification(notice('paused', { routineName: `Evil\u202e\u001b[2J\nname${'x'.repeat(10_000)}`, text: `line one\nline two\u2066${'y'.repeat(100_000)}` }))!;
    expect(shown.title.length).toBeLessThanOrEqual(80);
    expect(shown.body.length).toBeLessThanOrEqual(200);
    for (const s of [shown.title, shown.body]) {
      // eslint-disable-next-line no-control-regex
      expect(s).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(s).toContain('…');
    }
    expect(shown.title.endsWith('… was paused')).toBe(true);
    expect(shown.title.startsWith('Evil')).toBe(true);
    expect(shown.body.startsWith('line one line two')).toBe(true);
    expect(routineNotification(notice('changed', { routineName: '\u202e\u0007' }))!.title).toBe('A routine changed things');
  });
});

describe('closing the main window', () => {
  it('hides it into the tray when the setting is on (the default), quits when it is off, and just closes while quitting', () => {
    expect(DEFAULT_SETTINGS.keepInTray).toBe(true);
    expect(onMainWindowClose({ keepInTray: true, quitting: false })).toBe('hide');
    expect(onMainWindowClose({ keepInTray: false, quitting: false })).toBe('quit');
    expect(onMainWindowClose({ keepInTray: true, quitting: true })).toBe('close');
    expect(onMainWindowClose({ keepInTray: false, quitting: true })).toBe('close');
  });
});
