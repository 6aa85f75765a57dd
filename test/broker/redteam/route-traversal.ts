/**
 * Encoded traversal out of a route: into another route's upstream (which injects another credential) or out
 * of a route's base path (the gateway route's upstream is `https://localhost:<port>/mcp`). codex may use `openai` only; claude may use
 * `claude` and `gateway-x`. Controls: the same target sent straight to the upstream is routed, by a lenient
 * server that decodes and resolves dot segments, outside the base path; and the route a traversal aims at is
 * live for a caller allowed it.
 */
import { API_KEY, BEARER, request, routeOk } from './http.ts';
import type { Check, RedteamCase } from './types.ts';

const gatewayLive = routeOk('/gateway-x/tools', [BEARER('claude')], 'gateway');

/** `/mcp/<tail>` straight to the gateway's server, which a lenient router takes to `/admin`. */
const escapesBase = (tail: string): Check => ({
  step: {
    kind: 'direct',
    to: 'gateway',
    bytes: request('GET', `/mcp/${tail}`, [], '', { host: 'gw.example.test' }),
  },
  expect: { status: [200], reached: ['gateway'], normalisedPath: { at: 'gateway', path: '/admin' } },
});

const OUT_OF_BASE: readonly { id: string; tail: string; what: string }[] = [
  { id: 'encoded-slash', tail: '..%2f..%2fadmin', what: '..%2f' },
  { id: 'encoded-dots', tail: '%2e%2e/%2e%2e/admin', what: '%2e%2e/' },
  { id: 'encoded-upper', tail: '%2E%2E%2Fadmin', what: '%2E%2E%2F (upper-case escapes)' },
  { id: 'literal-dots', tail: '../admin', what: 'a literal ../' },
  { id: 'double-encoded', tail: '%252e%252e%252fadmin', what: '%252e%252e%252f (double encoding)' },
  { id: 'backslash', tail: '..\\admin', what: '..\\ (a raw backslash)' },
  { id: 'encoded-backslash', tail: '..%5cadmin', what: '..%5c' },
  { id: 'dot-dot-after-segment', tail: 'x%2f..%2f..%2fadmin', what: 'x%2f..%2f..%2f' },
  { id: 'half-encoded-dot', tail: '.%2e/admin', what: '.%2e/' },
  { id: 'path-parameter', tail: '..;/..;/admin', what: '..;/ (a path parameter on a dot segment)' },
];

export const ROUTE_TRAVERSAL_CASES: readonly RedteamCase[] = [
  ...OUT_OF_BASE.map(
    (t): RedteamCase => ({
      id: `traversal-${t.id}`,
      class: 'route-traversal',
      description: `/gateway-x/${t.what} out of the route's base path /mcp`,
      attack: {
        step: { kind: 'raw', to: 'lab', bytes: request('GET', `/gateway-x/${t.tail}`, [BEARER('claude')]) },
        expect: { status: [400] },
      },
      control: escapesBase(t.tail),
    }),
  ),
  {
    id: 'traversal-into-other-route',
    class: 'route-traversal',
    description: 'codex: /openai/..%2f..%2fgateway-x/tools (into a route it may not use)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/openai/..%2f..%2fgateway-x/tools', [BEARER('codex')]),
      },
      expect: { status: [400] },
    },
    control: [
      gatewayLive,
      {
        step: {
          kind: 'direct',
          to: 'openai',
          bytes: request('GET', '/v1/..%2f..%2fgateway-x/tools', [], '', { host: 'oai.model.test' }),
        },
        expect: {
          status: [200],
          reached: ['openai'],
          normalisedPath: { at: 'openai', path: '/gateway-x/tools' },
        },
      },
    ],
  },
  {
    id: 'traversal-encoded-route-separator',
    class: 'route-traversal',
    description: 'codex: /openai%2f..%2fgateway-x/tools (an encoded slash inside the route segment)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/openai%2f..%2fgateway-x/tools', [BEARER('codex')]),
      },
      expect: { status: [400, 404] },
    },
    control: gatewayLive,
  },
  {
    id: 'traversal-dot-route',
    class: 'route-traversal',
    description: 'codex: /./gateway-x/tools',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', '/./gateway-x/tools', [BEARER('codex')]) },
      expect: { status: [400, 403, 404] },
    },
    control: gatewayLive,
  },
  {
    id: 'traversal-route-case',
    class: 'route-traversal',
    description: 'codex: /GATEWAY-X/tools (route names are exact)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', '/GATEWAY-X/tools', [BEARER('codex')]) },
      expect: { status: [400, 403, 404] },
    },
    control: gatewayLive,
  },
  {
    id: 'traversal-model-route-upward',
    class: 'route-traversal',
    description: 'claude: /claude/v1/..%2f..%2f..%2fadmin (above the upstream root)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude/v1/..%2f..%2f..%2fadmin', [API_KEY('claude')]),
      },
      expect: { status: [400] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'model',
        bytes: request('GET', '/v1/..%2f..%2f..%2fadmin', [], '', { host: 'api.model.test' }),
      },
      expect: { status: [200], reached: ['model'], normalisedPath: { at: 'model', path: '/admin' } },
    },
  },
];
