// A Tidy process with a run in it, for the persisted-approvals family of the hostile suite
// (bench/hostile-lifecycle.ts), which kills it with -9 at a point this process prints:
//   wait <db> <task>      a run that waits in place for the user's OK to complete <task>; prints {"waiting": id}
//   detached <db> <task>  a routine's run, which ends leaving its approval; prints {"waiting": id}, then stays
//   answer <db> <id> <approve|decline>
//                         answers approval <id>: the run goes on, runs the call (or tells the model it was
//                         declined), then its model hangs; prints {"resumed": the call's result or null} then
// Each stays alive until killed. Usage: node --import tsx bench/hostile-approval-child.ts <mode> ...
import { openDatabase } from '../src-main/core';
import { answerStoredApproval, createLiveRuns, listApprovals, startRun, TOOLS, type AgentDeps } from '../src-main/core/agent';
import type { Model } from '../src-main/core/llm/port';
import { call, calls, hang, ScriptedModel } from '../test/fakes/scripted-model';

const base = { baseUrl: 'http://127.0.0.1:9/v1', model: 'bench', stream: false } as const;
const say = (line: unknown): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
const stay = (): void => void setInterval(() => {}, 60_000);

function main(mode: string, dbPath: string, arg: string, decision?: string): void {
  const db = openDatabase(dbPath, { holder: 'the hostile suite' });
  const deps = (model: Model): AgentDeps => ({ db, tools: TOOLS, live: createLiveRuns(), createModel: () => model });
  if (mode === 'wait' || mode === 'detached') {
    const model = new ScriptedModel([calls(call('complete_task', { task_id: arg })), hang]);
    const r = startRun(deps(model), { ...base, message: 'finish that task', ...(mode === 'detached' ? { detached: {} } : {}) }, () => {});
    if (!r.ok) throw new Error(r.error);
    const poll = setInterval(() => {
      const [waiting] = listApprovals(db);
      if (!waiting) return;
      clearInterval(poll);
      say({ waiting: waiting.id, runId: r.value.runId });
    }, 10);
    stay();
    return;
  }
  if (mode === 'answer') {
    // The model is asked once the answered call's outcome (run, or declined) is stored: that is the point to report.
    let result: unknown = null;
    const model = new ScriptedModel([
      (request) => {
        say({ resumed: result });
        return (hang as (r: typeof request, n: number) => Promise<never>)(request, 0);
      },
    ]);
    const answered = answerStoredApproval(deps(model), arg, decision === 'decline' ? 'decline' : 'approve', undefined, { ...base }, (e) => {
      if (e.type === 'tool_result') result = e.result ?? null;
    });
    if (!answered.continued) say({ resumed: 'in place' });
    stay();
    return;
  }
  throw new Error(`no mode ${mode}`);
}

main(process.argv[2]!, process.argv[3]!, process.argv[4]!, process.argv[5]);
