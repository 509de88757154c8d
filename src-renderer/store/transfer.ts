/**
 * Data in and out from the UI: importing a Todoist export (preview first, then the import) and backups
 * (the newest one, and "Back up now"). The file's bytes go to the main side as base64, bounded by the
 * contract (src-shared/ipc.ts, MAX_UPLOAD_BASE64); the main side reads and checks them.
 */
import { MAX_UPLOAD_BASE64, type Input, type Output } from '../../src-shared/ipc';
import { toProblem, type Problem } from '../lib/problem';
import { idle, loadInto, type Loadable } from './loadable';
import type { Deps, SliceCreator } from './types';

export type TodoistUpload = Input<'data.todoistPreview'>;
export type TodoistPreview = Output<'data.todoistPreview'>;
export type TodoistImported = Output<'data.todoistImport'>;
export type BackupFile = NonNullable<Output<'data.lastBackup'>>;

/** The largest file the UI sends: what fits in MAX_UPLOAD_BASE64 characters of base64. */
export const MAX_UPLOAD_BYTES = Math.floor(MAX_UPLOAD_BASE64 / 4) * 3;

export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: Problem };

export interface TransferSlice {
  lastBackup: Loadable<BackupFile | null>;
  backingUp: boolean;
  loadLastBackup(): Promise<void>;
  backUpNow(): Promise<void>;
  previewTodoist(upload: TodoistUpload): Promise<Outcome<TodoistPreview>>;
  importTodoist(upload: TodoistUpload): Promise<Outcome<TodoistImported>>;
}

/** A file's bytes as base64, or a problem when it is larger than the UI sends. */
export async function fileUpload(file: { name: string; size: number; arrayBuffer(): Promise<ArrayBuffer> }): Promise<Outcome<TodoistUpload>> {
  if (file.size > MAX_UPLOAD_BYTES)
    return {
      ok: false,
      problem: {
        message: `${file.name} is ${Math.ceil(file.size / 1024)} KB, more than the ${Math.floor(MAX_UPLOAD_BYTES / 1024)} KB the app imports`,
        hint: `import it from a terminal instead: tidy import todoist "${file.name}"`,
        code: 'client',
      },
    };
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { ok: true, value: { name: file.name.slice(0, 300) || 'Todoist.csv', base64: btoa(binary) } };
}

export const createTransferSlice =
  ({ api }: Deps): SliceCreator<TransferSlice> =>
  (set, get) => {
    const attempt = async <T>(f: () => Promise<T>): Promise<Outcome<T>> => {
      try {
        return { ok: true, value: await f() };
      } catch (e) {
        return { ok: false, problem: toProblem(e) };
      }
    };
    return {
      lastBackup: idle(),
      backingUp: false,
      loadLastBackup: () => loadInto(set, 'lastBackup', () => api.invoke('data.lastBackup', {})),
      backUpNow: async () => {
        set({ backingUp: true });
        const r = await attempt(() => api.invoke('data.backupNow', {}));
        set({ backingUp: false });
        if (r.ok) {
          set({ lastBackup: { value: r.value, loading: false, problem: null } });
          get().announce('Backup made.');
        } else get().notify(`${r.problem.message} — ${r.problem.hint}`, 'error');
      },
      previewTodoist: (upload) => attempt(() => api.invoke('data.todoistPreview', upload)),
      importTodoist: async (upload) => {
        const r = await attempt(() => api.invoke('data.todoistImport', upload));
        if (r.ok) void get().loadLastBackup();
        return r;
      },
    };
  };
