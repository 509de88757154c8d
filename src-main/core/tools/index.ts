import { LIST_TOOLS } from './lists';
import { searchTool } from './search';
import { TASK_TOOLS } from './tasks';
import type { Tool } from './tool';

/**
 * Every tool the agent has, in the order the model is shown them. Adding a tool is adding one object
 * here. `calculate` ({expression} → {result}) runs in the sandbox worker (src-main/sandbox), which the
 * core must not import: its tool object's `run` calls `calculator.calculate(expression, ctx.signal)`, and
 * a host adds it to the list it passes as `AgentDeps.tools` (`[...TOOLS, calculateTool]`).
 */
export const TOOLS: readonly Tool[] = [...TASK_TOOLS, ...LIST_TOOLS, searchTool];

export { READ_CAP, defineTool, inputSchema, signature, type Tool, type ToolContext, type ToolOutcome, type ToolTag } from './tool';
