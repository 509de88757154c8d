/** The names the UI knows for ids, for showing what the agent did in words (src-renderer/lib/words.ts). */
import { useMemo } from 'react';
import { collectNames, type Names } from '../lib/words';
import type { RunState } from '../lib/runs';
import { useApp } from '../store/react';

/** Project names, inbox tasks, and whatever the run's own tool results named (the tasks it read, the projects it made). */
export function useNames(run: RunState | undefined): Names {
  const projects = useApp((s) => s.projects.value);
  const inbox = useApp((s) => s.inbox.value);
  const steps = run?.steps ?? null;
  const approvals = run?.approvals;
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const p of projects ?? []) names.set(p.id, p.name);
    for (const t of inbox?.tasks ?? []) names.set(t.id, t.content);
    if (steps) collectNames(steps.flatMap((e) => (e.type === 'tool_result' ? [e.result] : [])), names);
    return names;
    // approvals: a live run's card comes with new steps; listed so that a card shown later is named too.
  }, [projects, inbox, steps, approvals]);
}
