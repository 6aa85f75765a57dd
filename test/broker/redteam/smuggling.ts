/**
 * Request smuggling: framing the broker and an upstream could read differently. The fake upstreams parse
 * leniently (insecureHTTPParser), so controls that send the payload straight to one show the hidden request
 * (`/smuggled`) parsed as a request of its own; where even a lenient parser refuses, the control is the
 * well-framed twin through the broker. Every attack must be refused and no `/smuggled` request may be parsed
 * anywhere.
 */
import type { Check, RedteamCase } from './types.ts';

const HIDDEN = 'GET /smuggled HTTP/1.1\r\nHost: api.model.test\r\n\r\n';
const TOKEN = 'x-api-key: {{T:claude}}';

/** `POST <prefix>v1/messages` with these header lines and this body; CRLF unless `eol` says otherwise. */
function post(prefix: string, host: string, headers: readonly string[], body: string, eol = '\r\n'): string {
  return `POST ${prefix}v1/messages HTTP/1.1${eol}Host: ${host}${eol}${headers.map((h) => `${h}${eol}`).join('')}${eol}${body}`;
}
const viaBroker = (headers: readonly string[], body: string, eol?: string) =>
  post('/claude/', '{{HOST}}', [TOKEN, ...headers], body, eol);
const direct = (headers: readonly string[], body: string, eol?: string) =>
  post('/', 'api.model.test', headers, body, eol);

const twin = (headers: readonly string[], body: string): Check => ({
  step: { kind: 'raw', to: 'lab', bytes: viaBroker([...headers, 'Connection: close'], body) },
  expect: { status: [200], reached: ['model'] },
});
const smuggledDirect = (headers: readonly string[], body: string, eol?: string): Check => ({
  step: { kind: 'direct', to: 'model', bytes: direct(headers, body, eol) },
  expect: { reached: ['model'], smuggled: true },
});
const refused = (headers: readonly string[], body: string, eol?: string): Check => ({
  step: { kind: 'raw', to: 'lab', bytes: viaBroker(headers, body, eol) },
  expect: { status: [400, 0] },
});

const CHUNKED_END_THEN_HIDDEN = `0\r\n\r\n${HIDDEN}`;

export const SMUGGLING_CASES: readonly RedteamCase[] = [
  {
    id: 'smuggle-cl-te',
    class: 'smuggling',
    description: 'Content-Length and Transfer-Encoding: chunked together (CL.TE)',
    attack: refused(['Content-Length: 4', 'Transfer-Encoding: chunked'], CHUNKED_END_THEN_HIDDEN),
    control: smuggledDirect(['Content-Length: 4', 'Transfer-Encoding: chunked'], CHUNKED_END_THEN_HIDDEN),
  },
  {
    id: 'smuggle-te-cl',
    class: 'smuggling',
    description: 'Transfer-Encoding first, then a Content-Length covering the hidden request (TE.CL)',
    attack: refused(
      ['Transfer-Encoding: chunked', `Content-Length: ${CHUNKED_END_THEN_HIDDEN.length}`],
      CHUNKED_END_THEN_HIDDEN,
    ),
    control: smuggledDirect(
      ['Transfer-Encoding: chunked', `Content-Length: ${CHUNKED_END_THEN_HIDDEN.length}`],
      CHUNKED_END_THEN_HIDDEN,
    ),
  },
  {
    id: 'smuggle-te-chunked-identity',
    class: 'smuggling',
    description: 'Transfer-Encoding: chunked, identity (chunked not last)',
    attack: refused(['Transfer-Encoding: chunked, identity'], CHUNKED_END_THEN_HIDDEN),
    control: twin(['Transfer-Encoding: chunked'], '0\r\n\r\n'),
  },
  {
    id: 'smuggle-te-two-headers',
    class: 'smuggling',
    description: 'Transfer-Encoding: chunked and Transfer-Encoding: identity as two lines',
    attack: refused(['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'], CHUNKED_END_THEN_HIDDEN),
    control: twin(['Transfer-Encoding: chunked'], '0\r\n\r\n'),
  },
  {
    id: 'smuggle-te-obfuscated',
    class: 'smuggling',
    description: 'Transfer-Encoding: xchunked with a Content-Length',
    attack: refused(['Transfer-Encoding: xchunked', 'Content-Length: 4'], CHUNKED_END_THEN_HIDDEN),
    control: twin(['Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-te-space-before-colon',
    class: 'smuggling',
    description: '"Transfer-Encoding : chunked" (whitespace before the colon)',
    attack: refused(['Transfer-Encoding : chunked', 'Content-Length: 4'], CHUNKED_END_THEN_HIDDEN),
    control: twin(['Transfer-Encoding: chunked'], '0\r\n\r\n'),
  },
  {
    id: 'smuggle-duplicate-content-length',
    class: 'smuggling',
    description: 'two different Content-Length headers',
    attack: refused(['Content-Length: 0', `Content-Length: ${HIDDEN.length}`], HIDDEN),
    control: twin(['Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-content-length-list',
    class: 'smuggling',
    description: 'Content-Length: 0, 45 (a list)',
    attack: refused([`Content-Length: 0, ${HIDDEN.length}`], HIDDEN),
    control: twin(['Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-content-length-plus',
    class: 'smuggling',
    description: 'Content-Length: +4',
    attack: refused(['Content-Length: +4'], 'abcd'),
    control: twin(['Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-duplicate-host',
    class: 'smuggling',
    description: 'two Host headers',
    attack: refused(['Host: evil.test', 'Content-Length: 0'], ''),
    control: twin(['Content-Length: 0'], ''),
  },
  {
    id: 'smuggle-obs-fold',
    class: 'smuggling',
    description: 'an obs-fold continuation line hiding Transfer-Encoding',
    attack: refused(
      ['X-Pad: a', ' Transfer-Encoding: chunked', 'Content-Length: 4'],
      CHUNKED_END_THEN_HIDDEN,
    ),
    control: twin(['X-Pad: a', 'Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-bare-lf',
    class: 'smuggling',
    description: 'bare LF line ends, a second request behind the first',
    attack: refused(['Content-Length: 0'], HIDDEN.replaceAll('\r\n', '\n'), '\n'),
    control: smuggledDirect(['Content-Length: 0'], HIDDEN.replaceAll('\r\n', '\n'), '\n'),
  },
  {
    id: 'smuggle-chunk-size-overflow',
    class: 'smuggling',
    description: 'a chunk size that overflows 64 bits',
    attack: refused(['Transfer-Encoding: chunked'], `fffffffffffffffff1\r\na\r\n0\r\n\r\n${HIDDEN}`),
    control: twin(['Transfer-Encoding: chunked'], '1\r\na\r\n0\r\n\r\n'),
  },
  {
    id: 'smuggle-nul-in-header',
    class: 'smuggling',
    description: 'a NUL byte in a header value',
    attack: refused(['X-Pad: a\u0000b', 'Content-Length: 0'], ''),
    control: twin(['X-Pad: ab', 'Content-Length: 0'], ''),
  },
  {
    id: 'smuggle-cr-in-header-value',
    class: 'smuggling',
    description: 'a bare CR inside a header value',
    attack: refused(['X-Pad: a\rTransfer-Encoding: chunked', 'Content-Length: 4'], CHUNKED_END_THEN_HIDDEN),
    control: twin(['X-Pad: a', 'Content-Length: 4'], 'abcd'),
  },
  {
    id: 'smuggle-pipelined-other-caller',
    class: 'smuggling',
    description:
      "a valid claude request, then on the same connection a request for codex's route with no token",
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: `GET /claude/v1/models HTTP/1.1\r\nHost: {{HOST}}\r\n${TOKEN}\r\n\r\nGET /openai/smuggled HTTP/1.1\r\nHost: {{HOST}}\r\nConnection: close\r\n\r\n`,
      },
      expect: { status: [200], reached: ['model'] },
    },
    control: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes:
          'GET /openai/smuggled HTTP/1.1\r\nHost: {{HOST}}\r\nAuthorization: Bearer {{T:codex}}\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['openai'], smuggled: true },
    },
  },
];
