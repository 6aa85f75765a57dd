/**
 * Requests that are not origin-form: absolute URIs (a forward-proxy request), scheme-relative targets,
 * asterisk-form, a target without its slash. The broker serves routes in origin-form only. Controls: the same
 * request sent straight to the named server is served (the form is live HTTP), or the origin-form twin is.
 */
import { API_KEY, PROXY, request, routeOk } from './http.ts';
import type { RedteamCase } from './types.ts';

const claudeOk = routeOk('/claude/v1/models', [API_KEY('claude')], 'model');

export const ABSOLUTE_URI_CASES: readonly RedteamCase[] = [
  {
    id: 'absolute-forward-proxy-get',
    class: 'absolute-uri',
    description:
      'GET http://evil.test/ as a forward proxy, with the credentials of a caller whose list holds evil.test',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', 'http://evil.test:{{P}}/', [`Proxy-Authorization: ${PROXY('go')}`], '', {
          host: 'evil.test:{{P}}',
        }),
      },
      expect: { status: [400, 403] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'evil',
        bytes: request('GET', 'http://evil.test:{{P}}/', [], '', { host: 'evil.test:{{P}}' }),
      },
      expect: { status: [200], reached: ['evil'] },
    },
  },
  {
    id: 'absolute-forward-proxy-broker-host',
    class: 'absolute-uri',
    description: "GET http://evil.test/ as a forward proxy with the broker's own Host header",
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', 'http://evil.test:{{P}}/', [`Proxy-Authorization: ${PROXY('go')}`]),
      },
      expect: { status: [400] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'evil',
        bytes: request('GET', 'http://evil.test:{{P}}/', [], '', { host: 'evil.test:{{P}}' }),
      },
      expect: { status: [200], reached: ['evil'] },
    },
  },
  {
    id: 'absolute-uri-naming-a-route',
    class: 'absolute-uri',
    description: 'GET http://<broker>/claude/v1/models (absolute form of a valid route)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', 'http://{{HOST}}/claude/v1/models', [API_KEY('claude')]),
      },
      expect: { status: [400] },
    },
    control: claudeOk,
  },
  {
    id: 'absolute-https-upstream',
    class: 'absolute-uri',
    description: 'GET https://<upstream>/v1/models with a caller token (the upstream named directly)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', 'https://localhost:{{PORT:model}}/v1/models', [API_KEY('claude')]),
      },
      expect: { status: [400] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'model',
        bytes: request('GET', 'https://localhost:{{PORT:model}}/v1/models', [], '', {
          host: 'api.model.test',
        }),
      },
      expect: { status: [200], reached: ['model'] },
    },
  },
  {
    id: 'absolute-uppercase-scheme',
    class: 'absolute-uri',
    description: 'GET HTTP://evil.test/ (scheme in upper case)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', 'HTTP://evil.test:{{P}}/', [API_KEY('claude')]) },
      expect: { status: [400] },
    },
    control: {
      step: {
        kind: 'direct',
        to: 'evil',
        bytes: request('GET', 'HTTP://evil.test:{{P}}/', [], '', { host: 'evil.test' }),
      },
      expect: { status: [200], reached: ['evil'] },
    },
  },
  {
    id: 'absolute-scheme-relative',
    class: 'absolute-uri',
    description: 'GET //evil.test/x (a URL parser takes evil.test as the host)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '//evil.test:{{P}}/claude/v1/models', [API_KEY('claude')]),
      },
      expect: { status: [400, 404] },
    },
    control: claudeOk,
  },
  {
    id: 'absolute-asterisk-form',
    class: 'absolute-uri',
    description: 'OPTIONS * HTTP/1.1',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('OPTIONS', '*', [API_KEY('claude')]) },
      expect: { status: [400, 404, 405] },
    },
    control: {
      step: { kind: 'raw', to: 'lab', bytes: request('OPTIONS', '/claude/v1/models', [API_KEY('claude')]) },
      expect: { status: [200], reached: ['model'] },
    },
  },
  {
    id: 'absolute-no-leading-slash',
    class: 'absolute-uri',
    description: 'GET claude/v1/models (no leading slash)',
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', 'claude/v1/models', [API_KEY('claude')]) },
      expect: { status: [400, 404] },
    },
    control: claudeOk,
  },
  {
    id: 'absolute-userinfo-to-upstream',
    class: 'absolute-uri',
    description: 'GET /claude@evil.test:P/ (string concatenation would make evil.test the host)',
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/claude@evil.test:{{P}}/', [API_KEY('claude')]),
      },
      expect: { status: [400, 403, 404] },
    },
    control: claudeOk,
  },
];
