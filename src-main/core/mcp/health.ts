/**
 * A server that fails to start run after run is switched off after MAX_START_FAILURES in a row, with one
 * notice saying so and how to switch it on again, instead of costing a line in every later run. A start
 * that succeeds clears the count; switching it on again (tidy mcp enable, Settings) gives it a new start.
 */
import { MAX_START_FAILURES, type McpServers } from '../../../src-shared/mcp';
import { readSettings, writeSetting } from '../settings';
import type { Db } from '../store/db';

/** Records which servers started (true) or failed to (false); returns the notices for servers it switched off. */
export function noteMcpStarts(db: Db, started: Readonly<Record<string, boolean>>): string[] {
  const servers = readSettings(db).mcpServers;
  const next: McpServers = { ...servers };
  const notices: string[] = [];
  let changed = false;
  for (const [name, ok] of Object.entries(started)) {
    const config = Object.hasOwn(next, name) ? next[name] : undefined;
    if (!config || !config.enabled) continue;
    const { failures: before = 0, ...rest } = config;
    if (ok) {
      if (before > 0) {
        next[name] = rest as typeof config;
        changed = true;
      }
      continue;
    }
    const failures = before + 1;
    changed = true;
    if (failures >= MAX_START_FAILURES) {
      next[name] = { ...(rest as typeof config), enabled: false };
      notices.push(`the MCP server ${name} failed to start ${failures} times in a row and is now switched off; when it is fixed: tidy mcp enable ${name}`);
    } else next[name] = { ...config, failures };
  }
  // A settings write that fails (the database busy) only delays the count to a later run.
  if (changed) writeSetting(db, 'mcpServers', next);
  return notices;
}
