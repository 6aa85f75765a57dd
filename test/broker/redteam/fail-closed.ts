/**
 * The broker fails closed (issue 32): the fourth outside review got a request with an unusual method through a
 * tunnel to a listed host with any Host (domain fronting), and a malformed proxy credential into the audit line.
 *
 * - tunnel-methods: any RFC 9110 method (a token: `M-SEARCH`, `UNSUBSCRIBE`, `PROPFIND` with an absolute target,
 *   a method split across writes) opens an HTTP request whose Host the broker checks. Control: the same bytes
 *   straight to the allowed host's server, which serves them for evil.test — what a shared front end does.
 * - unreadable-tunnel: to an HTTP port (the lab broker's `httpPorts`), first bytes that are neither a TLS
 *   ClientHello nor an HTTP/1.x request (an SSH banner, HTTP/0.9, HTTP/2's preface, a folded Host, binary) are
 *   refused before any byte goes upstream. Control: the same tunnel through a broker without HTTP ports (the
 *   broker before this issue) carries them to the server.
 * - credential-echo: a token sent where the user name goes, with or without a password, or in the CONNECT
 *   target, is refused and never repeated (the global checks read every response, audit line and error body;
 *   the last case reads the metrics). Control: the same token, sent rightly, opens the tunnel: it is live.
 */
import { tunnel } from './http.ts';
import type { Check, RedteamCase } from './types.ts';

/** CONNECT allowed.pkg.test as rust, then `send`. */
const intoAllowed = (send: string): Check['step'] => ({
  kind: 'connect',
  via: 'lab',
  authority: 'allowed.pkg.test:{{P}}',
  auth: 'Basic {{BASIC:rust}}',
  send,
});
/** The same bytes straight to the allowed host's server: it serves the Host they name. */
const servedForEvil = (bytes: string): Check => ({
  step: { kind: 'direct', to: 'allowed', bytes },
  expect: { status: [200], reached: ['allowed'], hosts: { at: 'allowed', are: ['evil.test:{{P}}'] } },
});
const heldBack: Check['expect'] = {
  status: [200],
  mayReach: ['allowed'],
  requests: { at: 'allowed', count: 0 },
  plainBytes: { at: 'allowed', count: 0 },
};

const METHOD_REQUESTS: readonly { id: string; what: string; bytes: string; pieces?: number }[] = [
  {
    id: 'm-search',
    what: 'M-SEARCH (a method with a hyphen)',
    bytes: 'M-SEARCH / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
  },
  {
    id: 'unsubscribe',
    what: 'UNSUBSCRIBE (a method of 11 letters)',
    bytes: 'UNSUBSCRIBE / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
  },
  {
    id: 'propfind-absolute',
    what: 'PROPFIND http://evil.test/ with Host allowed.pkg.test',
    bytes:
      'PROPFIND http://evil.test:{{P}}/ HTTP/1.1\r\nHost: evil.test:{{P}}\r\nDepth: 0\r\nConnection: close\r\n\r\n',
  },
  {
    id: 'mkactivity-lf',
    what: 'MKACTIVITY with bare LF line ends',
    bytes: 'MKACTIVITY / HTTP/1.1\nHost: evil.test:{{P}}\nConnection: close\n\n',
  },
];

export const TUNNEL_METHOD_CASES: readonly RedteamCase[] = [
  ...METHOD_REQUESTS.map(
    (m): RedteamCase => ({
      id: `tunnel-method-${m.id}`,
      class: 'tunnel-methods',
      description: `CONNECT allowed.pkg.test, then ${m.what} for evil.test: held back and refused`,
      attack: { step: intoAllowed(m.bytes), expect: heldBack },
      control: servedForEvil(m.bytes),
    }),
  ),
  {
    id: 'tunnel-method-split',
    class: 'tunnel-methods',
    description: 'CONNECT allowed.pkg.test, then UNSUBSCRIBE for evil.test in three writes (the method cut)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes:
          'CONNECT allowed.pkg.test:{{P}} HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\nProxy-Authorization: Basic {{BASIC:rust}}\r\n\r\nUNSUBSCRIBE / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
        pieces: 7,
        gapMs: 40,
      },
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: servedForEvil('UNSUBSCRIBE / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n'),
  },
];

/**
 * Bytes neither TLS nor HTTP/1.x, and what each is. `anyPort`: refused on every port (a request line the broker
 * cannot check); the control then sends them straight to the server, which gets them.
 */
const UNREADABLE: readonly { id: string; what: string; bytes: string; marker: string; anyPort?: true }[] = [
  { id: 'ssh', what: 'an SSH banner', bytes: 'SSH-2.0-OpenSSH_9.6 evil.test\r\n', marker: 'SSH-2.0' },
  {
    id: 'http09',
    what: 'an HTTP/0.9 request (no version, no Host)',
    bytes: 'GET /evil\r\n\r\n',
    marker: '/evil',
  },
  {
    id: 'h2-preface',
    what: "HTTP/2's prior-knowledge preface (its authority is in HPACK)",
    bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    marker: 'PRI * HTTP/2.0',
    anyPort: true,
  },
  {
    id: 'folded-host',
    what: 'a request with a folded header carrying another Host',
    bytes:
      'GET / HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\nX-A: a\r\n Host: evil.test\r\nConnection: close\r\n\r\n',
    marker: 'X-A: a',
    anyPort: true,
  },
  { id: 'binary', what: 'binary bytes', bytes: '\u0000\u0001\u00ffbinary-evil\u0000', marker: 'binary-evil' },
  {
    id: 'http-version-3',
    what: 'a request line with HTTP/3.0',
    bytes: 'GET / HTTP/3.0\r\nHost: allowed.pkg.test:{{P}}\r\n\r\n',
    marker: 'HTTP/3.0',
    anyPort: true,
  },
];

export const UNREADABLE_TUNNEL_CASES: readonly RedteamCase[] = UNREADABLE.map(
  (u): RedteamCase => ({
    id: `unreadable-${u.id}`,
    class: 'unreadable-tunnel',
    description: `CONNECT allowed.pkg.test on an HTTP port, then ${u.what}: refused, nothing upstream`,
    attack: { step: intoAllowed(u.bytes), expect: heldBack },
    control: {
      step: u.anyPort
        ? { kind: 'direct', to: 'allowed', bytes: u.bytes }
        : {
            kind: 'connect',
            via: 'open',
            authority: 'allowed.pkg.test:{{P}}',
            auth: 'Basic {{BASIC:rust}}',
            send: u.bytes,
          },
      expect: { reached: ['allowed'], plainBytes: { at: 'allowed', includes: u.marker } },
    },
  }),
);

const rustOk = tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] });
const withAuth = (auth: string, authority = 'allowed.pkg.test:{{P}}'): Check => ({
  step: { kind: 'connect', via: 'lab', authority, auth },
  expect: { status: [400, 407] },
});

export const CREDENTIAL_ECHO_CASES: readonly RedteamCase[] = [
  {
    id: 'echo-token-as-user',
    class: 'credential-echo',
    description:
      'the token where the user name goes, no password (a proxy URL http://<token>@broker): not repeated',
    attack: withAuth('Basic {{TOKENASUSER:rust}}'),
    control: rustOk,
  },
  {
    id: 'echo-token-as-user-with-password',
    class: 'credential-echo',
    description: 'the token as the user name and a password: not repeated',
    attack: withAuth('Basic {{TOKENASUSER:rust/x}}'),
    control: rustOk,
  },
  {
    id: 'echo-token-in-target',
    class: 'credential-echo',
    description:
      'the credentials in the CONNECT target (rust:<token>@host:port): refused without repeating it',
    attack: withAuth('Basic {{BASIC:rust}}', 'rust:{{T:rust}}@allowed.pkg.test:{{P}}'),
    control: rustOk,
  },
  {
    id: 'echo-token-as-user-bearer',
    class: 'credential-echo',
    description: 'the token in a Bearer Proxy-Authorization: not repeated',
    attack: withAuth('Bearer {{T:rust}}'),
    control: rustOk,
  },
];
