/**
 * DNS rebinding: the resolver answers differently on each query. The broker must connect to the address it
 * vetted, never resolve again. Controls: a proxy that checks one answer and connects by a second lookup lands
 * on the denied listener; a broker without denied ranges connects to the first answer.
 */
import type { RedteamCase } from './types.ts';

const PUBLIC_THEN_PRIVATE = { 'cdn.mirror.test': [['127.0.0.11'], ['127.0.0.70']] };
const PRIVATE_THEN_PUBLIC = { 'cdn.mirror.test': [['127.0.0.70'], ['127.0.0.11']] };
const naive = {
  step: { kind: 'naive-resolve-twice', name: 'cdn.mirror.test', port: '{{P}}', dns: PUBLIC_THEN_PRIVATE },
  expect: { reached: ['private'] },
} as const;

export const DNS_REBINDING_CASES: readonly RedteamCase[] = [
  {
    id: 'rebind-public-then-private',
    class: 'dns-rebinding',
    description: 'first answer public-standing, every later one private: the tunnel lands on the first only',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'cdn.mirror.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        dns: PUBLIC_THEN_PRIVATE,
      },
      expect: { status: [200], reached: ['mirror'] },
    },
    control: naive,
  },
  {
    id: 'rebind-public-then-private-tls',
    class: 'dns-rebinding',
    description: 'the same with TLS and a request through the tunnel',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'cdn.mirror.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        dns: PUBLIC_THEN_PRIVATE,
        tls: { servername: 'cdn.mirror.test' },
        send: 'GET /x HTTP/1.1\r\nHost: cdn.mirror.test\r\nConnection: close\r\n\r\n',
      },
      expect: { status: [200], reached: ['mirror'], servernames: { at: 'mirror', are: ['cdn.mirror.test'] } },
    },
    control: naive,
  },
  {
    id: 'rebind-private-then-public',
    class: 'dns-rebinding',
    description: 'first answer private, later ones public-standing: refused on the vetted (first) answer',
    attack: {
      step: {
        kind: 'connect',
        via: 'lab',
        authority: 'cdn.mirror.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        dns: PRIVATE_THEN_PUBLIC,
      },
      expect: { status: [403] },
    },
    control: {
      step: {
        kind: 'connect',
        via: 'open',
        authority: 'cdn.mirror.test:{{P}}',
        auth: 'Basic {{BASIC:rust}}',
        dns: PRIVATE_THEN_PUBLIC,
      },
      expect: { status: [200], reached: ['private'] },
    },
  },
];
