/**
 * CONNECT to an IP literal, in every form getaddrinfo accepts. Egress is by name only, so each is refused —
 * even for `wide` (any public host on P) and even for the allowed host's own address. Controls: the same
 * literal handed to the OS, as any program would, connects to a live endpoint.
 */
import { tunnel } from './http.ts';
import type { EndpointName, RedteamCase } from './types.ts';

const LITERALS: readonly { id: string; literal: string; os: string; at: EndpointName; what: string }[] = [
  { id: 'dotted', literal: '127.0.0.30', os: '127.0.0.30', at: 'evil', what: "evil's dotted quad" },
  {
    id: 'decimal',
    literal: '2130706433',
    os: '2130706433',
    at: 'loop1',
    what: 'one decimal number (127.0.0.1)',
  },
  { id: 'hex-short', literal: '0x7f.1', os: '0x7f.1', at: 'loop1', what: 'hex, shortened (0x7f.1)' },
  { id: 'octal', literal: '0177.0.0.1', os: '0177.0.0.1', at: 'loop1', what: 'octal first part' },
  { id: 'short', literal: '127.1', os: '127.1', at: 'loop1', what: 'two parts (127.1)' },
  { id: 'hex-whole', literal: '0x7f000001', os: '0x7f000001', at: 'loop1', what: 'one hex number' },
  { id: 'octal-whole', literal: '017700000001', os: '017700000001', at: 'loop1', what: 'one octal number' },
  {
    id: 'zero',
    literal: '0',
    os: '0',
    at: 'loop1',
    what: '0 (0.0.0.0, which Linux routes to the host itself)',
  },
  {
    id: 'v4-mapped',
    literal: '[::ffff:127.0.0.30]',
    os: '::ffff:127.0.0.30',
    at: 'evil',
    what: 'IPv4-mapped IPv6',
  },
  {
    id: 'v4-mapped-hex',
    literal: '[::ffff:7f00:1e]',
    os: '::ffff:7f00:1e',
    at: 'evil',
    what: 'IPv4-mapped, hex words',
  },
  {
    id: 'trailing-dot',
    literal: '127.0.0.30.',
    os: '127.0.0.30',
    at: 'evil',
    what: "evil's dotted quad with a trailing dot",
  },
  { id: 'v6-loopback', literal: '[::1]', os: '::1', at: 'loop6', what: 'IPv6 loopback' },
  {
    id: 'v6-loopback-long',
    literal: '[0:0:0:0:0:0:0:1]',
    os: '::1',
    at: 'loop6',
    what: 'IPv6 loopback, uncompressed',
  },
];

export const IP_LITERAL_CASES: readonly RedteamCase[] = [
  ...LITERALS.map(
    (l): RedteamCase => ({
      id: `ip-literal-${l.id}`,
      class: 'ip-literal',
      description: `CONNECT ${l.literal}:P — ${l.what} — by a caller allowed any public host on P`,
      attack: tunnel('lab', 'wide', `${l.literal}:{{P}}`, { status: [400, 403] }),
      control: { step: { kind: 'os-connect', host: l.os, port: '{{P}}' }, expect: { reached: [l.at] } },
    }),
  ),
  {
    id: 'ip-literal-of-listed-host',
    class: 'ip-literal',
    description: "the listed host's own address as a literal (egress is by name only)",
    attack: tunnel('lab', 'rust', '127.0.0.10:{{P}}', { status: [400, 403] }),
    control: tunnel('lab', 'rust', 'allowed.pkg.test:{{P}}', { status: [200], reached: ['allowed'] }),
  },
];
