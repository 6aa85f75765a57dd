/**
 * A route's upstream must prove who it is before the broker sends it the route's key: a certificate from
 * another CA, or from the trusted CA for another name, ends the connection with 502 and the key unsent.
 * Controls: a client that does not verify hands the same impostor a key (the impostor parses it).
 */
import { API_KEY, request } from './http.ts';
import type { Check, EndpointName, RedteamCase } from './types.ts';

/** What a client that skips verification sends the impostor: its key, in the clear for the impostor. */
const unverified = (at: EndpointName, route: string): Check => ({
  step: {
    kind: 'os-connect',
    host: '127.0.0.1',
    port: `{{PORT:${at}}}`,
    tls: { servername: 'localhost' },
    send: request('GET', '/v1/models', [`x-api-key: {{K:${route}}}`], '', { host: 'localhost' }),
  },
  expect: {
    reached: [at],
    requests: { at, count: 1 },
    header: { at, name: 'x-api-key', is: [`{{K:${route}}}`] },
  },
});

export const UPSTREAM_TLS_CASES: readonly RedteamCase[] = [
  {
    id: 'upstream-tls-other-ca',
    class: 'upstream-tls',
    description: "the route's upstream presents a certificate from a CA the broker does not trust",
    attack: {
      step: { kind: 'raw', to: 'lab', bytes: request('GET', '/impostor-ca/v1/models', [API_KEY('claude')]) },
      expect: { status: [502], mayReach: ['impostorCa'], requests: { at: 'impostorCa', count: 0 } },
    },
    control: unverified('impostorCa', 'impostor-ca'),
  },
  {
    id: 'upstream-tls-other-name',
    class: 'upstream-tls',
    description: "the route's upstream presents the trusted CA's certificate for another name (evil.test)",
    attack: {
      step: {
        kind: 'raw',
        to: 'lab',
        bytes: request('GET', '/impostor-name/v1/models', [API_KEY('claude')]),
      },
      expect: { status: [502], mayReach: ['impostorName'], requests: { at: 'impostorName', count: 0 } },
    },
    control: unverified('impostorName', 'impostor-name'),
  },
];
