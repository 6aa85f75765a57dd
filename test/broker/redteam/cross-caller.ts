/**
 * A caller's token where it does not belong: another backend's route, a toolchain's token on a route, a
 * backend's token on CONNECT, a token claimed under another caller's name, a near-miss token. Controls: the
 * rightful caller's same request gets through.
 */
import { API_KEY, BEARER, request, routeOk, tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';

const route = (target: string, headers: readonly string[]) =>
  ({ kind: 'raw', to: 'lab', bytes: request('GET', target, headers) }) as const;

export const CROSS_CALLER_CASES: readonly RedteamCase[] = [
  {
    id: 'cross-codex-on-claude-route',
    class: 'cross-caller',
    description: "codex's token on the claude route",
    attack: { step: route('/claude/v1/models', [API_KEY('codex')]), expect: { status: [401, 403] } },
    control: routeOk('/claude/v1/models', [API_KEY('claude')], 'model'),
  },
  {
    id: 'cross-gemini-on-openai-route',
    class: 'cross-caller',
    description: "gemini's token on the openai route",
    attack: { step: route('/openai/models', [BEARER('gemini')]), expect: { status: [401, 403] } },
    control: routeOk('/openai/models', [BEARER('codex')], 'openai'),
  },
  {
    id: 'cross-codex-on-gateway-route',
    class: 'cross-caller',
    description: "codex's token on a gateway route only claude may use",
    attack: { step: route('/gateway-x/tools', [BEARER('codex')]), expect: { status: [401, 403] } },
    control: routeOk('/gateway-x/tools', [BEARER('claude')], 'gateway'),
  },
  {
    id: 'cross-toolchain-token-on-route',
    class: 'cross-caller',
    description: "a toolchain's (CONNECT-only) token on a model route",
    attack: { step: route('/claude/v1/models', [API_KEY('rust')]), expect: { status: [401, 403] } },
    control: routeOk('/claude/v1/models', [API_KEY('claude')], 'model'),
  },
  {
    id: 'cross-backend-token-on-connect',
    class: 'cross-caller',
    description: "a backend's token (routes only, no egress) on CONNECT",
    attack: tunnel('lab', 'claude', 'allowed.pkg.test:{{P}}', { status: [403, 407] }),
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'cross-token-under-other-name',
    class: 'cross-caller',
    description: "Basic go:<rust's token> to reach go's host",
    attack: {
      step: { kind: 'connect', via: 'lab', authority: 'evil.test:{{P}}', auth: 'Basic {{BASICAS:go/rust}}' },
      expect: { status: [407] },
    },
    control: tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] }),
  },
  {
    id: 'cross-name-of-self-token-of-other',
    class: 'cross-caller',
    description: "Basic rust:<go's token> to reach rust's host",
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'allowed.pkg.test:{{P}}',
        auth: 'Basic {{BASICAS:rust/go}}',
      },
      expect: { status: [407] },
    },
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'cross-near-miss-token',
    class: 'cross-caller',
    description: "claude's token with its last character changed",
    attack: { step: route('/claude/v1/models', ['x-api-key: {{TX:claude}}']), expect: { status: [401] } },
    control: routeOk('/claude/v1/models', [API_KEY('claude')], 'model'),
  },
  {
    id: 'cross-proxy-authorization-on-route',
    class: 'cross-caller',
    description: 'a route request authenticated only by Proxy-Authorization (not a route credential header)',
    attack: {
      step: route('/claude/v1/models', ['Proxy-Authorization: Basic {{BASIC:claude}}']),
      expect: { status: [401] },
    },
    control: routeOk('/claude/v1/models', [API_KEY('claude')], 'model'),
  },
  {
    id: 'cross-no-token-on-route',
    class: 'cross-caller',
    description: 'a route request with no token at all',
    attack: { step: route('/claude/v1/models', []), expect: { status: [401] } },
    control: routeOk('/claude/v1/models', [API_KEY('claude')], 'model'),
  },
];
