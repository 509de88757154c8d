/** The quick-capture window: one box to the inbox or to the agent, and the agent's answer in place. */
export { createCaptureSlice, type CaptureSlice } from './slice';
export { CaptureView } from './CaptureView';
