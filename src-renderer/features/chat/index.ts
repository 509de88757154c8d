/** The chat: conversations, runs and their approvals, the composer, and the trace panel. */
export { createChatSlice, activeRun, waitingApproval, type ChatSlice } from './slice';
export { ChatView } from './ChatView';
export { TracePanel } from './TracePanel';
export { ApprovalCard } from './ApprovalCard';
export { useNames } from './names';
