/**
 * The name in CONNECT against the names inside the tunnel, and Host on routes. What the broker can see: the
 * CONNECT authority and its own request headers. What it cannot: the TLS server name and the Host header the
 * client sends inside the tunnel (encrypted, end to end). So the guarantee is that a tunnel goes to the vetted
 * address of the CONNECT name and nowhere else: a client asking the allowed host's address for evil.test
 * gets the allowed host's server (which refuses or serves what it serves), never evil.test's. Controls show
 * the evil name is live where it is served.
 */
import { API_KEY, request, tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';

const evilByOs = {
  step: { kind: 'os-connect', host: '127.0.0.30', port: '{{P}}', tls: { servername: 'evil.test' } },
  expect: { reached: ['evil'], servername: { at: 'evil', is: 'evil.test' } },
} as const;

export const HOST_SNI_CASES: readonly RedteamCase[] = [
  {
    id: 'sni-other-name-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then TLS with SNI evil.test and Host evil.test',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        tls: { servername: 'evil.test' },
        send: 'GET / HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['allowed'], servername: { at: 'allowed', is: 'evil.test' } },
    },
    control: evilByOs,
  },
  {
    id: 'sni-plain-host-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then plain HTTP with Host evil.test',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        send: 'GET / HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['allowed'] },
    },
    control: tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] }),
  },
  {
    id: 'sni-absolute-uri-in-tunnel',
    class: 'host-sni-mismatch',
    description: 'CONNECT allowed.pkg.test, then GET http://evil.test/ through the tunnel',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        send: 'GET http://evil.test:{{P}}/ HTTP/1.1\r\nHost: evil.test:{{P}}\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['allowed'] },
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
    control: tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] }),
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
