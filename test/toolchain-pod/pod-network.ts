/**
 * Two pods' network namespaces joined the way a CNI joins pods: a toolchain pod and an agent pod, each in a
 * network namespace of its own (`ip netns`), linked by a veth pair with one pod IP at each end, nothing else.
 * The toolchain server listens in its namespace exactly as rendered (every address of the pod, so the pod
 * IP); the agent side runs in the other namespace, where the toolchain's 127.0.0.1 does not exist, in a
 * private mount namespace whose /etc/hosts maps the toolchain's Service name to its pod IP (cluster DNS and
 * the Service's virtual IP are the parts emulated). Needs root, as CI runs; nothing touches the host's
 * own network namespace.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PodNetwork {
  readonly toolchainNamespace: string;
  readonly agentNamespace: string;
  readonly toolchainPodIp: string;
  readonly agentPodIp: string;
  /** argv prefix that runs a command in the toolchain pod's network namespace. */
  inToolchainPod(command: readonly string[]): string[];
  /**
   * argv prefix that runs a command in the agent pod's network namespace, with `hosts` (name → IP) as its
   * /etc/hosts (a bind mount in a private mount namespace).
   */
  inAgentPod(command: readonly string[], hostsFile: string): string[];
  /** Writes an /etc/hosts for the agent pod: localhost plus the given names. */
  writeHosts(dir: string, names: Readonly<Record<string, string>>): string;
  remove(): void;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function createPodNetwork(): PodNetwork {
  // Unique per test process; interface names stay within 15 characters.
  const id = `${process.pid.toString(36)}${Math.floor(Math.random() * 36 ** 2).toString(36)}`;
  const toolchainNamespace = `ty-${id}-tc`;
  const agentNamespace = `ty-${id}-agent`;
  const subnet = `10.244.${100 + (process.pid % 150)}`;
  const toolchainPodIp = `${subnet}.7`;
  const agentPodIp = `${subnet}.8`;
  const toolchainLink = `ty${id}t`.slice(0, 15);
  const agentLink = `ty${id}a`.slice(0, 15);
  const remove = () => {
    for (const ns of [toolchainNamespace, agentNamespace]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // not created
      }
    }
  };
  try {
    ip('netns', 'add', toolchainNamespace);
    ip('netns', 'add', agentNamespace);
    ip('link', 'add', toolchainLink, 'type', 'veth', 'peer', 'name', agentLink);
    ip('link', 'set', toolchainLink, 'netns', toolchainNamespace);
    ip('link', 'set', agentLink, 'netns', agentNamespace);
    for (const [ns, link, address] of [
      [toolchainNamespace, toolchainLink, toolchainPodIp],
      [agentNamespace, agentLink, agentPodIp],
    ] as const) {
      ip('-n', ns, 'addr', 'add', `${address}/24`, 'dev', link);
      ip('-n', ns, 'link', 'set', link, 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
  } catch (error) {
    remove();
    throw new Error(
      `cannot create the pods' network namespaces (this test needs root and iproute2): ${(error as Error).message}`,
    );
  }
  return {
    toolchainNamespace,
    agentNamespace,
    toolchainPodIp,
    agentPodIp,
    inToolchainPod: (command) => ['ip', 'netns', 'exec', toolchainNamespace, ...command],
    inAgentPod: (command, hostsFile) => [
      'ip',
      'netns',
      'exec',
      agentNamespace,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$0" /etc/hosts && exec "$@"',
      hostsFile,
      ...command,
    ],
    writeHosts: (dir, names) => {
      const file = join(dir, 'hosts');
      const lines = [
        '127.0.0.1 localhost',
        ...Object.entries(names).map(([name, addr]) => `${addr} ${name}`),
      ];
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    },
    remove,
  };
}
