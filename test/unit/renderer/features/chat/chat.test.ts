import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../../../../src-shared/bridge';
import type { RunErrorKind, RunInfo } from '../../../../../src-shared/events';
import { runAdvice, sendAdvice } from '../../../../../src-renderer/lib/advice';
import { applyEvent, replay, waitingApprovals, type RunState } from '../../../../../src-renderer/lib/runs';
import { connectStore, createAppStore } from '../../../../../src-renderer/app/store';
import { activeRun, waitingApproval } from '../../../../../src-renderer/features/chat/slice';
import { deferred, fakeApi } from '../../fake-api';
import { at, events, finished, started } from '../../fixtures';

const info = (id: string, conversationId: string, request: string, more: Partial<RunInfo> = {}): RunInfo => ({
  id,
  conversationId,
  status: 'done',
  request,
  answer: `answer to ${request}`,
  message: null,
  stopReason: null,
  model: 'fake-model',
  protocol: 'native',
  actions: 2,
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  startedAt: at(0),
  finishedAt: at(3),
  ...more,
});

const REQUEST = 'Move all the tasks in my inbox into projects';

describe('chat slice', () => {
  it('sends a message, follows the run through its events and streams the answer', async () => {
    const fake = fakeApi({ 'agent.send': () => ({ runId: 'r1', conversationId: 'c1' }), 'conversations.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    store.getState().setDraft(REQUEST);
    expect(await store.getState().send(REQUEST)).toBe(true);
    expect(fake.callsTo('agent.send')).toEqual([{ message: REQUEST }]);
    let s = store.getState();
    expect(s.conversationId).toBe('c1');
    expect(s.thread.value).toEqual(['r1']);
    expect(s.draft).toBe('');
    expect(s.traceRunId).toBe('r1');

    const [start, delta1, thought, call, result, delta2, delta3, answer, end] = events(
      'r1',
      started('c1', REQUEST),
      { type: 'text_delta', kind: 'text', text: 'Let me look at ' },
      { type: 'thought', text: 'Let me look at your inbox.' },
      { type: 'tool_call', callId: 'call_1', tool: 'get_inbox_tasks', args: {} },
      { type: 'tool_result', callId: 'call_1', tool: 'get_inbox_tasks', ok: true, result: [] },
      { type: 'text_delta', kind: 'text', text: 'Your inbox ' },
      { type: 'text_delta', kind: 'text', text: 'is empty.' },
      { type: 'answer', text: 'Your inbox is empty.' },
      finished('done', 1),
    );
    for (const e of [start!, delta1!, thought!]) fake.emit('agent.event', e);
    s = store.getState();
    // The text before a tool call was the thought, not the answer.
    expect(s.runs['r1']!.streamed).toBe('');
    expect(activeRun(s)?.id).toBe('r1');
    // A second message waits for the first run.
    expect(await store.getState().send('another')).toBe(false);

    for (const e of [call!, result!, delta2!, delta3!]) fake.emit('agent.event', e);
    expect(store.getState().runs['r1']!.streamed).toBe('Your inbox is empty.');
    for (const e of [answer!, end!]) fake.emit('agent.event', e);
    const run = store.getState().runs['r1']!;
    expect(run).toMatchObject({ status: 'done', answer: 'Your inbox is empty.', streamed: '', actions: 1 });
    expect(run.steps?.map((e) => e.type)).toEqual(['run_started', 'thought', 'tool_call', 'tool_result', 'answer', 'run_finished']);
    expect(activeRun(store.getState())).toBeNull();
    expect(store.getState().thread.value).toEqual(['r1']);
  });

  it('does not list a run twice when its first events arrive before the reply to send', async () => {
    const reply = deferred<{ runId: string; conversationId: string }>();
    const fake = fakeApi({ 'agent.send': () => reply.promise, 'conversations.list': () => [], 'runs.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().openConversation('c1');
    const sending = store.getState().send('hello');
    expect(store.getState().sending).toEqual({ conversationId: 'c1', text: 'hello' });
    fake.emit('agent.event', events('r1', started('c1', 'hello'))[0]!);
    reply.resolve({ runId: 'r1', conversationId: 'c1' });
    await sending;
    expect(store.getState().thread.value).toEqual(['r1']);
    expect(store.getState().sending).toBeNull();
    expect(store.getState().runs['r1']!.model).toBe('fake-model');
  });

  it('keeps a refused message as a problem to show, with the draft intact', async () => {
    const fake = fakeApi({
      'agent.send': () => {
        throw new BridgeError('failed', 'no API key is set for profile openai', 'set one in Settings, or switch to a local model', 'no_key');
      },
    });
    const store = createAppStore({ api: fake.api });
    store.getState().setDraft('Sort my inbox');
    expect(await store.getState().send('Sort my inbox')).toBe(false);
    const s = store.getState();
    expect(s.draft).toBe('Sort my inbox');
    expect(s.sending).toBeNull();
    expect(sendAdvice(s.sendProblem!)).toMatchObject({ title: 'No API key set', remedies: ['settings', 'retry'] });
  });

  it('shows approvals the run waits for, and answers them through the bridge', async () => {
    const fake = fakeApi({ 'agent.approve': () => ({ answered: true }) });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    const [s0, ask, resolved] = events(
      'r2',
      started('c1', 'complete the cake task'),
      { type: 'approval_requested', approvalId: 'ap1', callId: 'call_1', tool: 'complete_task', args: { task_id: 't3' }, message: "Complete task 'Bake the birthday cake'?" },
      { type: 'approval_resolved', approvalId: 'ap1', decision: 'approve' },
    );
    fake.emit('agent.event', s0!);
    fake.emit('agent.event', ask!);
    expect(waitingApprovals(store.getState().runs['r2']!).map((a) => a.message)).toEqual(["Complete task 'Bake the birthday cake'?"]);
    await store.getState().answerApproval('r2', 'ap1', 'approve');
    expect(fake.callsTo('agent.approve')).toEqual([{ runId: 'r2', approvalId: 'ap1', decision: 'approve' }]);
    fake.emit('agent.event', resolved!);
    expect(waitingApprovals(store.getState().runs['r2']!)).toEqual([]);
    expect(store.getState().runs['r2']!.approvals[0]!.decision).toBe('approve');
  });

  it('stops the run going on in the open conversation', async () => {
    const fake = fakeApi({ 'runs.list': () => [info('r1', 'c1', 'first'), info('r0', 'c1', 'zeroth')], 'agent.cancel': () => ({ cancelled: true }) });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().openConversation('c1');
    expect(store.getState().thread.value).toEqual(['r0', 'r1']);
    await store.getState().stop();
    expect(fake.callsTo('agent.cancel')).toEqual([]);
    fake.emit('agent.event', events('r2', started('c1', 'third'))[0]!);
    expect(store.getState().thread.value).toEqual(['r0', 'r1', 'r2']);
    await store.getState().stop();
    expect(fake.callsTo('agent.cancel')).toEqual([{ runId: 'r2' }]);
  });

  it('loads a past run’s trace on demand and replays it', async () => {
    const stored = events('r1', started('c1', 'first'), { type: 'tool_call', callId: 'c', tool: 'get_all_projects', args: {} }, finished('done', 1));
    const fake = fakeApi({ 'runs.list': () => [info('r1', 'c1', 'first')], 'runs.trace': () => ({ run: info('r1', 'c1', 'first'), events: stored }) });
    const store = createAppStore({ api: fake.api });
    await store.getState().openConversation('c1');
    expect(store.getState().runs['r1']!.steps).toBeNull();
    await store.getState().showTrace('r1');
    expect(store.getState().runs['r1']!.steps?.map((e) => e.type)).toEqual(['run_started', 'tool_call', 'run_finished']);
    await store.getState().showTrace('r1');
    expect(fake.callsTo('runs.trace')).toHaveLength(1);
  });

  it('opening another conversation drops the answer for the one left', async () => {
    const slow = deferred<RunInfo[]>();
    const fake = fakeApi({ 'runs.list': ({ conversationId }) => (conversationId === 'c1' ? slow.promise : [info('r9', 'c2', 'other')]) });
    const store = createAppStore({ api: fake.api });
    const first = store.getState().openConversation('c1');
    const second = store.getState().openConversation('c2');
    slow.resolve([info('r1', 'c1', 'first')]);
    await Promise.all([first, second]);
    expect(store.getState().thread.value).toEqual(['r9']);
  });
});

describe('runs fold', () => {
  it('ignores an event seen twice (a stored trace loaded while live events arrive)', () => {
    const all = events('r1', started('c1', 'x'), { type: 'thought', text: 'hmm' }, finished('done'));
    let run: RunState | undefined;
    for (const e of [...all, all[1]!]) run = applyEvent(run, e);
    expect(run!.steps).toHaveLength(3);
    expect(replay(all)!.steps).toEqual(run!.steps);
  });

  it('advises what to do when a run ends without an answer', () => {
    const base = replay(events('r1', started('c1', 'x')))!;
    const fatal = (kind: RunErrorKind, message: string) =>
      replay(events('r1', started('c1', 'x'), { type: 'error', kind, message, fatal: true }, finished('error', 0, message)))!;
    expect(runAdvice(base)).toBeNull();
    expect(runAdvice(fatal('auth', '401 Incorrect API key provided'))).toMatchObject({ title: 'The API key was refused', remedies: ['settings', 'retry'] });
    expect(runAdvice(fatal('network', 'connect ECONNREFUSED 127.0.0.1:11434'))).toMatchObject({ title: "Can't reach the model endpoint" });
    const limited = replay(events('r1', started('c1', 'x'), finished('limit', 20, 'stopped: reached the limit of 20 actions')))!;
    expect(runAdvice(limited)).toMatchObject({ title: 'Action limit reached', remedies: ['continue', 'settings'] });
    const slow = replay(events('r1', started('c1', 'x'), finished('limit', 3, 'stopped: the time limit of 120 s was reached', 'time')))!;
    const looped = replay(events('r1', started('c1', 'x'), finished('limit', 3, 'stopped: search was called 3 times in a row', 'loop')))!;
    expect(runAdvice(looped)?.title).toBe('Stopped a loop');
    expect(runAdvice(slow)?.title).toBe('Time limit reached');
    expect(runAdvice(replay(events('r1', started('c1', 'x'), finished('cancelled', 0, 'cancelled')))!)?.title).toBe('Stopped');
  });
});

describe('chat slice: keys meant for the message box', () => {
  it('empties the box at once on send, so what is typed while the request goes out is kept', async () => {
    const reply = deferred<{ runId: string; conversationId: string }>();
    const fake = fakeApi({ 'agent.send': () => reply.promise, 'conversations.list': () => [] });
    const store = createAppStore({ api: fake.api });
    store.getState().setDraft('complete Buy milk');
    const sent = store.getState().sendDraft();
    expect(store.getState().draft).toBe('');
    store.getState().setDraft('a');
    reply.resolve({ runId: 'r1', conversationId: 'c1' });
    expect(await sent).toBe(true);
    expect(fake.callsTo('agent.send')).toEqual([{ message: 'complete Buy milk' }]);
    expect(store.getState().draft).toBe('a');
  });

  it('puts a refused message back in the box, before what was typed meanwhile', async () => {
    const reply = deferred<{ runId: string; conversationId: string }>();
    const fake = fakeApi({ 'agent.send': () => reply.promise });
    const store = createAppStore({ api: fake.api });
    store.getState().setDraft('Sort my inbox');
    const sent = store.getState().sendDraft();
    store.getState().setDraft('and');
    reply.reject(new BridgeError('failed', 'no API key is set for profile openai', 'set one in Settings'));
    expect(await sent).toBe(false);
    expect(store.getState().draft).toBe('Sort my inbox\nand');
  });

  it('sends nothing and keeps the box while a run goes on', async () => {
    const fake = fakeApi({ 'agent.send': () => ({ runId: 'r1', conversationId: 'c1' }), 'conversations.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    store.getState().setDraft('first');
    await store.getState().sendDraft();
    fake.emit('agent.event', events('r1', started('c1', 'first'))[0]!);
    store.getState().setDraft('second');
    expect(await store.getState().sendDraft()).toBe(false);
    expect(store.getState().draft).toBe('second');
    expect(fake.callsTo('agent.send')).toHaveLength(1);
  });

  it('answers the waiting approval of the open conversation once (Alt+A / Alt+D), and announces the card, the answer and the end', async () => {
    const fake = fakeApi({ 'agent.approve': () => ({ answered: true }), 'runs.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    await store.getState().openConversation('c1');
    const [s0, ask, resolved, end] = events(
      'r2',
      started('c1', 'complete the cake task'),
      { type: 'approval_requested', approvalId: 'ap1', callId: 'call_1', tool: 'complete_task', args: { task_id: 't3' }, message: "Complete task 'Bake the birthday cake'?" },
      { type: 'approval_resolved', approvalId: 'ap1', decision: 'approve' },
      finished('done', 1),
    );
    fake.emit('agent.event', s0!);
    expect(waitingApproval(store.getState())).toBeNull();
    fake.emit('agent.event', ask!);
    const said = () => store.getState().notices.filter((n) => n.tone === 'announce').map((n) => n.text);
    expect(said()).toEqual(["Approval needed: Complete task 'Bake the birthday cake'? Alt+A approves, Alt+D declines."]);
    expect(waitingApproval(store.getState())).toMatchObject({ runId: 'r2', approval: { approvalId: 'ap1' } });
    await store.getState().answerApproval('r2', 'ap1', 'approve');
    // Sent once: a second answer (a repeated key) goes nowhere, and no other approval waits.
    await store.getState().answerApproval('r2', 'ap1', 'decline');
    expect(fake.callsTo('agent.approve')).toEqual([{ runId: 'r2', approvalId: 'ap1', decision: 'approve' }]);
    expect(waitingApproval(store.getState())).toBeNull();
    fake.emit('agent.event', resolved!);
    fake.emit('agent.event', end!);
    expect(said().slice(1)).toEqual(['Approved: Complete task.', 'Tidy has finished.']);
    // No notice shows for these: the screen shows the card and the answer already.
    expect(store.getState().notices.filter((n) => n.tone !== 'announce')).toEqual([]);
  });

  it('does not offer Alt+A for an approval in a conversation that is not open', () => {
    const fake = fakeApi({ 'runs.list': () => [] });
    const store = createAppStore({ api: fake.api });
    connectStore(store, fake.api);
    const [s0, ask] = events(
      'r3',
      started('c9', 'from quick capture'),
      { type: 'approval_requested', approvalId: 'ap1', callId: 'call_1', tool: 'complete_task', args: {}, message: 'Complete it?' },
    );
    fake.emit('agent.event', s0!);
    fake.emit('agent.event', ask!);
    expect(waitingApproval(store.getState())).toBeNull();
    expect(store.getState().notices.at(-1)?.text).toBe('Tidy needs your approval in another conversation: Complete it?');
  });
});
