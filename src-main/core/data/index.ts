/** Tidy's data in and out: backups (and restoring them), export, and import of Tidy's own export. */
export * from './backup';
export * from './export';
export * from './import';
export * from './schema';
export * from './todoist';
export * from './todoist-cells';
export * from './todoist-export';
export * from './ical';
