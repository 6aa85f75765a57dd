/**
 * The broker end-to-end network: three namespaces, wired as a cluster would leave them with the broker on.
 *
 *   agent (10.231.1.2) ──veth── (10.231.1.1) broker (10.231.2.1) ──veth── upstream (10.231.2.10, .11, …)
 *
 * - `agent`: the agent pod (backend containers, toolchain containers). Its one route besides its link goes
 *   via the broker's address, and the broker's namespace does not forward: the agent reaches the broker's
 *   listener and nothing else (what the rendered NetworkPolicy allows: DNS and the broker's port).
 * - `broker`: the real `toolyard-broker` process. It reaches the upstream namespace, and resolves the real
 *   provider and registry names to the upstream addresses through its own /etc/hosts (cluster DNS answering
 *   public names is the part emulated).
 * - `upstream`: the fake model APIs and registries, each on an address of its own, serving HTTPS for the
 *   real public names with certificates from the test CA. Only the broker's namespace has a route to them.
 *
 * The 10.231.0.0/16 addresses exist only inside these namespaces; nothing touches the host's network.
 */
import type { Server } from 'node:net';
import type { FakeApiListener } from '../backends/fake-model.ts';
import type { TestCa } from '../broker/tls-fixture.ts';
import { Namespaces } from '../support/netns.ts';

export const BROKER_AGENT_SIDE = '10.231.1.1';
export const AGENT_POD_IP = '10.231.1.2';
export const BROKER_UPSTREAM_SIDE = '10.231.2.1';
/** The upstream link's subnet: the one private range the test broker may reach (see `testDeniedCidrs`). */
export const UPSTREAM_SUBNET = '10.231.2.0/24';

/** One fake upstream: the public names it answers for, on an address of its own. */
export interface UpstreamSite {
  readonly names: readonly string[];
  readonly address: string;
}

export class BrokerTopology {
  readonly namespaces: Namespaces;
  private readonly sites: UpstreamSite[] = [];

  constructor() {
    this.namespaces = new Namespaces(['agent', 'broker', 'upstream']);
    try {
      this.namespaces.link({ a: ['broker', `${BROKER_AGENT_SIDE}/24`], b: ['agent', `${AGENT_POD_IP}/24`] });
      this.namespaces.link({ a: ['broker', `${BROKER_UPSTREAM_SIDE}/24`], b: ['upstream', '10.231.2.2/24'] });
      // The agent pod has a default route, as pods do; the broker's namespace drops what is not its own.
      this.namespaces.route('agent', 'default', BROKER_AGENT_SIDE);
    } catch (error) {
      this.namespaces.remove();
      throw error;
    }
  }

  /**
   * Serves `names` over HTTPS (a certificate from `ca`) on a fresh upstream address, port 443: the listener a
   * fake passes to `startFakeApi` (or any server attaches to).
   */
  async site(ca: TestCa, names: readonly string[]): Promise<FakeApiListener & { address: string }> {
    const address = `10.231.2.${10 + this.sites.length}`;
    this.sites.push({ names, address });
    this.namespaces.addAddress('upstream', `${address}/24`);
    const socket: Server = await this.namespaces.listen('upstream', address, 443);
    const { key, cert } = ca.issue(names);
    return { socket, url: `https://${names[0]}`, tls: { key, cert }, address };
  }

  /**
   * The broker namespace's /etc/hosts lines: every upstream name at its site's address, also in its fully
   * qualified form (`api.anthropic.com.`): the broker asks for that, so no search domain applies, and glibc
   * matches hosts entries literally.
   */
  brokerHosts(): string[] {
    return this.sites.map((site) => `${site.address} ${site.names.flatMap((n) => [n, `${n}.`]).join(' ')}`);
  }

  /**
   * A name the broker resolves to `address` (a process of the test's own, e.g. a collector, listens there in
   * the upstream namespace): the address is added to that namespace and the name to the broker's hosts file.
   */
  host(names: readonly string[], address: string): void {
    this.namespaces.addAddress('upstream', `${address}/24`);
    this.sites.push({ names, address });
  }

  /** The upstream address serving `name`. */
  addressOf(name: string): string {
    const site = this.sites.find((s) => s.names.includes(name));
    if (!site) throw new Error(`no upstream site serves ${name}`);
    return site.address;
  }

  remove(): void {
    this.namespaces.remove();
  }
}

/** Inclusive integer range of an IPv4 CIDR. */
function range(cidr: string): [number, number] {
  const [address, bits] = cidr.split('/') as [string, string];
  const base = address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return [base, base + size - 1];
}

function cidrOf(start: number, bits: number): string {
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(start / 2 ** shift) % 256);
  return `${octets.join('.')}/${bits}`;
}

/** `outer` minus `hole`, as the fewest CIDRs (both IPv4, `hole` inside `outer`). */
export function cidrsExcept(outer: string, hole: string): string[] {
  const [holeStart, holeEnd] = range(hole);
  const out: string[] = [];
  const split = (cidr: string) => {
    const [start, end] = range(cidr);
    if (end < holeStart || start > holeEnd) return void out.push(cidr);
    if (start >= holeStart && end <= holeEnd) return;
    const bits = Number(cidr.split('/')[1]) + 1;
    split(cidrOf(start, bits));
    split(cidrOf(start + 2 ** (32 - bits), bits));
  };
  split(outer);
  return out;
}

/**
 * The broker's denied ranges for this test: the defaults, except that 10.0.0.0/8 becomes 10.0.0.0/8 minus the
 * upstream subnet. The fake upstreams must live on private addresses (they never leave the machine), so the
 * test broker may reach exactly that /24; loopback, the agent link (10.231.1.0/24), link-local, the rest of
 * 10/8 and every other default range stay denied.
 */
export function testDeniedCidrs(defaults: readonly string[]): string[] {
  return defaults.flatMap((cidr) => (cidr === '10.0.0.0/8' ? cidrsExcept(cidr, UPSTREAM_SUBNET) : [cidr]));
}
