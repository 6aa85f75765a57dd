/**
 * The configuration files of the real test node: containerd (CRI with the node's own pause image, cgroupfs, no
 * negative OOM scores — the VM gives root no CAP_SYS_RESOURCE, and runc's init dies setting one), kubelet
 * (x509 + webhook auth, cgroupfs under a cgroup root of its own, cgroup v1 allowed, registers tainted so only
 * pods meant for it land there), the CNI bridge on the node's podCIDR, kube-proxy (iptables), CoreDNS.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NODE_NAME = 'toolyard-node';
/** Pods for the real node tolerate this taint and select this label; nothing else lands there. */
export const NODE_TAINT = { key: 'toolyard.dev/real-node', value: 'true', effect: 'NoSchedule' } as const;
export const NODE_LABEL = { key: 'toolyard.dev/real-node', value: 'true' } as const;
export const CLUSTER_DNS_IP = '10.96.0.10';

export function writeContainerdConfig(dir: string, pauseImage: string): string {
  const file = join(dir, 'containerd.toml');
  writeFileSync(
    file,
    `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
[grpc]
  address = "${dir}/containerd/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${pauseImage}"
  restrict_oom_score_adj = true
  enable_unprivileged_ports = false
  enable_unprivileged_icmp = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${dir}/cni"
`,
  );
  return file;
}

export interface KubeletFiles {
  readonly caCert: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly socket: string;
  readonly cgroupRoot: string;
  readonly nodeAddress: string;
}

export function writeKubeletConfig(dir: string, files: KubeletFiles): string {
  const file = join(dir, 'kubelet.yaml');
  const resolv = join(dir, 'resolv.conf');
  writeFileSync(resolv, 'nameserver 127.0.0.1\n');
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: files.caCert },
    },
    authorization: { mode: 'Webhook' },
    tlsCertFile: files.servingCert,
    tlsPrivateKeyFile: files.servingKey,
    address: files.nodeAddress,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: files.cgroupRoot,
    // This VM mounts cgroup v1 (hybrid); Kubernetes 1.35 still runs there when told to (docs/cluster.md).
    failCgroupV1: false,
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${files.socket}`,
    clusterDomain: 'cluster.local',
    clusterDNS: [CLUSTER_DNS_IP],
    resolvConf: resolv,
    evictionHard: { 'memory.available': '50Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
    registerWithTaints: [NODE_TAINT],
    nodeStatusUpdateFrequency: '5s',
    syncFrequency: '10s',
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

export function writeCniConfig(dir: string, podCidr: string): void {
  const config = {
    cniVersion: '1.0.0',
    name: 'toolyard-test',
    plugins: [
      {
        type: 'bridge',
        bridge: 'tyn0',
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          dataDir: join(dir, 'ipam'),
          ranges: [[{ subnet: podCidr }]],
          routes: [{ dst: '0.0.0.0/0' }],
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  writeFileSync(join(dir, 'cni', '10-toolyard-test.conflist'), `${JSON.stringify(config, null, 2)}\n`);
}

export function writeKubeProxyConfig(
  dir: string,
  kubeconfig: string,
  nodeAddress: string,
  clusterCidr: string,
): string {
  const file = join(dir, 'kube-proxy.yaml');
  const config = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig },
    mode: 'iptables',
    clusterCIDR: clusterCidr,
    hostnameOverride: NODE_NAME,
    bindAddress: nodeAddress,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    nodePortAddresses: ['primary'],
    // No conntrack sysctls: the VM does not let root change them, and the defaults serve a test.
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    oomScoreAdj: 0,
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** CoreDNS: the cluster's names, and the fake public hosts' names (`hosts`). */
export function corefile(publicHosts: Readonly<Record<string, string>>): string {
  const hosts = Object.entries(publicHosts)
    .map(([name, address]) => `    ${address} ${name}`)
    .join('\n');
  return `.:53 {
  errors
  ready :8181
  hosts {
${hosts}
    fallthrough
  }
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
  }
  cache 5
}
`;
}
