// A WebDAV target (Nextcloud, ownCloud, Apache mod_dav, rclone serve webdav), through the `webdav` client.
// A new file is PUT to a hidden temp name, then MOVEd to its name with "Overwrite: F" — the server refuses
// the move when the name exists — so a file is never overwritten and never seen half-written. Reads stream
// and stop at the size limit, whatever size the server claims. Whatever the server answers that is not
// WebDAV becomes one line that names the server.
import { randomBytes } from 'node:crypto';
import { createClient, type FileStat, type WebDAVClient } from 'webdav';
import { DomainError, fail } from '../../fail';
import { checkDir, checkPath, MAX_FILE_BYTES, SAFE_NAME, tooLarge, type SyncTarget, type TargetEntry } from './target';

const status = (e: unknown): number | undefined => (e as { status?: number } | null)?.status;

export interface WebDavLogin {
  username?: string;
  password?: string;
}

export class WebDavTarget implements SyncTarget {
  readonly label: string;
  private readonly client: WebDAVClient;

  constructor(url: string, login: WebDavLogin = {}) {
    this.label = `the WebDAV server ${url}`;
    this.client = createClient(url, { ...(login.username !== undefined ? { username: login.username, password: login.password ?? '' } : {}) });
  }

  /** Runs a request, turning what is not a WebDAV answer (HTML, garbage, a dropped connection, a refusal) into one line. */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof DomainError) throw e;
      const s = status(e);
      if (s === 401 || s === 403) fail(`${this.label} refused the login (${s}) while trying to ${what}.`, 'Check the user name and password (an app password for Nextcloud), then sync again.');
      const why = s ? `HTTP ${s}` : ((e as Error)?.message ?? String(e)).split('\n')[0]!.slice(0, 200);
      fail(`${this.label} did not answer as a WebDAV server while trying to ${what} (${why}).`, 'Check the URL (for Nextcloud: …/remote.php/dav/files/USER/FOLDER) and that the server is up, then sync again.');
    }
  }

  async list(dir: string): Promise<TargetEntry[]> {
    const path = `/${checkDir(dir).join('/')}`;
    const entries = await this.call(`list ${path}`, async () => {
      try {
        return (await this.client.getDirectoryContents(path)) as FileStat[];
      } catch (e) {
        if (status(e) === 404) return [];
        throw e;
      }
    });
    if (!Array.isArray(entries)) fail(`${this.label} did not answer as a WebDAV server while trying to list ${path} (not a listing).`, 'Check the URL, then sync again.');
    // names come from the server: anything but a plain safe name (a path, '..', a hidden file) is skipped
    return entries
      .filter((e) => e && typeof e.basename === 'string' && SAFE_NAME.test(e.basename) && (e.type === 'file' || e.type === 'directory'))
      .map((e) => ({ name: e.basename, dir: e.type === 'directory' }));
  }

  async read(path: string, maxBytes = MAX_FILE_BYTES): Promise<Uint8Array | null> {
    const p = `/${checkPath(path).join('/')}`;
    return this.call(`read ${p}`, async () => {
      const stream = this.client.createReadStream(p) as unknown as AsyncIterable<Buffer> & { destroy(): void };
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of stream) {
          size += chunk.length;
          if (size > maxBytes) {
            stream.destroy();
            tooLarge(this.label, path, maxBytes);
          }
          chunks.push(chunk);
        }
      } catch (e) {
        if (status(e) === 404) return null;
        throw e;
      }
      const all = Buffer.concat(chunks, size);
      return new Uint8Array(all.buffer, all.byteOffset, all.length);
    });
  }

  async writeNew(path: string, data: Uint8Array): Promise<'written' | 'exists'> {
    const parts = checkPath(path);
    const final = `/${parts.join('/')}`;
    const dir = `/${parts.slice(0, -1).join('/')}`;
    const tmp = `${dir === '/' ? '' : dir}/.${parts.at(-1)}.${randomBytes(6).toString('hex')}.tmp`;
    return this.call(`write ${final}`, async () => {
      if (dir !== '/' && !(await this.client.exists(dir))) await this.client.createDirectory(dir, { recursive: true });
      await this.client.putFileContents(tmp, Buffer.from(data.buffer, data.byteOffset, data.length), { overwrite: false });
      try {
        await this.client.moveFile(tmp, final, { overwrite: false });
        return 'written';
      } catch (e) {
        await this.client.deleteFile(tmp).catch(() => undefined);
        if (status(e) === 412) return 'exists';
        throw e;
      }
    });
  }

  async remove(path: string): Promise<void> {
    const p = `/${checkPath(path).join('/')}`;
    await this.call(`delete ${p}`, async () => {
      try {
        await this.client.deleteFile(p);
      } catch (e) {
        if (status(e) !== 404) throw e;
      }
    });
  }
}
