/**
 * A name on the caller's list (`*.mirror.test`) that resolves to a private, link-local, metadata, CGNAT,
 * multicast or otherwise non-public address. Nothing listens on those addresses here (they are not ours to
 * bind), so their controls re-point the same name at a live public-standing endpoint for that step only: the
 * same caller, name, port and broker then get through, so the resolved address is the one thing refused.
 * The lab broker's own private range (127.0.0.64/26) has a live listener: its controls go through the `open`
 * broker (no denied ranges) and land on it.
 */
import { tunnel } from './http.ts';
import type { RedteamCase } from './types.ts';
import { UNBOUND_NAMES } from './world.ts';

const WHAT: Readonly<Record<string, string>> = {
  'meta.mirror.test': 'the cloud metadata address 169.254.169.254',
  'pod.mirror.test': 'a pod address (10.42.0.7)',
  'svc.mirror.test': 'a 172.16/12 address',
  'home.mirror.test': 'a 192.168/16 address',
  'cgnat.mirror.test': 'a CGNAT address (100.64/10)',
  'zero.mirror.test': '0.0.0.0',
  'mcast.mirror.test': 'a multicast address',
  'ula.mirror.test': 'an IPv6 unique-local address (fd00::1)',
  'll6.mirror.test': 'an IPv6 link-local address (fe80::1)',
  'mapped.mirror.test': 'an IPv4-mapped private address (::ffff:10.0.0.1)',
  'nat64.mirror.test': 'NAT64 of the metadata address (64:ff9b::a9fe:a9fe)',
  'sixtofour.mirror.test': '6to4 of the metadata address (2002:a9fe:a9fe::1)',
};

export const PRIVATE_ADDRESS_CASES: readonly RedteamCase[] = [
  ...Object.entries(UNBOUND_NAMES).map(
    ([name, addresses]): RedteamCase => ({
      id: `private-${name.split('.')[0]}`,
      class: 'private-address',
      description: `${name} resolves to ${WHAT[name] ?? addresses.join(', ')}`,
      attack: tunnel('lab', 'rust', `${name}:{{P}}`, { status: [403] }),
      control: tunnel(
        'lab',
        'rust',
        `${name}:{{P}}`,
        { status: [200], reached: ['mirror'] },
        { dns: { [name]: [['127.0.0.11']] } },
      ),
    }),
  ),
  {
    id: 'private-lab-range-live',
    class: 'private-address',
    description: 'internal.mirror.test resolves into the denied range where a listener is live',
    attack: tunnel('lab', 'rust', 'internal.mirror.test:{{P}}', { status: [403] }),
    control: tunnel('open', 'rust', 'internal.mirror.test:{{P}}', { status: [200], reached: ['private'] }),
  },
  {
    id: 'private-mixed-answers',
    class: 'private-address',
    description: 'a name with one public-standing and one denied address is refused outright',
    attack: tunnel(
      'lab',
      'rust',
      'cdn.mirror.test:{{P}}',
      { status: [403] },
      { dns: { 'cdn.mirror.test': [['127.0.0.11', '127.0.0.70']] } },
    ),
    control: tunnel(
      'open',
      'rust',
      'cdn.mirror.test:{{P}}',
      { status: [200], mayReach: ['mirror', 'private'] },
      { dns: { 'cdn.mirror.test': [['127.0.0.70', '127.0.0.11']] } },
    ),
  },
  {
    id: 'private-mapped-live',
    class: 'private-address',
    description: 'a name answering ::ffff:127.0.0.70 (IPv4-mapped form of the live denied address)',
    attack: tunnel(
      'lab',
      'rust',
      'cdn.mirror.test:{{P}}',
      { status: [403] },
      { dns: { 'cdn.mirror.test': [['::ffff:127.0.0.70']] } },
    ),
    control: tunnel(
      'open',
      'rust',
      'cdn.mirror.test:{{P}}',
      { status: [200], reached: ['private'] },
      { dns: { 'cdn.mirror.test': [['::ffff:127.0.0.70']] } },
    ),
  },
  {
    id: 'private-wide-caller',
    class: 'private-address',
    description: 'openPorts ("any public host") does not stretch to a name resolving to a denied address',
    attack: tunnel('lab', 'wide', 'internal.mirror.test:{{P}}', { status: [403] }),
    control: tunnel('open', 'wide', 'internal.mirror.test:{{P}}', { status: [200], reached: ['private'] }),
  },
];
