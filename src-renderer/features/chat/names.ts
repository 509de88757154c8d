/** The names the UI knows for ids, for showing what the agent did in words (src-renderer/lib/words.ts). */
import { useEffect, useMemo } from 'react';
import { collectNames, type Names } from '../../lib/words';
import type { RunState } from '../../lib/runs';
import { useApp } from '../../store/react';

/** Project names, inbox tasks, and whatever the run's own tool results named (the tasks it read, the projects it made). */
export function useNames(run: RunState | undefined): Names {
  const projects = useApp((s) => s.projects.value);
  const inbox = useApp((s) => s.inbox.value);
  const inboxIdle = useApp((s) => s.inbox.value === null && !s.inbox.loading && s.inbox.problem === null);
  const loadInbox = useApp((s) => s.loadInbox);
  const loadProjects = useApp((s) => s.loadProjects);
  // Most tasks the agent is asked about are in the inbox: named even before the run reads them.
  useEffect(() => {
    if (inboxIdle) void Promise.all([loadInbox(), loadProjects()]);
  }, [inboxIdle, loadInbox, loadProjects]);
  const steps = run?.steps ?? null;
  const approvals = run?.approvals;
  const known = useApp((s) => s.knownNames);
  const loadKnownNames = useApp((s) => s.loadKnownNames);
  const asking = (approvals?.length ?? 0) > 0;
  // An approval may be about a task the run never read (in any project): those are looked up.
  useEffect(() => {
    if (asking) void loadKnownNames();
  }, [asking, loadKnownNames]);
  return useMemo(() => {
    const names = new Map<string, string>(Object.entries(known));
    for (const p of projects ?? []) names.set(p.id, p.name);
    for (const t of inbox?.tasks ?? []) names.set(t.id, t.content);
    if (steps) collectNames(steps.flatMap((e) => (e.type === 'tool_result' ? [e.result] : [])), names);
    return names;
    // approvals: a live run's card comes with new steps; listed so that a card shown later is named too.
  }, [projects, inbox, steps, approvals, known]);
}
