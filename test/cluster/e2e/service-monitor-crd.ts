/**
 * A ServiceMonitor CRD for the test cluster, as an operator's cluster running prometheus-operator has one: the
 * group, names and scope of prometheus-operator's, with a structural schema of our own covering the fields
 * toolyard renders (selector; endpoints' port, path, interval) and keeping the rest. Applied only when an output
 * has a ServiceMonitor (spec.observability.metrics.scrape: serviceMonitor).
 */
import type { ClusterClient } from '../client.ts';

const DURATION =
  '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$';

export const SERVICE_MONITOR_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'servicemonitors.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: {
      kind: 'ServiceMonitor',
      listKind: 'ServiceMonitorList',
      plural: 'servicemonitors',
      singular: 'servicemonitor',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              spec: {
                type: 'object',
                required: ['selector', 'endpoints'],
                'x-kubernetes-preserve-unknown-fields': true,
                properties: {
                  selector: {
                    type: 'object',
                    properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
                  },
                  endpoints: {
                    type: 'array',
                    items: {
                      type: 'object',
                      'x-kubernetes-preserve-unknown-fields': true,
                      properties: {
                        port: { type: 'string', maxLength: 15 },
                        path: { type: 'string', pattern: '^/' },
                        interval: { type: 'string', pattern: DURATION },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** Installs the CRD (idempotent) and waits until the API server serves the kind. */
export function ensureServiceMonitorCrd(cluster: ClusterClient): void {
  cluster.kubectlOk(['apply', '--server-side', '--field-manager=toolyard-tests', '-f', '-'], {
    input: JSON.stringify(SERVICE_MONITOR_CRD),
  });
  cluster.kubectlOk([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    `crd/${SERVICE_MONITOR_CRD.metadata.name}`,
  ]);
}
