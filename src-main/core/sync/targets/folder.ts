// A folder target: any path (a folder Syncthing, Dropbox or iCloud Drive syncs, a network share). A new
// file is written to a hidden temp name, flushed to disk, then hard-linked to its name — the link fails if
// the name exists, so a file is never overwritten and never seen half-written — and the folder is flushed.
// Filesystems without hard links (exFAT, some shares) fall back to an exists-check and a rename.
import { constants } from 'node:fs';
import { link, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkDir, checkPath, MAX_FILE_BYTES, SAFE_NAME, tooLarge, type SyncTarget, type TargetEntry } from './target';

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

async function fsyncDir(dir: string): Promise<void> {
  try {
    const h = await open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    // not every platform can flush a folder (Windows); the file itself was flushed
  }
}

export class FolderTarget implements SyncTarget {
  readonly label: string;
  constructor(private readonly root: string) {
    this.label = `the folder ${root}`;
  }

  async list(dir: string): Promise<TargetEntry[]> {
    let entries;
    try {
      entries = await readdir(join(this.root, ...checkDir(dir)), { withFileTypes: true });
    } catch (e) {
      if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return [];
      throw e;
    }
    // symbolic links are skipped: one could point out of the folder
    return entries.filter((e) => SAFE_NAME.test(e.name) && (e.isFile() || e.isDirectory())).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  }

  async read(path: string, maxBytes = MAX_FILE_BYTES): Promise<Uint8Array | null> {
    let h;
    try {
      h = await open(join(this.root, ...checkPath(path)), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (e) {
      if (code(e) === 'ENOENT') return null;
      throw e;
    }
    try {
      const st = await h.stat();
      if (!st.isFile()) return null;
      if (st.size > maxBytes) tooLarge(this.label, path, maxBytes);
      const buf = Buffer.alloc(st.size);
      let off = 0;
      while (off < st.size) {
        const { bytesRead } = await h.read(buf, off, st.size - off, off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      return new Uint8Array(buf.buffer, buf.byteOffset, off);
    } finally {
      await h.close();
    }
  }

  async writeNew(path: string, data: Uint8Array): Promise<'written' | 'exists'> {
    const parts = checkPath(path);
    const dir = join(this.root, ...parts.slice(0, -1));
    const final = join(this.root, ...parts);
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.${parts.at(-1)}.${randomBytes(6).toString('hex')}.tmp`);
    const h = await open(tmp, 'wx');
    try {
      await h.writeFile(data);
      await h.sync();
    } finally {
      await h.close();
    }
    try {
      try {
        await link(tmp, final);
      } catch (e) {
        if (code(e) === 'EEXIST') return 'exists';
        if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP', 'EXDEV'].includes(code(e) ?? '')) throw e;
        // no hard links here: check, then rename (a tiny race only another process of this device could hit)
        if (await stat(final).then(() => true, () => false)) return 'exists';
        await rename(tmp, final);
      }
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    await fsyncDir(dir);
    return 'written';
  }

  async remove(path: string): Promise<void> {
    await rm(join(this.root, ...checkPath(path)), { force: true });
  }
}
