/**
 * What a tunnel's client says first, read before any byte goes upstream: the server name of a TLS ClientHello
 * (SNI), or the authority of a plain HTTP/1.x request (its Host, or its absolute- or authority-form target). The
 * broker vetted the CONNECT host's addresses; these checks stop a client from then asking a shared front end (a
 * CDN) for another site than the one it was allowed — domain fronting through SNI or Host. Any RFC 9110 method
 * (a token: `PROPFIND`, `get`, `M-SEARCH`, …) makes a request line; bytes that are neither TLS nor HTTP/1.x are
 * `other`, which the tunnel refuses on the config's `httpPorts` and passes elsewhere.
 */

export type FirstBytes =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'tls'; readonly serverName: string | undefined }
  | { readonly kind: 'http'; readonly host: string | undefined }
  | { readonly kind: 'other' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Most bytes held back while waiting for a whole ClientHello or HTTP request head. */
export const MAX_FIRST_BYTES = 64 * 1024;

/** RFC 9110 §5.6.2 tchar: a method is one or more of them. */
const TCHAR = "!#$%&'*+.^_`|~0-9A-Za-z-";
/** A request line: method, target, HTTP version (RFC 9112 §3), without its line end. */
const REQUEST_LINE = new RegExp(`^([${TCHAR}]+) (\\S+) HTTP/([0-9.]+)$`);
/** What may still become a request line once its end arrives: a method, a target, the start of `HTTP/`. */
const REQUEST_LINE_SO_FAR = new RegExp(`^[${TCHAR}]+(?: \\S*(?: (?:H(?:T(?:T(?:P(?:/[0-9.]*)?)?)?)?)?)?)?$`);

export function readFirstBytes(input: Buffer): FirstBytes {
  // HTTP servers skip empty lines before a request line (RFC 9112 §2.2): so must the Host check.
  let skip = 0;
  while (skip < input.length && (input[skip] === 0x0d || input[skip] === 0x0a)) skip++;
  if (skip > MAX_FIRST_BYTES) return { kind: 'invalid', reason: 'over 64 KiB of empty lines' };
  const buffer = input.subarray(skip);
  if (buffer.length === 0) return { kind: 'incomplete' };
  if (buffer[0] === 0x16) return readClientHello(buffer);
  const lf = buffer.indexOf(0x0a);
  if (lf < 0) {
    if (buffer.length > MAX_FIRST_BYTES) return { kind: 'other' };
    return REQUEST_LINE_SO_FAR.test(buffer.toString('latin1')) ? { kind: 'incomplete' } : { kind: 'other' };
  }
  const line = buffer.subarray(0, lf).toString('latin1').replace(/\r$/, '');
  const request = REQUEST_LINE.exec(line);
  if (!request) return { kind: 'other' };
  // HTTP/2's preface (`PRI * HTTP/2.0`) or any other version: a request whose authority cannot be read here.
  if (!/^1\.[0-9]$/.test(request[3]!))
    return { kind: 'invalid', reason: `an HTTP/${request[3]} request line (only HTTP/1.x can be checked)` };
  return readHttpHead(buffer, request[1]!, request[2]!);
}

function readHttpHead(buffer: Buffer, method: string, target: string): FirstBytes {
  const text = buffer.toString('latin1');
  // The head ends at the first empty line; LF alone ends a line too (RFC 9112 §2.2).
  const end = /\r?\n\r?\n/.exec(text);
  if (!end)
    return buffer.length > MAX_FIRST_BYTES
      ? { kind: 'invalid', reason: 'an HTTP request head over 64 KiB' }
      : { kind: 'incomplete' };
  const lines = text.slice(0, end.index).split(/\r?\n/).slice(1);
  // A folded line (obs-fold) continues a header some servers join and others refuse: not read, refused.
  if (lines.some((l) => /^[ \t]/.test(l))) return { kind: 'invalid', reason: 'a folded header line' };
  const hosts = lines.filter((l) => /^host\s*:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1).trim());
  if (hosts.length > 1) return { kind: 'invalid', reason: 'more than one Host header' };
  // An absolute-form target names the host a server (or front end) uses, whatever Host says; a CONNECT's
  // authority-form target is where it goes.
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#]*)/i.exec(target);
  const authority = absolute
    ? absolute[1]!
    : method === 'CONNECT'
      ? target.replace(/^[^@]*@/, '')
      : undefined;
  if (authority !== undefined && hosts[0] !== undefined && hosts[0].toLowerCase() !== authority.toLowerCase())
    return {
      kind: 'invalid',
      reason: 'a request target and a Host header naming different hosts',
    };
  return { kind: 'http', host: authority ?? hosts[0] };
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
