/**
 * The name in CONNECT against the names inside the tunnel, and Host on routes.
 *
 * What the broker sees: the CONNECT authority, its own request headers, and a tunnel's first bytes — the TLS
 * ClientHello's server name (SNI) or a plain HTTP request's head — which it holds back until they name the
 * CONNECT host, and refuses otherwise (domain fronting through a shared front end). What it cannot see: anything
 * after those first bytes — the Host of requests inside TLS, a second request on a kept-alive plain
 * connection, an encrypted ClientHello (ECH). So the guarantee it gives for those is the network one, which
 * every case here checks: a tunnel goes to the vetted address of the CONNECT name and nowhere else. Controls
 * show the other name is live where it is served.
 */
import { API_KEY, request, tunnel } from './http.ts';
import type { Check, RedteamCase } from './types.ts';

const evilByOs = {
  step: { kind: 'os-connect', host: '127.0.0.30', port: '{{P}}', tls: { servername: 'evil.test' } },
  expect: { reached: ['evil'], servernames: { at: 'evil', are: ['evil.test'] } },
} as const;
const evilViaGo = tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] });

/** CONNECT allowed.pkg.test as rust, then `send` (plain) or TLS with `servername` and `send`. */
const intoAllowed = (send: string, tls?: string): Check['step'] => ({
  kind: 'connect',
  via: 'lab',
  authority: 'allowed.pkg.test:{{P}}',
  auth: 'Basic {{BASIC:rust}}',
  ...(tls ? { tls: { servername: tls } } : {}),
  send,
});
/** The same bytes straight to the allowed host's server: it parses them, and serves the name they ask for. */
const parsedByAllowed = (bytes: string, host: string): Check => ({
  step: { kind: 'direct', to: 'allowed', bytes },
  expect: { status: [200], reached: ['allowed'], hosts: { at: 'allowed', are: [host] } },
});

const LEADING_CRLF = '\r\nGET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n';
const ABSOLUTE_WITH_ALLOWED_HOST =
  'GET http://evil.test:{{P}}/ HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\nConnection: close\r\n\r\n';
const SECOND_REQUEST_OTHER_HOST =
  'GET / HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n';

export const HOST_SNI_CASES: readonly RedteamCase[] = [
  {
    id: 'sni-other-name-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then a ClientHello for evil.test: held back and refused',
    attack: {
      step: intoAllowed('GET / HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n', 'evil.test'),
      expect: { status: [200], mayReach: ['allowed'], servernames: { at: 'allowed', are: [] } },
    },
    control: evilByOs,
  },
  {
    id: 'sni-plain-host-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then plain HTTP with Host evil.test: held back and refused',
    attack: {
      step: intoAllowed('GET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n'),
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: evilViaGo,
  },
  {
    id: 'sni-absolute-uri-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then GET http://evil.test/ with Host evil.test',
    attack: {
      step: intoAllowed(
        'GET http://evil.test:{{P}}/ HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      ),
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'evil',
        bytes: 'GET http://evil.test:{{P}}/ HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['evil'] },
    },
  },
  {
    id: 'sni-leading-crlf-in-tunnel',
    class: 'host-sni-mismatch',
    description:
      'CONNECT allowed.pkg.test, then CRLF + GET with Host evil.test (servers skip a leading empty line)',
    attack: {
      step: intoAllowed(LEADING_CRLF),
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: parsedByAllowed(LEADING_CRLF, 'evil.test:{{P}}'),
  },
  {
    id: 'sni-absolute-uri-allowed-host-in-tunnel',
    class: 'host-sni-mismatch',
    description:
      'CONNECT allowed.pkg.test, then GET http://evil.test/ with Host allowed.pkg.test (absolute-form wins over Host)',
    attack: {
      step: intoAllowed(ABSOLUTE_WITH_ALLOWED_HOST),
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: {
      step: { kind: 'direct', to: 'allowed', bytes: ABSOLUTE_WITH_ALLOWED_HOST },
      expect: {
        status: [200],
        reached: ['allowed'],
        urlIncludes: { at: 'allowed', text: 'http://evil.test' },
      },
    },
  },
  {
    id: 'sni-early-data-with-connect',
    class: 'host-sni-mismatch',
    description:
      'CONNECT allowed.pkg.test and, in the same write, a request with Host evil.test (no wait for the 200)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes:
          'CONNECT allowed.pkg.test:{{P}} HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\nProxy-Authorization: Basic {{BASIC:rust}}\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], mayReach: ['allowed'], requests: { at: 'allowed', count: 0 } },
    },
    control: parsedByAllowed(
      'GET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      'evil.test:{{P}}',
    ),
  },
  {
    id: 'sni-limit-second-request-other-host',
    class: 'host-sni-mismatch',
    description:
      'limit: a second request on the kept-alive tunnel names evil.test; the broker cannot see it, and it reaches only the vetted address',
    attack: {
      step: intoAllowed(SECOND_REQUEST_OTHER_HOST),
      expect: {
        status: [200],
        reached: ['allowed'],
        hosts: { at: 'allowed', are: ['allowed.pkg.test:{{P}}', 'evil.test:{{P}}'] },
      },
    },
    control: evilViaGo,
  },
  {
    id: 'sni-limit-host-inside-tls',
    class: 'host-sni-mismatch',
    description:
      'limit: SNI allowed.pkg.test, Host evil.test inside TLS; the broker cannot see it, and it reaches only the vetted address',
    attack: {
      step: intoAllowed(
        'GET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
        'allowed.pkg.test',
      ),
      expect: {
        status: [200],
        reached: ['allowed'],
        servernames: { at: 'allowed', are: ['allowed.pkg.test'] },
        hosts: { at: 'allowed', are: ['evil.test:{{P}}'] },
      },
    },
    control: evilByOs,
  },
  {
    id: 'connect-host-header-mismatch',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test:P with Host: evil.test:P',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        hostHeader: 'evil.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
      },
      expect: { status: [200, 400], mayReach: ['allowed'] },
    },
    control: evilViaGo,
  },
  {
    id: 'route-foreign-host',
    class: 'host-sni-mismatch',
    description: 'a route request with Host: evil.test (DNS-rebinding of the broker itself)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude')], '', { host: 'evil.test' }),
      },
      expect: { status: [400, 403, 421] },
    },
    control: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', '/claude/v1/models', [API_KEY('claude')]) },
      expect: { status: [200], reached: ['model'] },
    },
  },
  {
    id: 'route-host-port-overflow',
    class: 'host-sni-mismatch',
    description: 'Host: localhost:99999999',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude')], '', { host: 'localhost:99999999' }),
      },
      expect: { status: [400, 403] },
    },
    control: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude')], '', { host: 'localhost' }),
      },
      expect: { status: [200], reached: ['model'] },
    },
  },
  {
    id: 'route-upstream-host-not-callers',
    class: 'host-sni-mismatch',
    description: "the upstream sees its own Host, not the caller's",
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude'), 'X-Forwarded-Host: evil.test']),
      },
      expect: {
        status: [200],
        reached: ['model'],
        header: { at: 'model', name: 'host', is: ['localhost:{{PORT:model}}'] },
      },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'model',
        bytes: request('GET', '/v1/models', [], '', { host: 'evil.test' }),
      },
      expect: { status: [200], reached: ['model'], header: { at: 'model', name: 'host', is: ['evil.test'] } },
    },
  },
];
