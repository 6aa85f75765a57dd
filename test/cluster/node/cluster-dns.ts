/**
 * Cluster DNS on the real test node: CoreDNS (built from its module, in an image of its own) as a pod in
 * kube-system labelled `k8s-app: kube-dns` — the pods every rendered NetworkPolicy lets DNS through to — behind the
 * `kube-dns` Service at the kubelet's clusterDNS address.
 */
import { CLUSTER_DNS_IP, corefile, NODE_LABEL, NODE_TAINT } from './node-config.ts';

export function clusterDnsObjects(image: string, publicHosts: Readonly<Record<string, string>>): unknown[] {
  const ns = 'kube-system';
  const labels = { 'k8s-app': 'kube-dns' };
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'toolyard-test:coredns' },
      rules: [
        { apiGroups: [''], resources: ['services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'toolyard-test:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'toolyard-test:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: ns }],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'coredns', namespace: ns },
      data: { Corefile: corefile(publicHosts) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'coredns',
            dnsPolicy: 'Default',
            nodeSelector: { [NODE_LABEL.key]: NODE_LABEL.value },
            tolerations: [{ ...NODE_TAINT, operator: 'Equal' }],
            containers: [
              {
                name: 'coredns',
                image,
                imagePullPolicy: 'Never',
                args: ['-conf', '/etc/coredns/Corefile'],
                ports: [
                  { name: 'dns', containerPort: 53, protocol: 'UDP' },
                  { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
                ],
                readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 2 },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
                  readOnlyRootFilesystem: true,
                },
                volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: ns, labels },
      spec: {
        clusterIP: CLUSTER_DNS_IP,
        selector: labels,
        ports: [
          { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, targetPort: 53, protocol: 'TCP' },
        ],
      },
    },
  ];
}
