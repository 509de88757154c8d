/** Settings: the model and its providers, the agent, approvals, notifications, MCP servers, and data (backup, import, export). */
export { createSettingsSlice, createTransferSlice, isProblem, type ModelPlan, type SettingsSlice, type TransferSlice } from './slice';
export { SettingsView } from './SettingsView';
