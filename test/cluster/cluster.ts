/**
 * A real Kubernetes control plane on 127.0.0.1, from the binaries `binaries.ts` builds: etcd → kube-apiserver
 * (x509 client certificates, RBAC + Node authorization, admission on with Pod Security `restricted` as the
 * cluster default, audit log) → kube-controller-manager (every default controller, service-account tokens signed
 * with the cluster's key) → kube-scheduler, and optionally kwok with fake nodes. Ports are free ports of
 * 127.0.0.1; everything lives in one temporary directory, removed on `stop()`. See docs/cluster.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.ts';
import { type ClusterBinaries, requireClusterBinaries } from './binaries.ts';
import { type ClusterClient, clusterClient, readHandle, writeHandle } from './client.ts';
import { writeAdmissionConfig, writeAuditPolicy } from './control-plane-config.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { installKubectl } from './kubectl-binary.ts';
import { KWOK_NODE_ANNOTATION, kwokStagesYaml, testStorageClasses } from './kwok-stages.ts';
import { type ImageArchive, startNode, type TestNode } from './node/node.ts';
import { createNodeNetwork, type NodeNetwork } from './node/node-network.ts';
import { type KeyPair, makeClusterPki } from './pki.ts';
import { CLUSTER_DIR_PREFIX, ProcessGroup, type Supervised, sweepDeadClusters } from './processes.ts';

/** The cluster's Service range; the first address is the `kubernetes` Service's ClusterIP. */
export const SERVICE_CIDR = '10.96.0.0/16';
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
/** Pod addresses: node CIDRs (/24 each) come from here. */
export const CLUSTER_CIDR = '10.64.0.0/12';

export interface ClusterOptions {
  /** Fake kwok nodes to create (0: none, and kwok is not started). */
  readonly kwokNodes?: number;
  readonly log?: (line: string) => void;
  /**
   * kube-controller-manager and kube-scheduler without their client rate limits (20 and 50 requests/s by default),
   * as kwokctl's `--disable-qps-limits` runs them for scale tests: for fleet benchmarks, where those limits and not
   * the API server decide how fast thousands of Deployments become Available. Tests keep the defaults.
   */
  readonly unlimitedClientQps?: boolean;
  /** Extra kube-apiserver flags (e.g. feature gates), after toolyard's own. */
  readonly apiserverFlags?: readonly string[];
  /**
   * A real node (node/node.ts): containerd, kubelet, kube-proxy, CoreDNS and a NetworkPolicy firewall in a
   * network namespace of their own, running the given images; the API server is then advertised on the node's
   * link. Pods reach it only if they tolerate its taint and select its label.
   */
  readonly node?: { readonly images: readonly ImageArchive[]; readonly publicNames: readonly string[] };
}

export interface Cluster extends ClusterClient {
  readonly binaries: ClusterBinaries;
  /** The real node, when `node` was asked for. */
  readonly realNode?: TestNode;
  /** The handle file tests attach with (`TOOLYARD_TEST_CLUSTER`). */
  readonly handleFile: string;
  /** Creates `count` more kwok nodes (kwok must be running: `kwokNodes` > 0). */
  addKwokNodes(count: number): void;
  /** The names of the kwok nodes created so far. */
  readonly kwokNodeNames: readonly string[];
  /** The process of a component, by name (etcd, kube-apiserver, …). */
  component(name: string): Supervised | undefined;
  stop(): Promise<void>;
}

function getWithClientCert(
  url: string,
  ca: string,
  client: KeyPair,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { ca: readFileSync(ca), cert: readFileSync(client.cert), key: readFileSync(client.key), timeout: 5000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check` to hold, failing with the components' log tails if one exits or time runs out. */
async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  watched: readonly Supervised[],
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const exits = watched.map((p) => p.exited.then((code) => ({ p, code })));
  let exited: { p: Supervised; code: number | null } | undefined;
  for (const e of exits) void e.then((value) => (exited ??= value));
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(
        `${exited.p.name} exited (${exited.code}) while waiting for ${what}:\n${exited.p.tail()}`,
      );
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await sleep(250);
  }
  const tails = watched.map((p) => `--- ${p.name} (${p.logFile})\n${p.tail(15)}`).join('\n');
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}\n${tails}`);
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const binaries = requireClusterBinaries();
  const kubectlPath = installKubectl(log);
  sweepDeadClusters(tmpdir());
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_DIR_PREFIX));
  const processes = new ProcessGroup(dir);
  const started = Date.now();
  let network: NodeNetwork | undefined;
  let node: TestNode | undefined;
  try {
    if (options.node) network = createNodeNetwork();
    const advertise = network?.hostAddress ?? '127.0.0.1';
    const pki = makeClusterPki(join(dir, 'pki'));
    const [etcdClient, etcdPeer, apiserverPort, controllerManagerPort, schedulerPort, kwokPort] =
      await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
    const server = `https://127.0.0.1:${apiserverPort}`;
    const kubeconfigFor = (name: string, user: string, groups: readonly string[] = []) =>
      writeKubeconfig(
        join(dir, `${name}.kubeconfig`),
        server,
        pki.ca.cert,
        pki.client(name, user, groups),
        user,
      );

    const etcd = processes.start('etcd', binaries.etcd, [
      '--name=toolyard-test',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=toolyard-test=http://127.0.0.1:${etcdPeer}`,
      '--log-level=warn',
      // A test cluster's data is thrown away: no fsync stalls on a busy disk.
      '--unsafe-no-fsync',
      '--quota-backend-bytes=4294967296',
    ]);
    await waitUntil(
      'etcd health',
      async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok,
      [etcd],
      30_000,
    );

    const apiserverCert = pki.server('kube-apiserver', 'kube-apiserver', [
      '127.0.0.1',
      ...(network ? [network.hostAddress] : []),
      KUBERNETES_SERVICE_IP,
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ]);
    const kubeletClient = pki.client('kube-apiserver-kubelet-client', 'kube-apiserver-kubelet-client', [
      'system:masters',
    ]);
    const apiserver = processes.start('kube-apiserver', binaries.kubeApiserver, [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      `--advertise-address=${advertise}`,
      `--secure-port=${apiserverPort}`,
      `--tls-cert-file=${apiserverCert.cert}`,
      `--tls-private-key-file=${apiserverCert.key}`,
      `--client-ca-file=${pki.ca.cert}`,
      `--kubelet-client-certificate=${kubeletClient.cert}`,
      `--kubelet-client-key=${kubeletClient.key}`,
      `--kubelet-certificate-authority=${pki.ca.cert}`,
      // The real node's name resolves nowhere: exec, logs and port-forward go to its InternalIP.
      '--kubelet-preferred-address-types=InternalIP,Hostname',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--authorization-mode=Node,RBAC',
      // As kubeadm and managed clusters set it: Pod Security admission, not this flag, is what refuses a
      // privileged pod in a restricted namespace (a control test relies on that).
      '--allow-privileged=true',
      '--anonymous-auth=false',
      '--enable-admission-plugins=NodeRestriction',
      `--admission-control-config-file=${writeAdmissionConfig(dir)}`,
      `--audit-policy-file=${writeAuditPolicy(dir)}`,
      `--audit-log-path=${join(dir, 'audit.log')}`,
      '--audit-log-maxsize=200',
      '--profiling=false',
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      ...(options.apiserverFlags ?? []),
    ]);
    const admin = pki.client('admin', 'toolyard-admin', ['system:masters']);
    const kubeconfig = writeKubeconfig(
      join(dir, 'admin.kubeconfig'),
      server,
      pki.ca.cert,
      admin,
      'toolyard-admin',
    );
    await waitUntil(
      'kube-apiserver /readyz',
      async () => (await getWithClientCert(`${server}/readyz`, pki.ca.cert, admin)).status === 200,
      [etcd, apiserver],
    );
    // The node's pods and kubelet reach the API server at its advertised address, relayed to loopback.
    if (network) await network.forward(apiserverPort);

    const unlimited = options.unlimitedClientQps ? ['--kube-api-qps=5000', '--kube-api-burst=10000'] : [];
    const controllerManager = processes.start('kube-controller-manager', binaries.kubeControllerManager, [
      `--kubeconfig=${kubeconfigFor('kube-controller-manager', 'system:kube-controller-manager')}`,
      `--authentication-kubeconfig=${join(dir, 'kube-controller-manager.kubeconfig')}`,
      `--authorization-kubeconfig=${join(dir, 'kube-controller-manager.kubeconfig')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${controllerManagerPort}`,
      `--cert-dir=${join(dir, 'controller-manager-certs')}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--root-ca-file=${pki.ca.cert}`,
      `--cluster-signing-cert-file=${pki.ca.cert}`,
      `--cluster-signing-key-file=${pki.ca.key}`,
      '--use-service-account-credentials=true',
      '--leader-elect=false',
      '--allocate-node-cidrs=true',
      `--cluster-cidr=${CLUSTER_CIDR}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--node-cidr-mask-size=24',
      '--controllers=*',
      ...unlimited,
    ]);
    const scheduler = processes.start('kube-scheduler', binaries.kubeScheduler, [
      `--kubeconfig=${kubeconfigFor('kube-scheduler', 'system:kube-scheduler')}`,
      `--authentication-kubeconfig=${join(dir, 'kube-scheduler.kubeconfig')}`,
      `--authorization-kubeconfig=${join(dir, 'kube-scheduler.kubeconfig')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${schedulerPort}`,
      `--cert-dir=${join(dir, 'scheduler-certs')}`,
      '--leader-elect=false',
      ...unlimited,
    ]);
    const control = [etcd, apiserver, controllerManager, scheduler];
    // The two serve with self-signed certificates of their own: "listening and healthy" is enough here.
    await waitUntil(
      'kube-controller-manager and kube-scheduler /healthz',
      async () =>
        (await healthzStatus(controllerManagerPort)) === 200 && (await healthzStatus(schedulerPort)) === 200,
      control,
    );

    const handleFile = writeHandle({
      dir,
      server,
      kubeconfig,
      kubectlPath,
      kwok: (options.kwokNodes ?? 0) > 0,
      apiserverPid: apiserver.pid,
    });
    const client = clusterClient(readHandle(handleFile));
    const { kubectl, kubectlOk } = client;

    // The controllers that make a namespace usable: the default ServiceAccount and the root CA ConfigMap.
    await waitUntil(
      'the default ServiceAccount and kube-root-ca.crt',
      () =>
        kubectl(['get', 'serviceaccount/default', 'configmap/kube-root-ca.crt', '-n', 'default']).status ===
        0,
      control,
    );

    const kwokNodeNames: string[] = [];
    let kwok: Supervised | undefined;
    if ((options.kwokNodes ?? 0) > 0) {
      const stages = join(dir, 'kwok-stages.yaml');
      writeFileSync(stages, kwokStagesYaml());
      kwok = processes.start('kwok', binaries.kwok, [
        `--kubeconfig=${kubeconfigFor('kwok', 'kwok-controller', ['system:masters'])}`,
        `--config=${stages}`,
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        '--cidr=10.80.0.0/12',
        '--node-ip=10.79.0.1',
        `--node-port=${kwokPort}`,
        '--node-lease-duration-seconds=40',
        `--server-address=127.0.0.1:${kwokPort}`,
      ]);
    }

    const cluster: Cluster = {
      ...client,
      binaries,
      handleFile,
      kwokNodeNames,
      addKwokNodes: (count) => {
        if (!kwok) throw new Error('kwok is not running: start the cluster with kwokNodes > 0');
        const nodes: unknown[] = [];
        for (let i = 0; i < count; i++) {
          const name = `kwok-node-${kwokNodeNames.length}`;
          kwokNodeNames.push(name);
          nodes.push({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: {
              name,
              annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
              labels: {
                'kubernetes.io/hostname': name,
                'kubernetes.io/os': 'linux',
                'kubernetes.io/arch': 'amd64',
                type: 'kwok',
              },
            },
          });
        }
        kubectlOk(['apply', '-f', '-'], {
          input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes }),
        });
      },
      component: (name) => [...control, ...(kwok ? [kwok] : [])].find((p) => p.name === name),
      stop: async () => {
        await node?.stop();
        network?.remove();
        await processes.stopAll();
        if (!process.env.TOOLYARD_KEEP_CLUSTER) rmSync(dir, { recursive: true, force: true });
      },
    };

    if (network && options.node) {
      node = await startNode({
        client,
        binaries,
        processes,
        network,
        dir: join(dir, 'node'),
        apiserverPort,
        clusterCidr: CLUSTER_CIDR,
        publicNames: options.node.publicNames,
        images: options.node.images,
        log,
      });
      (cluster as { realNode?: TestNode }).realNode = node;
      writeHandle({
        ...readHandle(handleFile),
        node: {
          name: node.name,
          address: node.address,
          internetNamespace: node.internetNamespace,
          probeImage: node.probeImage,
          probeGatewayImage: node.probeGatewayImage,
        },
      });
    }
    if (kwok) {
      kubectlOk(['apply', '-f', '-'], { input: testStorageClasses() });
      cluster.addKwokNodes(options.kwokNodes ?? 0);
      await waitUntil(`${options.kwokNodes} kwok nodes Ready`, () => {
        const out = kubectl([
          'get',
          'nodes',
          '-l',
          'type=kwok',
          '-o',
          'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
        ]);
        return (
          out.status === 0 &&
          out.stdout.split('\n').filter((s) => s === 'True').length >= (options.kwokNodes ?? 0)
        );
      }, [...control, kwok]);
    }
    log(`cluster ready at ${server} in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})`);
    return cluster;
  } catch (error) {
    await node?.stop().catch(() => {});
    network?.remove();
    await processes.stopAll(1000);
    if (!process.env.TOOLYARD_KEEP_CLUSTER) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `/healthz` over TLS without verifying the peer: only for the components' self-signed endpoints on 127.0.0.1. */
function healthzStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `https://127.0.0.1:${port}/healthz`,
      { rejectUnauthorized: false, timeout: 3000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}
