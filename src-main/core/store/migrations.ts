/**
 * The schema, as an append-only list. A migration is never edited once released: a change to the
 * schema is a new entry, appended at the end of `migrations`. PRAGMA user_version holds the number of the
 * last one applied. The steps live in groups under migrations/ (one module a few versions).
 */
import type { Migration } from './migrations/migration';
import { SCHEMA_1_TO_5 } from './migrations/schema-1-5';
import { SCHEMA_6_TO_11 } from './migrations/schema-6-11';
import { SCHEMA_12_TO_15 } from './migrations/schema-12-15';
import { SCHEMA_16 } from './migrations/schema-16';
import { SCHEMA_17 } from './migrations/schema-17';
import { SCHEMA_18 } from './migrations/schema-18';
import { SCHEMA_19 } from './migrations/schema-19';
import { SCHEMA_20 } from './migrations/schema-20';
import { SCHEMA_21 } from './migrations/schema-21';
import { SCHEMA_22 } from './migrations/schema-22';

export type { Migration } from './migrations/migration';
export { backfillActionWhat, EVENT_COLUMNS_15, TASK_COLUMNS_12, upgradeEventImagesTo15, upgradeTaskImagesTo12, upgradeTasksTo6 } from './migrations/images';

export const migrations: Migration[] = [
  ...SCHEMA_1_TO_5,
  ...SCHEMA_6_TO_11,
  ...SCHEMA_12_TO_15,
  ...SCHEMA_16,
  ...SCHEMA_17,
  ...SCHEMA_18,
  ...SCHEMA_19,
  ...SCHEMA_20,
  ...SCHEMA_21,
  ...SCHEMA_22,
];

export const LATEST_VERSION = migrations[migrations.length - 1]!.version;
