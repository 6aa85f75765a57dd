/**
 * What a tunnel's client says first, read before any byte goes upstream: the server name of a TLS ClientHello
 * (SNI), or the Host of a plain HTTP request. The broker vetted the CONNECT host's addresses; these checks stop
 * a client from then asking a shared front end (a CDN) for another site than the one it was allowed —
 * domain fronting through SNI or Host. Bytes of any other protocol pass unread.
 */

export type FirstBytes =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'tls'; readonly serverName: string | undefined }
  | { readonly kind: 'http'; readonly host: string | undefined }
  | { readonly kind: 'other' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Most bytes held back while waiting for a whole ClientHello or HTTP request head. */
export const MAX_FIRST_BYTES = 64 * 1024;

const HTTP_METHOD = /^[A-Z]{3,10} /;

export function readFirstBytes(input: Buffer): FirstBytes {
  // HTTP servers skip empty lines before a request line (RFC 9112 §2.2): so must the Host check.
  let skip = 0;
  while (skip < input.length && (input[skip] === 0x0d || input[skip] === 0x0a)) skip++;
  if (skip > MAX_FIRST_BYTES) return { kind: 'invalid', reason: 'over 64 KiB of empty lines' };
  const buffer = input.subarray(skip);
  if (buffer.length === 0) return { kind: 'incomplete' };
  if (buffer[0] === 0x16) return readClientHello(buffer);
  const start = buffer.subarray(0, 11).toString('latin1');
  if (HTTP_METHOD.test(start) || (/^[A-Z]{1,10}$/.test(start) && buffer.length < 11))
    return readHttpHead(buffer);
  return { kind: 'other' };
}

function readHttpHead(buffer: Buffer): FirstBytes {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0)
    return buffer.length > MAX_FIRST_BYTES
      ? { kind: 'invalid', reason: 'an HTTP request head over 64 KiB' }
      : { kind: 'incomplete' };
  const [requestLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const hosts = lines.filter((l) => /^host\s*:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1).trim());
  if (hosts.length > 1) return { kind: 'invalid', reason: 'more than one Host header' };
  // An absolute-form target names the host a server (or front end) uses, whatever Host says.
  const absolute = /^[A-Z]+ [a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#]*)/i.exec(requestLine);
  if (absolute && hosts[0] !== undefined && hosts[0].toLowerCase() !== absolute[1]!.toLowerCase())
    return {
      kind: 'invalid',
      reason: 'an absolute-form request target and a Host header naming different hosts',
    };
  return { kind: 'http', host: absolute ? absolute[1] : hosts[0] };
}

/** The handshake bytes of the leading TLS records, once a whole ClientHello has arrived. */
function readClientHello(buffer: Buffer): FirstBytes {
  const payload: Buffer[] = [];
  let offset = 0;
  let have = 0;
  let need = -1;
  while (need < 0 || have < need) {
    if (buffer.length < offset + 5)
      return buffer.length > MAX_FIRST_BYTES
        ? { kind: 'invalid', reason: 'a TLS ClientHello over 64 KiB' }
        : { kind: 'incomplete' };
    if (buffer[offset] !== 0x16) return { kind: 'invalid', reason: 'a TLS record that is not a handshake' };
    const length = buffer.readUInt16BE(offset + 3);
    if (buffer.length < offset + 5 + length)
      return buffer.length > MAX_FIRST_BYTES
        ? { kind: 'invalid', reason: 'a TLS ClientHello over 64 KiB' }
        : { kind: 'incomplete' };
    payload.push(buffer.subarray(offset + 5, offset + 5 + length));
    have += length;
    offset += 5 + length;
    if (need < 0) {
      const first = Buffer.concat(payload);
      if (first.length < 4) continue;
      if (first[0] !== 0x01)
        return { kind: 'invalid', reason: 'a TLS handshake that does not start with ClientHello' };
      need = 4 + first.readUIntBE(1, 3);
      if (need > MAX_FIRST_BYTES) return { kind: 'invalid', reason: 'a TLS ClientHello over 64 KiB' };
    }
  }
  try {
    return { kind: 'tls', serverName: serverName(Buffer.concat(payload).subarray(4, need)) };
  } catch {
    return { kind: 'invalid', reason: 'a malformed TLS ClientHello' };
  }
}

/** The host_name of the server_name extension (RFC 6066) of a ClientHello body, if any. Throws on bad bounds. */
function serverName(hello: Buffer): string | undefined {
  let p = 2 + 32; // client_version, random
  const check = (n: number) => {
    if (p + n > hello.length) throw new RangeError('truncated ClientHello');
  };
  check(1);
  p += 1 + hello[p]!; // session_id
  check(2);
  p += 2 + hello.readUInt16BE(p); // cipher_suites
  check(1);
  p += 1 + hello[p]!; // compression_methods
  if (p === hello.length) return undefined; // no extensions
  check(2);
  const end = p + 2 + hello.readUInt16BE(p);
  p += 2;
  if (end > hello.length) throw new RangeError('truncated extensions');
  let found: string | undefined;
  while (p < end) {
    check(4);
    const type = hello.readUInt16BE(p);
    const length = hello.readUInt16BE(p + 2);
    p += 4;
    check(length);
    if (type === 0x0000) {
      if (found !== undefined) throw new RangeError('two server_name extensions');
      let q = p + 2;
      const listEnd = p + 2 + hello.readUInt16BE(p);
      while (q + 3 <= listEnd) {
        const nameType = hello[q]!;
        const nameLength = hello.readUInt16BE(q + 1);
        if (q + 3 + nameLength > listEnd) throw new RangeError('truncated server_name');
        if (nameType === 0) {
          if (found !== undefined) throw new RangeError('two host names');
          found = hello.subarray(q + 3, q + 3 + nameLength).toString('latin1');
        }
        q += 3 + nameLength;
      }
    }
    p += length;
  }
  return found;
}

/** Whether a name a client sent (SNI, or Host with an optional port) names the tunnel's host and port. */
export function namesTarget(name: string, host: string, port: number): boolean {
  let text = name.toLowerCase();
  const colon = text.lastIndexOf(':');
  if (colon >= 0 && !text.endsWith(']')) {
    if (text.slice(colon + 1) !== String(port)) return false;
    text = text.slice(0, colon);
  }
  if (text.endsWith('.')) text = text.slice(0, -1);
  return text === host;
}
