/**
 * Names that resolve to loopback, against the `strict` broker (the default denied ranges, 127.0.0.0/8 and ::1
 * included). Controls: the same request through a broker that does not deny loopback reaches the endpoint.
 */
import { tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';

export const LOOPBACK_CASES: readonly RedteamCase[] = [
  {
    id: 'loopback-listed-wildcard-name',
    class: 'loopback-resolution',
    description: 'loop.mirror.test (on the list by wildcard) resolves to 127.0.0.1',
    attack: tunnel('strict', 'rust', 'loop.mirror.test:{{P}}', { status: [403] }),
    control: tunnel('lab', 'rust', 'loop.mirror.test:{{P}}', { status: [200], reached: ['loop1'] }),
  },
  {
    id: 'loopback-listed-exact-name',
    class: 'loopback-resolution',
    description: 'allowed.pkg.test (listed exactly) resolves to 127.0.0.10',
    attack: tunnel('strict', 'rust', 'allowed.pkg.test:{{P}}', { status: [403] }),
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
  {
    id: 'loopback-localhost-open-ports',
    class: 'loopback-resolution',
    description: 'localhost by a caller allowed any public host on P',
    attack: tunnel('strict', 'wide', 'localhost:{{P}}', { status: [403] }),
    control: tunnel('open', 'wide', 'localhost:{{P}}', { status: [200], reached: ['loop1'] }),
  },
  {
    id: 'loopback-v6',
    class: 'loopback-resolution',
    description: 'loop6.mirror.test resolves to ::1',
    attack: tunnel('strict', 'rust', 'loop6.mirror.test:{{P}}', { status: [403] }),
    control: tunnel('open', 'rust', 'loop6.mirror.test:{{P}}', { status: [200], reached: ['loop6'] }),
  },
  {
    id: 'loopback-v6-lab',
    class: 'loopback-resolution',
    description: 'loop6.mirror.test (::1) through the lab broker, which keeps ::1/128 denied',
    attack: tunnel('lab', 'rust', 'loop6.mirror.test:{{P}}', { status: [403] }),
    control: tunnel('open', 'rust', 'loop6.mirror.test:{{P}}', { status: [200], reached: ['loop6'] }),
  },
];
