/**
 * Two pods' network namespaces joined the way a CNI joins pods: a toolchain pod and an agent pod, each in a
 * network namespace of its own (`ip netns`), linked by a veth pair with one pod IP at each end, nothing else.
 * The toolchain server listens in its namespace exactly as rendered (every address of the pod, so the pod
 * IP); the agent side runs in the other namespace, where the toolchain's 127.0.0.1 does not exist, in a
 * private mount namespace whose /etc/hosts maps the toolchain's Service name to its pod IP (cluster DNS and
 * the Service's virtual IP are the parts emulated). Needs root, as CI runs; nothing touches the host's
 * own network namespace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Namespaces } from '../support/netns.ts';

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

export function createPodNetwork(): PodNetwork {
  const subnet = `10.244.${100 + (process.pid % 150)}`;
  const toolchainPodIp = `${subnet}.7`;
  const agentPodIp = `${subnet}.8`;
  const namespaces = new Namespaces(['tc', 'agent']);
  try {
    namespaces.link({ a: ['tc', `${toolchainPodIp}/24`], b: ['agent', `${agentPodIp}/24`] });
  } catch (error) {
    namespaces.remove();
    throw error;
  }
  const toolchainNamespace = namespaces.name('tc');
  const agentNamespace = namespaces.name('agent');
  return {
    toolchainNamespace,
    agentNamespace,
    toolchainPodIp,
    agentPodIp,
    inToolchainPod: (command) => namespaces.exec('tc', command),
    inAgentPod: (command, hostsFile) =>
      namespaces.exec('agent', [
        'unshare',
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount --bind "$0" /etc/hosts && exec "$@"',
        hostsFile,
        ...command,
      ]),
    writeHosts: (dir, names) => {
      const file = join(dir, 'hosts');
      const lines = [
        '127.0.0.1 localhost',
        ...Object.entries(names).map(([name, addr]) => `${addr} ${name}`),
      ];
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    },
    remove: () => namespaces.remove(),
  };
}
