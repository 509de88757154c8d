/** The agent: the loop, its stop predicates and protocols, the trace, and the run API hosts call. */
export * from './runs';
export * from './loop';
export * from './approvals';
export * from './limits';
export { historyWindow } from './history';
export { jsonProtocol, nativeProtocol, PROTOCOLS, OBSERVATION, basePrompt, type ProtocolAdapter } from './protocols';
export * from './conversations';
export * from './trace';
export { TOOLS, READ_CAP, defineTool, inputSchema, signature, type Tool, type ToolContext, type ToolOutcome, type ToolEffect, type ToolServices, createToolServices } from '../tools';
export * from './context-fit';
