/**
 * Protocol switches the broker does not proxy: WebSocket and h2c upgrades, the HTTP/2 preface, HTTP/2.0 in a
 * request line, TLS spoken to the plain listener. Controls: the same upgrade sent straight to the upstream is
 * accepted there (101), or the HTTP/1.1 twin goes through the broker.
 */
import { API_KEY, BEARER, request, routeOk } from './http.ts';
import type { RedteamCase } from './types.ts';

const WS = [
  'Connection: Upgrade',
  'Upgrade: websocket',
  'Sec-WebSocket-Version: 13',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
];
const H2C = [
  'Connection: Upgrade, HTTP2-Settings',
  'Upgrade: h2c',
  'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
];
const claudeOk = routeOk('/claude/v1/models', [API_KEY('claude')], 'model');
const REFUSED = [400, 403, 426, 501] as const;
/** A TLS 1.2 ClientHello's first bytes. */
const CLIENT_HELLO = '\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003';

const upgradeDirect = (at: 'model' | 'gateway', path: string, headers: readonly string[]) =>
  ({
    step: {
      kind: 'direct',
      to: at,
      bytes: request('GET', path, headers, '', { host: 'upstream', close: false }),
    },
    expect: { status: [101], reached: [at], upgrades: { at, count: 1 } },
  }) as const;

export const UPGRADE_CASES: readonly RedteamCase[] = [
  {
    id: 'upgrade-websocket-model',
    class: 'upgrade',
    description: 'Upgrade: websocket on a model route',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/ws', [API_KEY('claude'), ...WS], '', { close: false }),
      },
      expect: { status: REFUSED, upgrades: { at: 'model', count: 0 } },
    },
    control: upgradeDirect('model', '/v1/ws', WS),
  },
  {
    id: 'upgrade-websocket-gateway',
    class: 'upgrade',
    description: 'Upgrade: websocket on a gateway route',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/gateway-x/ws', [BEARER('claude'), ...WS], '', { close: false }),
      },
      expect: { status: REFUSED, upgrades: { at: 'gateway', count: 0 } },
    },
    control: upgradeDirect('gateway', '/mcp/ws', WS),
  },
  {
    id: 'upgrade-h2c',
    class: 'upgrade',
    description: 'Upgrade: h2c with HTTP2-Settings',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude'), ...H2C], '', { close: false }),
      },
      expect: { status: REFUSED, upgrades: { at: 'model', count: 0 } },
    },
    control: upgradeDirect('model', '/v1/models', H2C),
  },
  {
    id: 'upgrade-websocket-no-token',
    class: 'upgrade',
    description: 'Upgrade: websocket without any token',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', '/claude/v1/ws', WS, '', { close: false }) },
      expect: { status: [...REFUSED, 401] },
    },
    control: upgradeDirect('model', '/v1/ws', WS),
  },
  {
    id: 'upgrade-http2-preface',
    class: 'upgrade',
    description: 'the HTTP/2 connection preface (PRI * HTTP/2.0)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
      expect: { status: [400, 505, 0] },
    },
    control: claudeOk,
  },
  {
    id: 'upgrade-http2-request-line',
    class: 'upgrade',
    description: 'GET /claude/v1/models HTTP/2.0',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude')]).replace('HTTP/1.1', 'HTTP/2.0'),
      },
      expect: { status: [400, 505, 0] },
    },
    control: claudeOk,
  },
  {
    id: 'upgrade-tls-to-plain-listener',
    class: 'upgrade',
    description: 'a TLS ClientHello sent to the plain-HTTP listener',
    attack: { step: { kind: 'raw', to: 'lab', bytes: CLIENT_HELLO }, expect: { status: [400, 0] } },
    control: claudeOk,
  },
];
