/** The core: everything Tidy does, in plain Node. Hosts (CLI, web, Electron) import from here. */
export * from './store/db';
export * from './store/paths';
export * from './actions/log';
export * from './actions/undo';
export * from './domain/projects';
export * from './domain/tasks';
export * from './domain/lists';
export * from './domain/calendar';
export * from './domain/memory';
export { findFreeSlots } from './domain/free';
export { exportIcs, inviteIcs, parseIcs, ICS_LIMITS } from './calendar/ics';
export { localZone, isoInZone } from './calendar/zones';
export type { Mutated } from './domain/mutation';
export * from './settings';
export { DomainError, fail } from './fail';
export * from './providers';
export * from './secrets';
export * from './agent';
