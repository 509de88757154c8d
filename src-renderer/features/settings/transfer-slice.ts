/**
 * Data in and out from the UI: importing a Todoist export (sent as an upload, lib/upload.ts; preview
 * first, then the import) and backups (the newest one, and "Back up now").
 */
import type { Input, Output } from '../../../src-shared/ipc';
import { sendFile, type FileLike } from '../../lib/upload';
import { idle, loadInto, type Loadable } from '../../store/loadable';
import { outcome, type Outcome } from '../../store/request';
import type { Deps, SliceCreator } from '../../store/types';

export type TodoistUpload = Input<'data.todoistPreview'>;
export type TodoistPreview = Output<'data.todoistPreview'>;
export type TodoistImported = Output<'data.todoistImport'>;
type BackupFile = NonNullable<Output<'data.lastBackup'>>;
export type Restored = Output<'data.restore'>;

export type { Outcome };

export interface TransferSlice {
  lastBackup: Loadable<BackupFile | null>;
  backingUp: boolean;
  loadLastBackup(): Promise<void>;
  backUpNow(): Promise<void>;
  /** Sends a chosen file to the main side; its upload id. */
  uploadFile(file: FileLike): Promise<Outcome<string>>;
  previewTodoist(upload: TodoistUpload): Promise<Outcome<TodoistPreview>>;
  importTodoist(upload: TodoistUpload): Promise<Outcome<TodoistImported>>;
  /** Replaces the database with an uploaded backup or JSON export (every view reloads on the host's data.changed). */
  restoreData(upload: string): Promise<Outcome<Restored>>;
  /** Everything as a file (JSON or Markdown), for the view to save; a refusal is told in a notice. */
  exportData(format: Input<'data.export'>['format']): Promise<Output<'data.export'> | null>;
}

declare module '../../store/types' {
  interface AppState extends TransferSlice {}
}

export const createTransferSlice =
  ({ api }: Deps): SliceCreator<TransferSlice> =>
  (set, get) => {
    return {
      lastBackup: idle(),
      backingUp: false,
      loadLastBackup: () => loadInto(set, 'lastBackup', () => api.invoke('data.lastBackup', {})),
      backUpNow: async () => {
        set({ backingUp: true });
        const r = await outcome(() => api.invoke('data.backupNow', {}));
        set({ backingUp: false });
        if (r.ok) {
          set({ lastBackup: { value: r.value, loading: false, problem: null } });
          get().announce('Backup made.');
        } else get().notifyProblem(r.problem);
      },
      uploadFile: (file) => outcome(() => sendFile(api, file)),
      previewTodoist: (upload) => outcome(() => api.invoke('data.todoistPreview', upload)),
      restoreData: async (upload) => {
        const r = await outcome(() => api.invoke('data.restore', { upload }));
        if (r.ok) {
          get().announce('Restored. Every view shows the restored data.');
          void get().loadLastBackup();
        }
        return r;
      },
      exportData: async (format) => {
        const r = await outcome(() => api.invoke('data.export', { format }));
        if (!r.ok) {
          get().notifyProblem(r.problem);
          return null;
        }
        get().announce(`Exported to ${r.value.filename}.`);
        return r.value;
      },
      importTodoist: async (upload) => {
        const r = await outcome(() => api.invoke('data.todoistImport', upload));
        if (r.ok) void get().loadLastBackup();
        return r;
      },
    };
  };
