/**
 * A real node for the test cluster: Debian's containerd and runc, the kubelet and kube-proxy built with the control
 * plane, the CNI bridge plugin, kube-router's NetworkPolicy firewall and CoreDNS — in a network namespace of its
 * own (node-network.ts) and a mount namespace of its own, so whatever it mounts (pod network namespaces, overlay
 * root filesystems, volumes) and every rule it writes goes away with it. Its pods run for real: images are imported
 * from OCI archives (toolyard's own, and the node's pause, probe and CoreDNS images), never pulled.
 *
 * `stop()` deletes the node's pods, stops every component, kills whatever is left in the node's cgroups and mount
 * namespace, removes its cgroups and namespaces: nothing is left on the machine (docs/cluster.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterBinaries } from '../binaries.ts';
import type { ClusterClient } from '../client.ts';
import { writeKubeconfig } from '../kubeconfig.ts';
import type { ProcessGroup, Supervised } from '../processes.ts';
import { binaryImage } from './binary-image.ts';
import { clusterDnsObjects } from './cluster-dns.ts';
import {
  NODE_LABEL,
  NODE_NAME,
  writeCniConfig,
  writeContainerdConfig,
  writeKubeletConfig,
  writeKubeProxyConfig,
} from './node-config.ts';
import { INTERNET_HOST, type NodeNetwork } from './node-network.ts';

export interface ImageArchive {
  /** An OCI archive whose index names the image by its tag alone (as `npm run images` writes them). */
  readonly archive: string;
  /** The repository the tag belongs to, e.g. `ghcr.io/toolyard/toolyard-broker`. */
  readonly repository: string;
}

export interface NodeOptions {
  readonly client: ClusterClient;
  readonly binaries: ClusterBinaries;
  readonly processes: ProcessGroup;
  readonly network: NodeNetwork;
  readonly dir: string;
  readonly apiserverPort: number;
  readonly clusterCidr: string;
  /** Names CoreDNS answers with the fake public host's address (INTERNET_HOST). */
  readonly publicNames: readonly string[];
  readonly images: readonly ImageArchive[];
  readonly log: (line: string) => void;
}

export interface TestNode {
  readonly name: string;
  readonly address: string;
  /** The network namespace where fake public hosts listen, at INTERNET_HOST. */
  readonly internetNamespace: string;
  /** The probe image (`probe idle`, `probe tcp HOST PORT`, …: node-tools/cmd/probe). */
  readonly probeImage: string;
  /** The probe image serving port 8000 (a stand-in gateway). */
  readonly probeGatewayImage: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs: number,
  watch: readonly Supervised[],
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const p of watch) {
      const status = await Promise.race([
        p.exited.then((code) => ({ code })),
        sleep(0).then(() => undefined),
      ]);
      if (status)
        throw new Error(`${p.name} exited (${status.code}) while waiting for ${what}:\n${p.tail()}`);
    }
    try {
      const value = check();
      if (value !== undefined && value !== false) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline)
      throw new Error(
        `test node: timed out waiting for ${what}\n${watch.map((p) => `--- ${p.name}\n${p.tail(12)}`).join('\n')}`,
      );
    await sleep(500);
  }
}

/** The cgroup v1 hierarchies (and the v2 one, if mounted) where the node's cgroup root is made. */
function cgroupHierarchies(): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const fields = line.split(' ');
    const mountPoint = fields[4];
    const type = fields[fields.indexOf('-') + 1];
    if (mountPoint?.startsWith('/sys/fs/cgroup/') && (type === 'cgroup' || type === 'cgroup2'))
      out.push(mountPoint);
  }
  return out;
}

/** Every process id in a cgroup subtree. */
function cgroupProcs(dir: string): number[] {
  if (!existsSync(dir)) return [];
  const pids: number[] = [];
  const walk = (d: string) => {
    try {
      for (const line of readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n'))
        if (line) pids.push(Number(line));
      for (const entry of readdirSync(d, { withFileTypes: true }))
        if (entry.isDirectory()) walk(join(d, entry.name));
    } catch {}
  };
  walk(dir);
  return pids;
}

function removeCgroupTree(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) removeCgroupTree(join(dir, entry.name));
  try {
    rmdirSync(dir);
  } catch {}
}

/** Processes whose mount namespace is `mnt` (e.g. `mnt:[4026532]`): the node's shims and anything they left. */
function processesInMountNamespace(mnt: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/mnt`) === mnt) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
}

export async function startNode(options: NodeOptions): Promise<TestNode> {
  const { client, binaries, processes, network, dir, log } = options;
  mkdirSync(join(dir, 'cni'), { recursive: true });
  mkdirSync(join(dir, 'images'), { recursive: true });
  const started = Date.now();

  // The node's own images: its pod sandbox, the network probe, CoreDNS.
  const [pause, probe, probeGateway, coredns] = await Promise.all([
    binaryImage({
      name: 'pause',
      tag: '1',
      binary: binaries.pause,
      entrypoint: ['/pause'],
      user: '65535:65535',
      outDir: join(dir, 'images'),
    }),
    binaryImage({
      name: 'probe',
      tag: '1',
      binary: binaries.probe,
      entrypoint: ['/probe'],
      user: '65532:65532',
      outDir: join(dir, 'images'),
    }),
    // A stand-in MCP gateway for the node tests: a listener on 8000 (a gateway spec takes no args).
    binaryImage({
      name: 'probe-gateway',
      tag: '1',
      binary: binaries.probe,
      file: 'probe',
      entrypoint: ['/probe', 'serve', '8000'],
      user: '65532:65532',
      outDir: join(dir, 'images'),
    }),
    binaryImage({
      name: 'coredns',
      tag: '1',
      binary: binaries.coredns,
      entrypoint: ['/coredns'],
      user: '0:0',
      outDir: join(dir, 'images'),
    }),
  ]);

  // One mount namespace (private) inside the node's network namespace, kept by an anchor process; every component
  // joins both. tmpfs over the host paths CRI, CNI and the kubelet's container logs write to, so nothing lands in
  // the host's.
  const anchor = processes.start('node-anchor', 'nsenter', [
    `--net=/run/netns/${network.namespace}`,
    '--',
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-ec',
    'mkdir -p /var/lib/cni /run/containerd /run/netns /var/log/pods /var/log/containers; for d in /run/netns /var/lib/cni /run/containerd /var/log/pods /var/log/containers; do mount -t tmpfs toolyard-node "$d"; done; echo anchored; exec sleep 2147483647',
  ]);
  await until(
    'the node namespace anchor',
    () => readFileSync(anchor.logFile, 'utf8').includes('anchored'),
    10_000,
    [anchor],
  );
  const mountNamespace = readlinkSync(`/proc/${anchor.pid}/ns/mnt`);
  const inNode = (name: string, command: string, args: readonly string[]) =>
    processes.start(name, 'nsenter', [`--target=${anchor.pid}`, '--mount', '--net', '--', command, ...args]);

  const socket = join(dir, 'containerd', 'containerd.sock');
  const containerd = inNode('containerd', 'containerd', [
    '--config',
    writeContainerdConfig(dir, pause.ref),
    '--log-level=warn',
  ]);
  const ctr = (...args: string[]) =>
    execFileSync('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], {
      stdio: 'pipe',
      encoding: 'utf8',
    });
  await until(
    'containerd',
    () => {
      ctr('version');
      return true;
    },
    30_000,
    [anchor, containerd],
  );
  for (const image of [pause, probe, probeGateway, coredns])
    ctr('images', 'import', '--base-name', image.ref.slice(0, image.ref.lastIndexOf(':')), image.archive);
  for (const image of options.images) ctr('images', 'import', '--base-name', image.repository, image.archive);

  const cgroupRoot = `/toolyard-node-${process.pid}`;
  const hierarchies = cgroupHierarchies();
  for (const hierarchy of hierarchies) mkdirSync(join(hierarchy, cgroupRoot), { recursive: true });

  const apiserver = `https://${network.hostAddress}:${options.apiserverPort}`;
  const kubeconfig = (name: string, user: string, groups: readonly string[] = []) =>
    writeKubeconfig(
      join(dir, `${name}.kubeconfig`),
      apiserver,
      client.pki.ca.cert,
      client.pki.client(name, user, groups),
      user,
    );
  const serving = client.pki.server('kubelet-serving', NODE_NAME, [network.nodeAddress, NODE_NAME]);
  const kubelet = inNode('kubelet', binaries.kubelet, [
    `--config=${writeKubeletConfig(dir, {
      caCert: client.pki.ca.cert,
      servingCert: serving.cert,
      servingKey: serving.key,
      socket,
      cgroupRoot,
      nodeAddress: network.nodeAddress,
    })}`,
    `--kubeconfig=${kubeconfig('kubelet', `system:node:${NODE_NAME}`, ['system:nodes'])}`,
    `--root-dir=${join(dir, 'kubelet')}`,
    `--hostname-override=${NODE_NAME}`,
    `--node-ip=${network.nodeAddress}`,
    `--node-labels=${NODE_LABEL.key}=${NODE_LABEL.value}`,
    '--v=1',
  ]);
  const watch = [anchor, containerd, kubelet];
  const podCidr = await until(
    'the node to register with a podCIDR',
    () =>
      client.kubectl(['get', 'node', NODE_NAME, '-o', 'jsonpath={.spec.podCIDR}']).stdout.trim() || undefined,
    60_000,
    watch,
  );
  writeCniConfig(dir, podCidr);
  await until(
    'the node to be Ready',
    () =>
      client.kubectl([
        'get',
        'node',
        NODE_NAME,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ]).stdout === 'True',
    60_000,
    watch,
  );

  const kubeProxy = inNode('kube-proxy', binaries.kubeProxy, [
    `--config=${writeKubeProxyConfig(dir, kubeconfig('kube-proxy', 'system:kube-proxy'), network.nodeAddress, options.clusterCidr)}`,
  ]);
  const kubeRouter = inNode('kube-router', binaries.kubeRouter, [
    `--kubeconfig=${kubeconfig('kube-router', 'toolyard-test:kube-router', ['system:masters'])}`,
    `--hostname-override=${NODE_NAME}`,
    '--run-firewall=true',
    '--run-router=false',
    '--run-service-proxy=false',
    '--enable-ipv4=true',
    '--enable-ipv6=false',
    '--health-port=0',
    '--metrics-port=0',
    '--iptables-sync-period=5s',
    '--ipvs-sync-period=5s',
  ]);
  watch.push(kubeProxy, kubeRouter);

  const publicHosts = Object.fromEntries(options.publicNames.map((name) => [name, INTERNET_HOST]));
  client.kubectlOk(['apply', '--server-side', '--field-manager=toolyard-test-node', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: clusterDnsObjects(coredns.ref, publicHosts),
    }),
  });
  await until(
    'CoreDNS to be ready on the node',
    () =>
      client.kubectl([
        'get',
        'deployment',
        'coredns',
        '-n',
        'kube-system',
        '-o',
        'jsonpath={.status.readyReplicas}',
      ]).stdout === '1',
    90_000,
    watch,
  );
  log(`real node ${NODE_NAME} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (podCIDR ${podCidr})`);

  let stopped = false;
  return {
    name: NODE_NAME,
    address: network.nodeAddress,
    internetNamespace: network.internet,
    probeImage: probe.ref,
    probeGatewayImage: probeGateway.ref,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // The kubelet stops its pods' containers; what it leaves is killed below.
      client.kubectl(
        [
          'delete',
          'pods',
          '-A',
          `--field-selector=spec.nodeName=${NODE_NAME}`,
          '--grace-period=1',
          '--wait=false',
        ],
        {
          timeoutMs: 20_000,
        },
      );
      await sleep(2000);
      for (const p of [kubeRouter, kubeProxy, kubelet]) await processes.stop(p, 5000);
      for (const hierarchy of hierarchies) killAll(cgroupProcs(join(hierarchy, cgroupRoot)));
      await processes.stop(containerd, 5000);
      killAll(processesInMountNamespace(mountNamespace).filter((pid) => pid !== anchor.pid));
      await processes.stop(anchor, 2000);
      await sleep(300);
      for (const hierarchy of hierarchies) removeCgroupTree(join(hierarchy, cgroupRoot));
      network.remove();
    },
  };
}
