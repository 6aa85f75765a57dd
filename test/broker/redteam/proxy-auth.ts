/**
 * Proxy-Authorization on CONNECT: missing, wrong, malformed. Controls: the rightful credentials open the same
 * tunnel.
 */
import { tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';

const rustOk = tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] });
const withAuth = (auth: string | undefined, status: readonly number[]) =>
  ({
    step: {
      kind: 'connect',
      via: 'lab',
      authority: 'allowed.pkg.test:{{P}}',
      ...(auth === undefined ? {} : { auth }),
    },
    expect: { status },
  }) as const;

const BAD: readonly { id: string; auth: string | undefined; what: string }[] = [
  { id: 'missing', auth: undefined, what: 'no Proxy-Authorization' },
  { id: 'wrong-token', auth: 'Basic {{B64:rust:not-the-token}}', what: 'the right name, a wrong token' },
  { id: 'empty-token', auth: 'Basic {{B64:rust:}}', what: 'an empty token' },
  { id: 'no-colon', auth: 'Basic {{B64:rust}}', what: 'Basic credentials without a colon' },
  {
    id: 'unknown-caller',
    auth: 'Basic {{BASICAS:nobody/rust}}',
    what: "an unknown caller name with rust's token",
  },
  { id: 'not-base64', auth: 'Basic !!!not base64!!!', what: 'credentials that are not base64' },
  {
    id: 'bearer-scheme-wrong-token',
    auth: 'Bearer not-the-token',
    what: 'a Bearer scheme with a wrong token',
  },
  { id: 'scheme-only', auth: 'Basic', what: 'the scheme alone' },
];

export const PROXY_AUTH_CASES: readonly RedteamCase[] = BAD.map(
  (b): RedteamCase => ({
    id: `proxy-auth-${b.id}`,
    class: 'proxy-auth',
    description: `CONNECT with ${b.what}`,
    attack: withAuth(b.auth, [400, 407]),
    control: rustOk,
  }),
);
