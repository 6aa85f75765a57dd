/**
 * The real test node's network: the node lives in a network namespace of its own, as a VM would — its kubelet,
 * containerd, kube-proxy and NetworkPolicy firewall, its bridge and every pod's veth are there, so every iptables
 * rule, ipset and interface they make goes when the namespace goes, and nothing they open listens on the host.
 *
 *   host (root namespace)          node namespace                    "internet" namespace
 *   10.255.N.1/30 ── veth ──────── 10.255.N.2/30 (node IP)
 *   (the API server's advertised   bridge tyn0 ── pods (podCIDR)
 *    address; a forwarder there    203.0.113.1/24 ── veth ────────── 203.0.113.10/24 (fake public hosts)
 *    relays to 127.0.0.1)
 *
 * The node namespace has no default route: a pod reaches the API server, the fake public hosts, and nothing else
 * (no packet of a test ever leaves the machine). 203.0.113.0/24 (TEST-NET-3) is outside the broker's denied
 * ranges, so the broker treats those hosts as public.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';

const PREFIX = 'tyk-';
export const INTERNET_SUBNET = '203.0.113.0/24';
export const INTERNET_GATEWAY = '203.0.113.1';
/** The address the fake public hosts listen on (CoreDNS answers their names with it). */
export const INTERNET_HOST = '203.0.113.10';

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the node namespaces of runs that no longer exist (named `tyk-<pid base 36>-…`). */
export function sweepDeadNodeNetworks(): void {
  let names: string[] = [];
  try {
    names = readdirSync('/run/netns');
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number.parseInt(name.slice(PREFIX.length).split('-')[0] ?? '', 36);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid))
      try {
        ip('netns', 'del', name);
      } catch {}
  }
}

export interface NodeNetwork {
  /** The node namespace's name (`/run/netns/<name>`). */
  readonly namespace: string;
  /** The "internet" namespace, where fake public hosts listen. */
  readonly internet: string;
  /** The host end of the node's link: the API server's advertised address. */
  readonly hostAddress: string;
  /** The node's own address (its InternalIP). */
  readonly nodeAddress: string;
  /** Relays `hostAddress:port` to `127.0.0.1:port` (the API server binds loopback only). */
  forward(port: number): Promise<void>;
  remove(): void;
}

export function createNodeNetwork(): NodeNetwork {
  sweepDeadNodeNetworks();
  const id = `${process.pid.toString(36)}-${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
  const namespace = `${PREFIX}${id}-node`;
  const internet = `${PREFIX}${id}-inet`;
  const octet = (process.pid % 60) * 4;
  const hostAddress = `10.255.${octet}.1`;
  const nodeAddress = `10.255.${octet}.2`;
  const hostDevice = `tyk${process.pid.toString(36)}`.slice(0, 15);
  const servers: Server[] = [];
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    for (const server of servers) server.close();
    for (const name of [namespace, internet])
      try {
        ip('netns', 'del', name);
      } catch {}
    try {
      ip('link', 'del', hostDevice);
    } catch {}
  };
  process.on('exit', remove);
  try {
    for (const name of [namespace, internet]) {
      ip('netns', 'add', name);
      ip('-n', name, 'link', 'set', 'lo', 'up');
    }
    ip('link', 'add', hostDevice, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostDevice);
    ip('link', 'set', hostDevice, 'up');
    ip('-n', namespace, 'addr', 'add', `${nodeAddress}/30`, 'dev', 'eth0');
    ip('-n', namespace, 'link', 'set', 'eth0', 'up');
    ip('-n', namespace, 'link', 'add', 'inet0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', internet);
    ip('-n', namespace, 'addr', 'add', `${INTERNET_GATEWAY}/24`, 'dev', 'inet0');
    ip('-n', namespace, 'link', 'set', 'inet0', 'up');
    ip('-n', internet, 'addr', 'add', `${INTERNET_HOST}/24`, 'dev', 'eth0');
    ip('-n', internet, 'link', 'set', 'eth0', 'up');
    ip('-n', internet, 'route', 'add', 'default', 'via', INTERNET_GATEWAY);
    const sysctl = (key: string, value: string) =>
      execFileSync('ip', ['netns', 'exec', namespace, 'sysctl', '-qw', `${key}=${value}`]);
    sysctl('net.ipv4.ip_forward', '1');
  } catch (error) {
    remove();
    throw new Error(
      `cannot create the test node's network namespaces (needs root and iproute2): ${(error as Error).message}`,
    );
  }
  return {
    namespace,
    internet,
    hostAddress,
    nodeAddress,
    forward: (port) =>
      new Promise((resolve, reject) => {
        const server = createServer((client) => {
          const upstream = connect(port, '127.0.0.1');
          client.pipe(upstream).pipe(client);
          const end = () => {
            client.destroy();
            upstream.destroy();
          };
          client.on('error', end);
          upstream.on('error', end);
        });
        server.once('error', reject);
        server.listen(port, hostAddress, () => {
          servers.push(server);
          resolve();
        });
      }),
    remove,
  };
}
