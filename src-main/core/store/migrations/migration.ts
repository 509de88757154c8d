import type Database from 'better-sqlite3';

/** One step of the schema (the list: src-main/core/store/migrations.ts). */
export interface Migration {
  version: number;
  description: string;
  /** Rebuilds a table that others refer to: run with foreign keys off, and checked before it commits. */
  foreignKeysOff?: boolean;
  up(db: Database.Database): void;
}
