// The Routines view's store part, with a fake bridge: loading, the form's refusal given back in one line,
// Run now loading the run's changes and saying how it went, refreshes only once the view was opened, only
// routines' pending approvals, and a button pressed twice calling once.
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { ActionEntry } from '../../../../../src-shared/domain';
import type { PendingApproval } from '../../../../../src-shared/approvals';
import type { RoutineInfo, RoutineRun } from '../../../../../src-shared/routines';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { deferred, fakeApi, flush } from '../../fake-api';

const RUN: RoutineRun = {
  routineId: 'r1',
  occurrence: '2035-01-01T08:00:00.000Z',
  kind: 'manual',
  claimedAt: '2035-01-01T08:00:00.000Z',
  claimedBy: 'test',
  runId: 'run1',
  status: 'done',
  message: null,
  finishedAt: '2035-01-01T08:00:05.000Z',
};
const ROUTINE: RoutineInfo = {
  id: 'r1',
  name: 'Morning plan',
  request: 'plan my day',
  schedule: 'every weekday at 08:00',
  rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  tz: 'UTC',
  conversation: 'routine',
  tools: null,
  enabled: true,
  catchUp: 'once',
  maxActions: null,
  timeLimitSec: null,
  nextRuns: ['2035-01-02T08:00:00.000Z'],
  lastRun: null,
  failures: 0,
};
const ENTRY = { id: 'a1', requestId: 'run1', summary: 'Added task "Call Ana"', undoneAt: null, undoes: null } as unknown as ActionEntry;
const approval = (id: string, routineId: string | null, decidedAt: string | null = null) =>
  ({ id, routineId, decidedAt, card: { approvalId: 'ap1', message: 'Delete 3 tasks?' } }) as unknown as PendingApproval;

function setup() {
  const fake = fakeApi({
    'routines.list': () => [ROUTINE],
    'routines.history': () => [RUN],
    'approvals.list': () => [approval('w1', 'r1'), approval('w2', null), approval('w3', 'r1', '2035-01-01T09:00:00.000Z')],
    'actions.list': () => ({ groups: [{ requestId: 'run1', actions: [ENTRY] } as never], nextBefore: null }),
  });
  const store = createAppStore({ api: fake.api });
  connectStore(store, fake.api);
  return { fake, store };
}

describe('the routines slice', () => {
  it('loads the routines, their history and only the routines\' unanswered approvals', async () => {
    const { store } = setup();
    await store.getState().loadRoutines();
    const s = store.getState();
    expect(s.routines.value).toEqual([ROUTINE]);
    expect(s.routineRuns.value).toEqual([RUN]);
    expect(s.routineApprovals.value!.map((a) => a.id)).toEqual(['w1']);
  });

  it('gives the form the schedule\'s one-line refusal and keeps the list as it was', async () => {
    const { fake, store } = setup();
    fake.handlers['routines.add'] = () => {
      throw new BridgeError('failed', '"whenever" is not a schedule Tidy understands', 'write it as in "every weekday at 8am"');
    };
    const problem = await store.getState().addRoutine({ name: ' Morning ', schedule: ' whenever ', request: 'x'.repeat(2000) });
    expect(problem?.message).toBe('"whenever" is not a schedule Tidy understands');
    expect(fake.callsTo('routines.add')).toEqual([{ name: 'Morning', schedule: 'whenever', request: 'x'.repeat(2000) }]);
    expect(fake.callsTo('routines.list')).toEqual([]);
  });

  it('runs now once however often pressed, then loads its changes and says how it went', async () => {
    const { fake, store } = setup();
    await store.getState().loadRoutines();
    const gate = deferred<{ status: string; runId: string | null; message: string | null; waitingFor: string | null }>();
    fake.handlers['routines.runNow'] = () => gate.promise;
    const first = store.getState().runRoutineNow('r1');
    const second = store.getState().runRoutineNow('r1');
    expect(store.getState().routineBusy).toEqual({ r1: true });
    gate.resolve({ status: 'done', runId: 'run1', message: null, waitingFor: null });
    await Promise.all([first, second]);
    expect(fake.callsTo('routines.runNow')).toHaveLength(1);
    expect(store.getState().routineBusy).toEqual({});
    expect(store.getState().routineChanges).toEqual({ run1: [ENTRY] });
    expect(store.getState().notices.at(-1)?.text).toBe('Morning plan ran; its changes are in the history.');
  });

  it('tells a refused Run now in a notice', async () => {
    const { fake, store } = setup();
    fake.handlers['routines.runNow'] = () => {
      throw new BridgeError('failed', 'no routine "r9"', 'see tidy routines list');
    };
    await store.getState().runRoutineNow('r9');
    expect(store.getState().notices.at(-1)?.tone).toBe('error');
    expect(store.getState().routineBusy).toEqual({});
  });

  it('refreshes on data.changed only once the view has loaded, and the shown runs\' changes on undo', async () => {
    const { fake, store } = setup();
    fake.emit('data.changed', { topics: ['routines', 'actions'] });
    await flush();
    expect(fake.calls).toEqual([]);

    await store.getState().loadRoutines();
    await store.getState().loadRoutineChanges('run1');
    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['actions'] });
    await flush();
    expect(fake.calls.map((c) => c.channel)).toEqual(['actions.list']);

    fake.calls.length = 0;
    fake.emit('data.changed', { topics: ['runs'] });
    await flush();
    expect(fake.calls.map((c) => c.channel).sort()).toEqual(['approvals.list', 'routines.history', 'routines.list']);
  });

  it('shows a routine.notice with "Show routines", cut when huge, and not twice for this window\'s Run now', async () => {
    const { fake, store } = setup();
    fake.emit('routine.notice', { kind: 'failed', routineId: 'r1', routineName: 'Morning plan', text: 'x'.repeat(100_000), runId: 'run1' });
    const n = store.getState().notices.at(-1)!;
    expect(n.tone).toBe('error');
    expect(n.text.length).toBeLessThanOrEqual(301);
    expect(n.action?.label).toBe('Show routines');
    n.action!.run();
    expect(store.getState().view).toBe('routines');

    const gate = deferred<{ status: string; runId: string | null; message: string | null; waitingFor: string | null }>();
    fake.handlers['routines.runNow'] = () => gate.promise;
    await store.getState().loadRoutines();
    const running = store.getState().runRoutineNow('r1');
    const before = store.getState().notices.length;
    fake.emit('routine.notice', { kind: 'changed', routineId: 'r1', routineName: 'Morning plan', text: 'Routine "Morning plan" changed things; see its history to undo.' });
    expect(store.getState().notices.length).toBe(before);
    gate.resolve({ status: 'waiting', runId: null, message: null, waitingFor: 'w1' });
    await running;
    expect(store.getState().notices.at(-1)?.text).toBe('Morning plan waits for your answer.');
  });

  it('says a removal in a notice whose Undo undoes that logged action', async () => {
    const { fake, store } = setup();
    fake.handlers['routines.remove'] = () => ({ value: ROUTINE, actionId: 'a9' });
    fake.handlers['actions.undo'] = () => ({ reversed: [], created: [] });
    await store.getState().removeRoutine('r1');
    const n = store.getState().notices.at(-1)!;
    expect(n.text).toBe('Removed routine: Morning plan');
    expect(n.action?.label).toBe('Undo');
    expect(await n.action!.run()).toBe(true);
    expect(fake.callsTo('actions.undo')).toEqual([{ actionId: 'a9' }]);
  });

  it('edits a routine with only what changed, gives the form a refusal, and says a change with Undo', async () => {
    const { fake, store } = setup();
    fake.handlers['routines.edit'] = (i: { schedule?: string }) => {
      if (i.schedule === 'whenever') throw new BridgeError('failed', '"whenever" is not a schedule Tidy understands', 'write it as in "every weekday at 8am"');
      return { value: { ...ROUTINE, name: 'Friday review' }, actionId: 'a12' };
    };
    fake.handlers['actions.undo'] = () => ({ reversed: [], created: [] });
    const refused = await store.getState().editRoutine('r1', { schedule: 'whenever' });
    expect(refused?.message).toMatch(/is not a schedule Tidy understands/);
    expect(await store.getState().editRoutine('r1', { name: 'Friday review', tools: ['add_task'], maxActions: 5 })).toBeNull();
    expect(fake.callsTo('routines.edit').at(-1)).toEqual({ routine: 'r1', name: 'Friday review', tools: ['add_task'], maxActions: 5 });
    const n = store.getState().notices.at(-1)!;
    expect(n.text).toBe('Changed routine: Friday review');
    expect(await n.action!.run()).toBe(true);
    expect(fake.callsTo('actions.undo')).toEqual([{ actionId: 'a12' }]);
  });

  it('opens a run in the chat: its conversation, at that run, with the trace shown', async () => {
    const { fake, store } = setup();
    fake.handlers['runs.trace'] = () => ({ run: { id: 'run1', conversationId: 'c7' }, events: [] }) as never;
    fake.handlers['runs.list'] = () => [];
    store.getState().toggleTrace(false);
    await store.getState().openRoutineRun('run1');
    const s = store.getState();
    expect([s.view, s.conversationId, s.traceRunId, s.traceOpen]).toEqual(['chat', 'c7', 'run1', true]);
  });
});
