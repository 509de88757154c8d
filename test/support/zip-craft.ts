/**
 * Hand-written ZIP files and Todoist CSV text for hostile tests and the hostile bench: the headers can lie
 * (declared sizes, CRCs, flags, extra directory entries pointing at one file's data).
 */
import { deflateSync, strToU8 } from 'fflate';
import { crc32 } from '../../src-main/core/data/zip';

export const TODOIST_HEADER = 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG';
export const todoistCsv = (n: number): string => [TODOIST_HEADER, ...Array.from({ length: n }, (_, i) => `task,Task ${i},,4,1,,,,en,,,,,`)].join('\n');

export interface ZipFile {
  name: string;
  data: Uint8Array;
  /** The uncompressed size the headers declare (default: the real one). */
  declare?: number;
  crc?: number;
  /** General-purpose flags of the entry (1: encrypted). */
  flags?: number;
}

/** A ZIP written by hand, so its headers can lie; `aliases` are extra directory entries pointing at file i's data. */
export function zipOf(files: ZipFile[], aliases: { name: string; of: number }[] = []): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const info: { offset: number; compressed: number; size: number; crc: number; flags: number }[] = [];
  for (const f of files) {
    const packed = deflateSync(f.data);
    const nameBytes = strToU8(f.name);
    const size = f.declare ?? f.data.length;
    const crc = f.crc ?? crc32(0, f.data);
    const local = new Uint8Array(30 + nameBytes.length);
    const v = new DataView(local.buffer);
    v.setUint32(0, 0x04034b50, true);
    v.setUint16(4, 20, true);
    v.setUint16(6, f.flags ?? 0, true);
    v.setUint16(8, 8, true);
    v.setUint32(14, crc, true);
    v.setUint32(18, packed.length, true);
    v.setUint32(22, size, true);
    v.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    info.push({ offset, compressed: packed.length, size, crc, flags: f.flags ?? 0 });
    parts.push(local, packed);
    offset += local.length + packed.length;
  }
  const entry = (i: number, nameBytes: Uint8Array): Uint8Array => {
    const e = info[i]!;
    const c = new Uint8Array(46 + nameBytes.length);
    const v = new DataView(c.buffer);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, 20, true);
    v.setUint16(6, 20, true);
    v.setUint16(8, e.flags, true);
    v.setUint16(10, 8, true);
    v.setUint32(16, e.crc, true);
    v.setUint32(20, e.compressed, true);
    v.setUint32(24, e.size, true);
    v.setUint16(28, nameBytes.length, true);
    v.setUint32(42, e.offset, true);
    c.set(nameBytes, 46);
    return c;
  };
  files.forEach((f, i) => central.push(entry(i, strToU8(f.name))));
  for (const a of aliases) central.push(entry(a.of, strToU8(a.name)));
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const v = new DataView(end.buffer);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, central.length, true);
  v.setUint16(10, central.length, true);
  v.setUint32(12, cdSize, true);
  v.setUint32(16, offset, true);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
