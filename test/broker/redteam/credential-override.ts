/**
 * A caller sends its own credential alongside its broker token, in every header and casing a CLI or an
 * attacker might use: the upstream must receive exactly the route's real key in the route's header, and
 * neither the attacker's value nor the caller's token anywhere. Controls: the same header sent straight to
 * the upstream arrives there as sent.
 */
import { API_KEY, BEARER, request } from './http.ts';
import type { EndpointName, RedteamCase } from './types.ts';

const ATTACKER = 'sk-attacker-0123456789';

interface Override {
  readonly id: string;
  readonly route: string;
  readonly at: EndpointName;
  readonly upstreamPath: string;
  /** The caller's own token, the way its CLI sends it. */
  readonly token: string;
  /** The header line the attacker adds. */
  readonly inject: string;
  /** The header the route sets and its exact value at the upstream. */
  readonly credential: { readonly name: string; readonly value: string };
  /** Headers that must not reach the upstream at all. */
  readonly dropped: readonly string[];
  readonly query?: string;
}

const claude = (id: string, inject: string, token: string, dropped: readonly string[]): Override => ({
  id,
  route: 'claude',
  at: 'model',
  upstreamPath: '/v1/messages',
  token,
  inject,
  credential: { name: 'x-api-key', value: '{{K:claude}}' },
  dropped,
});

const OVERRIDES: readonly Override[] = [
  claude('x-api-key-title-case', `X-Api-Key: ${ATTACKER}`, BEARER('claude'), ['authorization']),
  claude('x-api-key-upper-case', `X-API-KEY: ${ATTACKER}`, BEARER('claude'), ['authorization']),
  claude('x-api-key-mixed-case', `x-Api-KEY: ${ATTACKER}`, BEARER('claude'), ['authorization']),
  claude('authorization-upper-case', `AUTHORIZATION: Bearer ${ATTACKER}`, API_KEY('claude'), [
    'authorization',
  ]),
  claude(
    'authorization-basic',
    `Authorization: Basic ${Buffer.from(`u:${ATTACKER}`).toString('base64')}`,
    API_KEY('claude'),
    ['authorization'],
  ),
  claude('x-goog-api-key-on-claude', `x-goog-api-key: ${ATTACKER}`, API_KEY('claude'), ['x-goog-api-key']),
  claude('api-key-azure-style', `Api-Key: ${ATTACKER}`, API_KEY('claude'), ['api-key']),
  claude('proxy-authorization-on-route', 'Proxy-Authorization: Basic {{BASIC:rust}}', API_KEY('claude'), [
    'proxy-authorization',
  ]),
  claude('cookie', `Cookie: session=${ATTACKER}`, API_KEY('claude'), ['cookie']),
  {
    ...claude('key-query-param', 'X-Pad: 1', API_KEY('claude'), []),
    query: `?key=${ATTACKER}&beta=true`,
  },
  {
    id: 'gemini-key-param-token',
    route: 'gemini',
    at: 'gemini',
    upstreamPath: '/v1beta/models/m:streamGenerateContent',
    token: 'X-Pad: 1',
    inject: 'X-Pad: 2',
    credential: { name: 'x-goog-api-key', value: '{{K:gemini}}' },
    dropped: [],
    query: '?alt=sse&key={{T:gemini}}',
  },
  {
    id: 'gemini-header-upper-case',
    route: 'gemini',
    at: 'gemini',
    upstreamPath: '/v1beta/models/m:generateContent',
    token: 'x-goog-api-key: {{T:gemini}}',
    inject: 'X-Pad: 1',
    credential: { name: 'x-goog-api-key', value: '{{K:gemini}}' },
    dropped: [],
    query: `?key=${ATTACKER}`,
  },
  {
    id: 'gemini-attacker-upper-header',
    route: 'gemini',
    at: 'gemini',
    upstreamPath: '/v1beta/models/m:generateContent',
    token: BEARER('gemini'),
    inject: `X-GOOG-API-KEY: ${ATTACKER}`,
    credential: { name: 'x-goog-api-key', value: '{{K:gemini}}' },
    dropped: ['authorization'],
  },
  {
    id: 'openai-x-api-key',
    route: 'openai',
    at: 'openai',
    upstreamPath: '/v1/chat/completions',
    token: BEARER('codex'),
    inject: `X-Api-Key: ${ATTACKER}`,
    credential: { name: 'authorization', value: 'Bearer {{K:openai}}' },
    dropped: ['x-api-key'],
  },
  {
    id: 'openai-api-key-header',
    route: 'openai',
    at: 'openai',
    upstreamPath: '/v1/chat/completions',
    token: BEARER('codex'),
    inject: `api-key: ${ATTACKER}`,
    credential: { name: 'authorization', value: 'Bearer {{K:openai}}' },
    dropped: ['api-key'],
  },
  {
    id: 'gateway-bearer-replaced',
    route: 'gateway-x',
    at: 'gateway',
    upstreamPath: '/mcp/tools',
    token: BEARER('claude'),
    inject: `X-Api-Key: ${ATTACKER}`,
    credential: { name: 'authorization', value: 'Bearer {{K:gateway-x}}' },
    dropped: ['x-api-key'],
  },
];

/** Each route's upstream base path (world.ts): `/<route>/<rest>` arrives as `<base>/<rest>`. */
const UPSTREAM_BASE: Readonly<Record<string, string>> = { openai: '/v1', 'gateway-x': '/mcp' };

export const CREDENTIAL_OVERRIDE_CASES: readonly RedteamCase[] = [
  ...OVERRIDES.map((o): RedteamCase => {
    const base = UPSTREAM_BASE[o.route] ?? '';
    const routePath = `/${o.route}${o.upstreamPath.slice(base.length)}`;
    const injected = o.inject.split(':')[0]!.toLowerCase();
    return {
      id: `credential-${o.id}`,
      class: 'credential-override',
      description: `${o.route}: the caller adds "${o.inject.split(':')[0]}"${o.query ? ` and ${o.query}` : ''}`,
      attack: {
        step: {
          kind: 'raw',
          to: 'lab',
          bytes: request('POST', `${routePath}${o.query ?? ''}`, [o.token, o.inject], '{}'),
        },
        expect: {
          status: [200],
          reached: [o.at],
          header: { at: o.at, name: o.credential.name, is: [o.credential.value] },
          noHeaders: { at: o.at, names: o.dropped },
          urlExcludes: { at: o.at, texts: [ATTACKER, 'key='] },
        },
      },
      control: {
        step: {
          kind: 'direct',
          to: o.at,
          bytes: request('POST', `${o.upstreamPath}${o.query ?? ''}`, [o.inject], '{}', { host: 'upstream' }),
        },
        expect: {
          status: [200],
          reached: [o.at],
          ...(o.query
            ? { urlIncludes: { at: o.at, text: o.query } }
            : {
                header: { at: o.at, name: injected, is: [o.inject.slice(o.inject.indexOf(':') + 1).trim()] },
              }),
        },
      },
    };
  }),
  {
    id: 'credential-trace-reflects-key',
    class: 'credential-override',
    description: 'TRACE on a route whose upstream echoes TRACE requests (would hand the injected key back)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('TRACE', '/gateway-x/debug', [BEARER('claude')]) },
      expect: { status: [400, 405, 501] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'gateway',
        bytes: request('TRACE', '/mcp/debug', [`Authorization: Bearer ${ATTACKER}`], '', {
          host: 'upstream',
        }),
      },
      expect: { status: [200], reached: ['gateway'], responseIncludes: `Authorization: Bearer ${ATTACKER}` },
    },
  },
  {
    id: 'credential-trace-model-route',
    class: 'credential-override',
    description: 'TRACE on a model route (x-api-key would be echoed)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('TRACE', '/claude/v1/messages', [API_KEY('claude')]) },
      expect: { status: [400, 405, 501] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'model',
        bytes: request('TRACE', '/v1/messages', [`x-api-key: ${ATTACKER}`], '', { host: 'upstream' }),
      },
      expect: { status: [200], reached: ['model'], responseIncludes: `x-api-key: ${ATTACKER}` },
    },
  },
  {
    id: 'credential-token-and-attacker-in-one-value',
    class: 'credential-override',
    description: 'x-api-key: <token>, sk-attacker (two values in one header) is not a token',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('POST', '/claude/v1/messages', [`x-api-key: {{T:claude}}, ${ATTACKER}`], '{}'),
      },
      expect: { status: [400, 401] },
    },
    control: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('POST', '/claude/v1/messages', [API_KEY('claude')], '{}'),
      },
      expect: {
        status: [200],
        reached: ['model'],
        header: { at: 'model', name: 'x-api-key', is: ['{{K:claude}}'] },
      },
    },
  },
  {
    id: 'credential-two-callers-tokens',
    class: 'credential-override',
    description: "claude's token in Authorization and codex's in x-api-key at once",
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('POST', '/claude/v1/messages', [BEARER('claude'), API_KEY('codex')], '{}'),
      },
      expect: { status: [400, 401, 403] },
    },
    control: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('POST', '/claude/v1/messages', [BEARER('claude')], '{}'),
      },
      expect: { status: [200], reached: ['model'] },
    },
  },
];
