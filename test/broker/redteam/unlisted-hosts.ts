/**
 * CONNECT to a name the caller's egress list does not hold. Controls: a caller whose list (or `openPorts`)
 * does hold it gets through the same broker and reaches the endpoint, so the name is live and only the list
 * refuses it.
 */
import { tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';

const viaWide = (authority: string) => tunnel('lab', 'wide', authority, { status: [200], reached: ['evil'] });

export const UNLISTED_HOST_CASES: readonly RedteamCase[] = [
  {
    id: 'unlisted-other-callers-host',
    class: 'unlisted-host',
    description: "rust asks for evil.test, which only go's list holds",
    attack: tunnel('lab', 'rust', 'evil.test:{{P}}', { status: [403] }),
    control: tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] }),
  },
  {
    id: 'unlisted-port-of-listed-host',
    class: 'unlisted-host',
    description: 'a listed host on a port its entry does not list',
    attack: tunnel('lab', 'rust', 'allowed.pkg.test:{{Q}}', { status: [403] }),
    control: [
      {
        step: { kind: 'os-connect', host: '127.0.0.10', port: '{{Q}}' },
        expect: { reached: ['allowedAlt'] },
      },
      tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
    ],
  },
  {
    id: 'unlisted-open-ports-other-port',
    class: 'unlisted-host',
    description: 'a caller with openPorts [P] on another port',
    attack: tunnel('lab', 'wide', 'allowed.pkg.test:{{Q}}', { status: [403] }),
    control: {
      step: { kind: 'os-connect', host: '127.0.0.10', port: '{{Q}}' },
      expect: { reached: ['allowedAlt'] },
    },
  },
  {
    id: 'unlisted-listed-name-as-prefix',
    class: 'unlisted-host',
    description: 'allowed.pkg.test.evil.test: the listed name followed by another domain',
    attack: tunnel('lab', 'rust', 'allowed.pkg.test.evil.test:{{P}}', { status: [403] }),
    control: viaWide('allowed.pkg.test.evil.test:{{P}}'),
  },
  {
    id: 'unlisted-wildcard-suffix-without-dot',
    class: 'unlisted-host',
    description: 'evilmirror.test against *.mirror.test (suffix without the dot)',
    attack: tunnel('lab', 'rust', 'evilmirror.test:{{P}}', { status: [403] }),
    control: viaWide('evilmirror.test:{{P}}'),
  },
  {
    id: 'unlisted-wildcard-apex',
    class: 'unlisted-host',
    description: 'mirror.test itself against *.mirror.test (a wildcard covers subdomains only)',
    attack: tunnel('lab', 'rust', 'mirror.test:{{P}}', { status: [403] }),
    control: viaWide('mirror.test:{{P}}'),
  },
  {
    id: 'unlisted-userinfo-in-authority',
    class: 'unlisted-host',
    description: 'CONNECT allowed.pkg.test@evil.test:P (userinfo trick)',
    attack: tunnel('lab', 'rust', 'allowed.pkg.test@evil.test:{{P}}', { status: [400, 403] }),
    control: viaWide('evil.test:{{P}}'),
  },
  {
    id: 'unlisted-double-port',
    class: 'unlisted-host',
    description: 'CONNECT allowed.pkg.test:Q:P (two ports)',
    attack: tunnel('lab', 'rust', 'allowed.pkg.test:{{Q}}:{{P}}', { status: [400, 403] }),
    control: {
      step: { kind: 'os-connect', host: '127.0.0.10', port: '{{Q}}' },
      expect: { reached: ['allowedAlt'] },
    },
  },
  {
    id: 'unlisted-port-out-of-range',
    class: 'unlisted-host',
    description: 'CONNECT allowed.pkg.test:6<P> (a port beyond 65535, which truncating parsers wrap)',
    attack: tunnel('lab', 'rust', 'allowed.pkg.test:6{{P}}', { status: [400, 403] }),
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'unlisted-trailing-dot',
    class: 'unlisted-host',
    description: 'evil.test. (fully qualified) by a caller without it',
    attack: tunnel('lab', 'rust', 'evil.test.:{{P}}', { status: [400, 403] }),
    control: tunnel('lab', 'go', 'evil.test:{{P}}', { status: [200], reached: ['evil'] }),
  },
  {
    id: 'unlisted-homograph',
    class: 'unlisted-host',
    description: 'аllowed.pkg.test with a Cyrillic "а" (a homograph of the listed name)',
    attack: tunnel('lab', 'rust', '\u0430llowed.pkg.test:{{P}}', { status: [400, 403] }),
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
];
