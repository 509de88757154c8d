/**
 * The data topics, declared once: `data.changed` carries them so every window refreshes the views a change
 * made stale. Plain values (no zod): the WebSocket client imports this too; the contract's zod enum
 * (`Topic` in src-shared/operations.ts) is made from this list.
 */
export const TOPICS = ['tasks', 'projects', 'lists', 'actions', 'settings', 'conversations', 'runs', 'providers', 'secrets', 'events', 'memory', 'routines', 'sync'] as const;
type Topic = (typeof TOPICS)[number];

/** Every topic that the data tables (and therefore undo) can touch. */
export const DATA_TOPICS = ['tasks', 'projects', 'lists', 'actions', 'events', 'memory', 'routines'] as const satisfies readonly Topic[];

/** What another process can change in the database file (all but the keychain's secrets), for the external-change watch. */
export const DATABASE_TOPICS: readonly Topic[] = TOPICS.filter((t) => t !== 'secrets');
