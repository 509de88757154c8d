/**
 * A ZIP reader for uploads Tidy did not make (Todoist backups): the central directory is read and
 * checked before anything is inflated, and inflating is bounded by the bytes it actually produces, not by
 * what the headers declare. Refused, in one line naming the entry: entries whose data overlap (many
 * entries pointing into one huge deflate stream), two entries of one name, encrypted or ZIP64 entries,
 * an entry that inflates past its declared size (stopped at the first byte past), one that ends short of
 * it (a header that under-declares its CSV would otherwise import part of it), a bad CRC, and more than
 * `maxTotal` bytes inflated in all.
 */
import { Inflate } from 'fflate';

export interface ZipLimits {
  /** Bytes one entry may declare (and inflate to). */
  maxEntry: number;
  /** Bytes all chosen entries together may inflate to. */
  maxTotal: number;
  /** Entries chosen at most. */
  maxEntries: number;
  /** What the chosen entries are, for messages ("CSV files"). */
  what?: string;
}

export interface ZipEntryInfo {
  name: string;
  size: number;
}

/** A refused ZIP: the message names the entry and what is wrong. */
export class ZipError extends Error {
  override name = 'ZipError';
  constructor(
    message: string,
    /** 'damaged': the archive's structure is broken; 'file': the message's subject is the whole file ("unpacks to …"). */
    readonly kind: 'damaged' | 'file' | 'entry' = 'entry',
  ) {
    super(message);
  }
}

const u16 = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8);
const u32 = (b: Uint8Array, i: number): number => (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

export function crc32(crc: number, data: Uint8Array): number {
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  /** Where the local header starts, and where its data starts and ends. */
  header: number;
  dataStart: number;
  dataEnd: number;
}

const shown = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

/** The entries of the central directory, each checked against its local header. */
function directory(bytes: Uint8Array): Entry[] {
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (u32(bytes, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw new ZipError('it has no ZIP directory (the file is cut off or not a ZIP)', 'damaged');
  const count = u16(bytes, eocd + 10);
  const cdSize = u32(bytes, eocd + 12);
  const cdOffset = u32(bytes, eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipError('is a ZIP64 archive, which Todoist does not write', 'file');
  if (cdOffset + cdSize > eocd) throw new ZipError('its ZIP directory points past its end', 'damaged');
  const entries: Entry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || u32(bytes, p) !== 0x02014b50) throw new ZipError(`its ZIP directory is damaged at entry ${i + 1}`, 'damaged');
    const nameLen = u16(bytes, p + 28);
    const name = new TextDecoder('utf-8').decode(bytes.subarray(p + 46, p + 46 + nameLen));
    const e: Entry = {
      name,
      flags: u16(bytes, p + 8),
      method: u16(bytes, p + 10),
      crc: u32(bytes, p + 16),
      compressed: u32(bytes, p + 20),
      size: u32(bytes, p + 24),
      header: u32(bytes, p + 42),
      dataStart: 0,
      dataEnd: 0,
    };
    p += 46 + nameLen + u16(bytes, p + 30) + u16(bytes, p + 32);
    if (e.compressed === 0xffffffff || e.size === 0xffffffff || e.header === 0xffffffff) throw new ZipError(`entry ${shown(name)} is a ZIP64 entry, which Todoist does not write`);
    if (e.header + 30 > bytes.length || u32(bytes, e.header) !== 0x04034b50) throw new ZipError(`entry ${shown(name)} points to no file data`);
    e.dataStart = e.header + 30 + u16(bytes, e.header + 26) + u16(bytes, e.header + 28);
    e.dataEnd = e.dataStart + e.compressed;
    if (e.dataEnd > cdOffset) throw new ZipError(`entry ${shown(name)} runs past the file data`);
    entries.push(e);
  }
  // Every entry's bytes (local header and data) must be its own: no two may share any.
  const spans = [...entries].sort((a, b) => a.header - b.header);
  for (let i = 1; i < spans.length; i++)
    if (spans[i]!.header < spans[i - 1]!.dataEnd) throw new ZipError(`entries ${shown(spans[i - 1]!.name)} and ${shown(spans[i]!.name)} overlap`);
  return entries;
}

/** Inflates one entry, stopping at the first byte past `limit`; checks the size and CRC it declared. */
function inflateEntry(bytes: Uint8Array, e: Entry, budget: { left: number }, maxTotal: number): Uint8Array {
  const data = bytes.subarray(e.dataStart, e.dataEnd);
  let out: Uint8Array;
  if (e.method === 0) {
    if (e.compressed !== e.size) throw new ZipError(`entry ${shown(e.name)} is stored with ${e.compressed} bytes but declares ${e.size}`);
    out = data;
  } else if (e.method === 8) {
    out = new Uint8Array(e.size);
    let length = 0;
    const inflater = new Inflate((chunk) => {
      if (length + chunk.length > e.size) throw new ZipError(`entry ${shown(e.name)} unpacks to more than the ${e.size.toLocaleString('en')} bytes it declares`);
      out.set(chunk, length);
      length += chunk.length;
    });
    // In small pieces, so one piece can never inflate to much more than the declared size allows.
    const piece = 4096;
    for (let i = 0; i < data.length; i += piece) inflater.push(data.subarray(i, Math.min(data.length, i + piece)), i + piece >= data.length);
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
    if (length !== e.size) throw new ZipError(`entry ${shown(e.name)} ends after ${length.toLocaleString('en')} of the ${e.size.toLocaleString('en')} bytes it declares (a short read)`);
  } else throw new ZipError(`entry ${shown(e.name)} uses compression method ${e.method}, which Tidy does not read`);
  budget.left -= out.length;
  if (budget.left < 0) throw new ZipError(`unpacks to more than ${maxTotal / 1048576} MB`, 'file');
  if (crc32(0, out) !== e.crc) throw new ZipError(`entry ${shown(e.name)} is damaged (its CRC does not match)`);
  return out;
}

/**
 * The entries `choose` picks, inflated within `limits`. Throws ZipError with one line on anything
 * malformed or over a bound; nothing is returned in part.
 */
export function readZip(bytes: Uint8Array, choose: (name: string) => boolean, limits: ZipLimits): Map<string, Uint8Array> {
  const entries = directory(bytes).filter((e) => !e.name.endsWith('/') && choose(e.name));
  if (entries.length > limits.maxEntries) throw new ZipError(`holds more than ${limits.maxEntries} ${limits.what ?? 'files to import'}`, 'file');
  const names = new Set<string>();
  let declared = 0;
  for (const e of entries) {
    if (names.has(e.name)) throw new ZipError(`holds two entries named ${shown(e.name)} (which one to import is unclear)`, 'file');
    names.add(e.name);
    if (e.flags & 1) throw new ZipError(`entry ${shown(e.name)} is encrypted`);
    declared += e.size;
    if (declared > limits.maxTotal) throw new ZipError(`unpacks to more than ${limits.maxTotal / 1048576} MB`, 'file');
    if (e.size > limits.maxEntry) throw new ZipError(`entry ${shown(e.name)} unpacks to more than ${limits.maxEntry / 1048576} MB`);
  }
  const budget = { left: limits.maxTotal };
  const out = new Map<string, Uint8Array>();
  for (const e of entries) out.set(e.name, inflateEntry(bytes, e, budget, limits.maxTotal));
  return out;
}
