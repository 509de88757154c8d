/**
 * The Memory page's data: the memories (searched), whether memory is on, and what a request's prompt
 * carries under the budget. Adding, editing and forgetting are logged changes (memory.add, memory.update,
 * memory.forget): forgetting puts Undo on its notice, like any change that makes something leave a view.
 */
import type { Memory, MemoryBudgetReport } from '../../../src-shared/memory';
import type { Problem } from '../../lib/problem';
import { idle, loadInto, type Loadable } from '../../store/loadable';
import { attempt, request } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

interface MemoryPage {
  memories: Memory[];
  enabled: boolean;
  budget: MemoryBudgetReport;
}

export interface MemorySlice {
  /** The Memory page's list, for `memoryQuery`. */
  memory: Loadable<MemoryPage>;
  /** The search typed on the Memory page ('' for all). */
  memoryQuery: string;
  /** Loads (or refetches) the memories for `query` (the last one when left out). */
  loadMemory(query?: string): Promise<void>;
  /** Refetches only when the page was loaded (wired to the `memory` topic). */
  refreshMemory(): Promise<void>;
  /** Remembers a fact by hand; null when it was, else why not (shown by the field). */
  addMemoryByHand(text: string): Promise<Problem | null>;
  /**
   * Changes a memory's text and, when `project` is given, where it applies (a project's id, or null for
   * everywhere); null when it did, else why not (shown by the field).
   */
  editMemory(id: string, text: string, project?: string | null): Promise<Problem | null>;
  /** Forgets a memory, with Undo on the notice. */
  forgetMemoryWithUndo(memory: Memory): Promise<void>;
  /** How many live memories a conversation made (asked before archiving it; 0 when the list cannot be read). */
  memoriesMadeIn(conversationId: string): Promise<number>;
}

declare module '../../store/types' {
  interface AppState extends MemorySlice {}
}

/** A memory's text in a notice: short, whatever its length. */
export function memoryInWords(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export const createMemorySlice =
  ({ api }: Deps): SliceCreator<MemorySlice> =>
  (set, get) => {
    let seq = 0;
    return {
      memory: idle(),
      memoryQuery: '',
      loadMemory: async (query) => {
        const q = query ?? get().memoryQuery;
        if (query !== undefined) set({ memoryQuery: query });
        const mine = ++seq;
        await loadInto(set, 'memory', async () => {
          const page = await api.invoke('memory.list', q.trim() ? { query: q.trim() } : {});
          // A later search answered meanwhile: this answer is stale.
          return mine === seq ? page : undefined;
        });
      },
      refreshMemory: async () => {
        const m = get().memory;
        if (m.value !== null || m.loading || m.problem !== null) await get().loadMemory();
      },
      addMemoryByHand: (text) =>
        attempt(
          () => api.invoke('memory.add', { text }),
          (r) => {
            get().announce(`Remembered: ${memoryInWords(r.value.text)}`);
            void get().loadMemory();
          },
        ),
      editMemory: (id, text, project) =>
        attempt(
          () => api.invoke('memory.update', { memory: id, text, ...(project !== undefined ? { project } : {}) }),
          (r) => {
            get().announce(`Changed: ${memoryInWords(r.value.text)}`);
            void get().loadMemory();
          },
        ),
      forgetMemoryWithUndo: async (memory) => {
        const r = await request(get, () => api.invoke('memory.forget', { memory: memory.id }));
        if (!r.ok) return;
        get().notifyUndoable(`Forgot: ${memoryInWords(memory.text)}`, r.value.actionId);
        await get().loadMemory();
      },
      memoriesMadeIn: async (conversationId) => {
        try {
          return (await api.invoke('memory.list', { conversationId })).memories.length;
        } catch {
          return 0;
        }
      },
    };
  };
