import { BATCH_TOOLS } from './batch';
import { calculateTool } from './calculate';
import { CALENDAR_TOOLS } from './calendar';
import { LIST_TOOLS } from './lists';
import { PLAN_TOOLS } from './plan';
import { ROUTINE_TOOLS } from './routines';
import { MEMORY_TOOLS } from './memory';
import { searchTool } from './search';
import { findTasksTool, TASK_TOOLS } from './tasks';
import { wikipediaTool } from './wikipedia';
import type { Tool } from './tool';

/** Every tool the agent has, in the order the model is shown them. Adding a tool is adding one object here. */
export const TOOLS: readonly Tool[] = [...TASK_TOOLS, findTasksTool, ...BATCH_TOOLS, ...LIST_TOOLS, ...CALENDAR_TOOLS, calculateTool, searchTool, wikipediaTool, ...PLAN_TOOLS, ...MEMORY_TOOLS, ...ROUTINE_TOOLS];

export { READ_CAP, defineTool, inputSchema, signature, type Tool, type ToolContext, type ToolOutcome, type ToolEffect, type ToolServices, type MemoryAccess, createToolServices, offeredTools } from './tool';
