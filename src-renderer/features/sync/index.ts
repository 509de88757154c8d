export { SyncSection, SyncStatusLine } from './SyncSection';
export { useSync, syncNow, unlockSync } from './use-sync';
