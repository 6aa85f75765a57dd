/**
 * The output cap counts what is sent: a stream's kept tail, once JSON-escaped and UTF-8 encoded in the response,
 * is at most `limits.maxOutputBytes`. A byte the process writes can cost up to six on the wire (a control
 * character becomes `\u0001`), so a cap on raw bytes alone let two capped streams grow a response several times
 * over (64 KiB of control bytes per stream became an 811 KB response).
 */

/** Bytes one UTF-16 code unit (or a surrogate pair, as `pair`) costs in a JSON string sent as UTF-8. */
function sentCost(code: number, pair: boolean): number {
  if (pair) return 4;
  if (code < 0x20)
    return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate is escaped as \uXXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return 3;
}

/** The longest tail of `text` whose JSON-escaped UTF-8 size is at most `cap`, and the UTF-8 bytes left out. */
export function tailWithinSentBytes(text: string, cap: number): { text: string; droppedBytes: number } {
  // Nothing costs more than six bytes per code unit: short texts need no walk.
  if (text.length * 6 <= cap) return { text, droppedBytes: 0 };
  let size = 0;
  let start = text.length;
  while (start > 0) {
    const low = text.charCodeAt(start - 1);
    const high = start > 1 ? text.charCodeAt(start - 2) : 0;
    const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
    const cost = sentCost(low, pair);
    if (size + cost > cap) break;
    size += cost;
    start -= pair ? 2 : 1;
  }
  if (start === 0) return { text, droppedBytes: 0 };
  return { text: text.slice(start), droppedBytes: Buffer.byteLength(text.slice(0, start), 'utf8') };
}
