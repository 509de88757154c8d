// A refusal note under an Undo/Redo row shows only while it still applies: a refused redo whose target was
// redone since (by "Redo all", say) leaves no stale red note, in the chat's changes and in Actions alike
// (both render src-renderer/features/actions/Undoable.tsx, which asks stillApplies).
import { describe, expect, it } from 'vitest';
import { stillApplies, type UndoProblem } from '../../../../../src-renderer/features/actions/slice';

const refused = (verb: 'undo' | 'redo'): UndoProblem => ({ code: 'failed', message: "can't", hint: 'undo a9 first', reason: 'undo_blocked', canCascade: true, verb });

describe('a refusal note under an undoable row', () => {
  it('shows a refused redo while the action can still be redone, and not once it was redone another way', () => {
    expect(stillApplies(refused('redo'), { canUndo: false, canRedo: true })).toBe(true);
    expect(stillApplies(refused('redo'), { canUndo: true, canRedo: false })).toBe(false);
  });
  it('shows a refused undo while the action can still be undone, and not once it was undone another way', () => {
    expect(stillApplies(refused('undo'), { canUndo: true, canRedo: false })).toBe(true);
    expect(stillApplies(refused('undo'), { canUndo: false, canRedo: true })).toBe(false);
  });
});
