/**
 * Sends a file the user chose to the main side in parts (src-main/host/uploads.ts), so that a file of
 * any size up to MAX_UPLOAD_BYTES goes through either transport; the channel that uses it then names
 * the upload (`data.todoistPreview`, `calendars.importUpload`).
 */
import { BridgeError, type Bridge } from '../../src-shared/bridge';
import { MAX_UPLOAD_BYTES, UPLOAD_PART_BYTES } from '../../src-shared/bounds';

/** What is read of a file: a browser File has it. */
export interface FileLike {
  name: string;
  size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

const base64 = (bytes: Uint8Array): string => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

/** The upload's id once every part has arrived; rejects (a BridgeError) like `api.invoke` does. */
export async function sendFile(api: Bridge, file: FileLike): Promise<string> {
  const name = file.name.trim().slice(0, 300) || 'file';
  if (file.size > MAX_UPLOAD_BYTES)
    throw new BridgeError('invalid_input', `${name} is ${Math.ceil(file.size / 1048576)} MB, more than the ${MAX_UPLOAD_BYTES / 1048576} MB the app imports`, 'split the file, or import it with the tidy command');
  const { upload } = await api.invoke('uploads.start', { name, size: file.size });
  for (let offset = 0; offset < file.size; offset += UPLOAD_PART_BYTES) {
    let part: ArrayBuffer;
    try {
      part = await file.slice(offset, Math.min(offset + UPLOAD_PART_BYTES, file.size)).arrayBuffer();
    } catch {
      throw new BridgeError('failed', `${name} could not be read`, 'check that the file is still there, then choose it again');
    }
    await api.invoke('uploads.add', { upload, offset, base64: base64(new Uint8Array(part)) });
  }
  return upload;
}
