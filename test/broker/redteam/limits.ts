/**
 * Resource limits (the lab broker: 8 KiB of headers, 1.5 s to send them, 6 connections per caller):
 * oversized headers, slow clients, floods of tunnels and of long completions, huge bodies, a resolver that
 * never answers. Controls: the same request within the limit goes through (so the refusal is the limit's), and
 * a flood through a broker with default limits opens every tunnel.
 */
import { API_KEY, request, routeOk, tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';
import { HANGING_NAME } from './world.ts';

const claudeOk = routeOk('/claude/v1/models', [API_KEY('claude')], 'model');
const TRICKLE = request('GET', '/claude/v1/models', [API_KEY('claude')]);

export const LIMITS_CASES: readonly RedteamCase[] = [
  {
    id: 'limits-oversized-header',
    class: 'limits',
    description: 'one 16 KiB header on a route',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [API_KEY('claude'), 'X-Big: {{A:16384}}']),
      },
      expect: { status: [431, 400] },
    },
    control: routeOk('/claude/v1/models', [API_KEY('claude'), 'X-Big: {{A:1024}}'], 'model'),
  },
  {
    id: 'limits-many-headers',
    class: 'limits',
    description: '400 small headers (over 8 KiB together)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/models', [
          API_KEY('claude'),
          ...Array.from({ length: 400 }, (_, i) => `X-H${i}: {{A:24}}`),
        ]),
      },
      expect: { status: [431, 400] },
    },
    control: routeOk(
      '/claude/v1/models',
      [API_KEY('claude'), ...Array.from({ length: 40 }, (_, i) => `X-H${i}: {{A:24}}`)],
      'model',
    ),
  },
  {
    id: 'limits-oversized-connect',
    class: 'limits',
    description: 'a CONNECT with 16 KiB of headers',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        extraHeaders: 'X-Big: {{A:16384}}\r\n',
      },
      expect: { status: [431, 400] },
    },
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'limits-slowloris-route',
    class: 'limits',
    description:
      'a route request trickled over 6 s is cut off by the headers timeout (1.5 s), well before it ends',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: TRICKLE, pieces: 30, gapMs: 200 },
      expect: { status: [408, 0], doneWithinMs: 5000 },
    },
    control: {
      step: { kind: 'raw', to: 'lab', bytes: TRICKLE, pieces: 4, gapMs: 100 },
      expect: { status: [200], reached: ['model'] },
    },
  },
  {
    id: 'limits-slowloris-connect',
    class: 'limits',
    description: 'a CONNECT trickled over 6 s is cut off by the headers timeout',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes:
          'CONNECT allowed.pkg.test:{{P}} HTTP/1.1\r\nHost: allowed.pkg.test:{{P}}\r\nProxy-Authorization: Basic {{BASIC:rust}}\r\n\r\n',
        pieces: 30,
        gapMs: 200,
      },
      expect: { status: [408, 0], doneWithinMs: 5000 },
    },
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'limits-silent-client',
    class: 'limits',
    description: 'a client that connects and says nothing is closed by the headers timeout',
    attack: { step: { kind: 'raw', to: 'lab', bytes: '' }, expect: { status: [408, 0], doneWithinMs: 5000 } },
    control: claudeOk,
  },
  {
    id: 'limits-tunnel-flood',
    class: 'limits',
    description:
      '10 tunnels at once by one caller (limit 6): the excess refused cleanly, another caller unaffected',
    attack: {
      step: {
        kind: 'flood',
        via: 'lab',
        caller: 'rust',
        authority: 'allowed.pkg.test:{{P}}',
        count: 10,
        other: { caller: 'go', authority: 'evil.test:{{P}}' },
      },
      expect: { reached: ['allowed', 'evil'], flood: { grantedAtMost: 6, grantedAtLeast: 1, otherOk: true } },
    },
    control: {
      step: {
        kind: 'flood',
        via: 'open',
        caller: 'rust',
        authority: 'allowed.pkg.test:{{P}}',
        count: 10,
        other: { caller: 'go', authority: 'evil.test:{{P}}' },
      },
      expect: {
        reached: ['allowed', 'evil'],
        flood: { grantedAtMost: 10, grantedAtLeast: 10, otherOk: true },
      },
    },
  },
  {
    id: 'limits-route-flood',
    class: 'limits',
    description:
      '10 long completions at once by one caller (limit 6): the excess refused, another caller unaffected',
    attack: {
      step: {
        kind: 'route-flood',
        via: 'lab',
        bytes: request('POST', '/claude/v1/hold', [API_KEY('claude')], '{}'),
        count: 10,
        other: request('POST', '/openai/hold', ['Authorization: Bearer {{T:codex}}'], '{}'),
      },
      expect: { reached: ['model', 'openai'], flood: { grantedAtMost: 6, grantedAtLeast: 1, otherOk: true } },
    },
    control: {
      step: {
        kind: 'route-flood',
        via: 'open',
        bytes: request('POST', '/claude/v1/hold', [API_KEY('claude')], '{}'),
        count: 10,
        other: request('POST', '/openai/hold', ['Authorization: Bearer {{T:codex}}'], '{}'),
      },
      expect: {
        reached: ['model', 'openai'],
        flood: { grantedAtMost: 10, grantedAtLeast: 10, otherOk: true },
      },
    },
  },
  {
    id: 'limits-huge-body-refused-early',
    class: 'limits',
    description: 'a 64 MiB body with a wrong token is answered without being read',
    attack: {
      step: {
        kind: 'big-body',
        to: 'lab',
        head: 'POST /claude/v1/messages HTTP/1.1\r\nHost: {{HOST}}\r\nx-api-key: {{TX:claude}}\r\nTransfer-Encoding: chunked\r\n\r\n',
        bytes: 64 * 1024 * 1024,
      },
      expect: { status: [401], doneWithinMs: 4000 },
    },
    control: {
      step: {
        kind: 'big-body',
        to: 'lab',
        head: 'POST /claude/v1/messages HTTP/1.1\r\nHost: {{HOST}}\r\nx-api-key: {{T:claude}}\r\nTransfer-Encoding: chunked\r\n\r\n',
        bytes: 8 * 1024 * 1024,
      },
      expect: { status: [200], reached: ['model'], bodyBytes: { at: 'model', is: 8 * 1024 * 1024 } },
    },
  },
  {
    id: 'upstream-resolver-hangs',
    class: 'limits',
    description:
      'the resolver never answers for a listed name: refused within connectTimeoutMs (2 s), nothing reached',
    attack: {
      step: { kind: 'connect', via: 'lab', authority: `${HANGING_NAME}:{{P}}`, auth: 'Basic {{BASIC:rust}}' },
      expect: { status: [502, 504], doneWithinMs: 5000 },
    },
    control: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: `${HANGING_NAME}:{{P}}`,
        auth: 'Basic {{BASIC:rust}}',
        dns: { [HANGING_NAME]: [['127.0.0.11']] },
      },
      expect: { status: [200], reached: ['mirror'] },
    },
  },
];
