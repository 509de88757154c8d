/**
 * The agent's tools that change data, in DESIGN.md's public tool table, for the per-tool approval
 * settings. Read-only tools never need approval. (The contract has no tool listing yet; see the UI
 * issue's closing note. Tools named in the stored `approvals` setting are shown too.)
 */
export const CHANGING_TOOLS = [
  'create_project',
  'move_task',
  'add_task',
  'update_task',
  'complete_task',
  'make_list',
  'add_list_item',
  'edit_list_item',
  'check_list_item',
  'archive_list_item',
] as const;
