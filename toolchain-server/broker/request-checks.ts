/**
 * Checks every request passes before anything is proxied: one unambiguous message framing, one Host, an
 * origin-form target whose path cannot be read two ways. Node's parser already refuses much of this; these
 * checks hold even where it is lenient, and they give the refusal a coded JSON body.
 */
import type { IncomingMessage } from 'node:http';
import { isAllowedHost } from '../kit/host.ts';
import { BrokerError } from './errors.ts';

function countHeader(raw: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}

/** Refuses ambiguous framing and Host headers (any request, CONNECT included). */
export function checkFraming(request: IncomingMessage): void {
  // Node's parser reads "HTTP/2.0" (or any major version) in an HTTP/1 request line; only 1.x is served.
  if (request.httpVersionMajor !== 1)
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      `HTTP/${request.httpVersion} in the request line: only HTTP/1.x is served`,
      505,
    );
  const raw = request.rawHeaders;
  if (countHeader(raw, 'host') > 1)
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'more than one Host header');
  const contentLengths = countHeader(raw, 'content-length');
  const transferEncodings = countHeader(raw, 'transfer-encoding');
  if (contentLengths > 1)
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'more than one Content-Length header');
  if (transferEncodings > 1)
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'more than one Transfer-Encoding header');
  if (contentLengths && transferEncodings)
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'both Content-Length and Transfer-Encoding');
  const te = request.headers['transfer-encoding'];
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked')
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'Transfer-Encoding other than "chunked"');
}

/** Refuses a Host header that names neither loopback nor one of the broker's names. */
export function checkHost(request: IncomingMessage, hostnames: ReadonlySet<string>): void {
  if (!isAllowedHost(request.headers.host, hostnames))
    throw new BrokerError(
      'TOOLYARD_BROKER_HOST_HEADER',
      `Host ${JSON.stringify(request.headers.host ?? '')} is not one of the broker's names (${[...hostnames].join(', ')})`,
    );
}

const ENCODED_TRICKS = /%(2e|2f|5c|00|25)/i;

/**
 * Splits an origin-form target into its path segments and raw query. Refuses absolute-URI and asterisk
 * targets, backslashes, percent-encoded dots, slashes, backslashes, NUL and percent signs, and `.`/`..`
 * segments: whatever the upstream's own normalisation, the path it receives stays under the route's base.
 */
export function splitTarget(url: string | undefined): { segments: string[]; query: string } {
  if (!url?.startsWith('/'))
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      'the request target must be a path (origin-form), not an absolute URI or "*"',
    );
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const query = q >= 0 ? url.slice(q + 1) : '';
  if (path.includes('\\') || ENCODED_TRICKS.test(path))
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      'the path holds a backslash or an encoded ".", "/", "\\", "%" or NUL',
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f#]/.test(path))
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'the path holds a control character or "#"');
  const segments = path.slice(1).split('/');
  // `..;x` is `..` to servers that strip path parameters (Tomcat, Spring): refused like `..` itself.
  if (segments.some((s) => /^\.{1,2}(;.*)?$/.test(s)))
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', 'the path holds a "." or ".." segment');
  return { segments, query };
}
