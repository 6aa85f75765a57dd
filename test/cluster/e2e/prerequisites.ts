/**
 * What rendered objects take as given and a cluster must already have: the PriorityClasses and the ServiceAccounts
 * (an "existing ServiceAccount" chart value) their pods name, and the StorageClasses their claims name, that are
 * not among them. Derived from the objects, so a scenario that names a new one needs no change here; created before
 * an apply, as an operator's cluster would have them.
 */
import type { ClusterClient } from '../client.ts';
import { testStorageClasses } from '../kwok-stages.ts';
import { ensureServiceMonitorCrd } from './service-monitor-crd.ts';
import type { KubeObjectRef } from './support.ts';

interface PodTemplateHolder extends KubeObjectRef {
  readonly spec?: {
    readonly template?: {
      readonly spec?: {
        priorityClassName?: string;
        serviceAccountName?: string;
        nodeSelector?: Record<string, string>;
      };
    };
  };
}

export function prerequisitesOf(objects: readonly KubeObjectRef[]): unknown[] {
  const present = new Set(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`));
  const needed = new Map<string, unknown>();
  for (const object of objects as readonly PodTemplateHolder[]) {
    const pod = object.spec?.template?.spec;
    if (!pod) continue;
    const ns = object.metadata.namespace ?? 'default';
    if (pod.priorityClassName && !present.has(`PriorityClass//${pod.priorityClassName}`))
      needed.set(`PriorityClass//${pod.priorityClassName}`, {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: pod.priorityClassName },
        value: 1000,
        globalDefault: false,
      });
    const sa = pod.serviceAccountName;
    if (sa && !present.has(`ServiceAccount/${ns}/${sa}`))
      needed.set(`ServiceAccount/${ns}/${sa}`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: sa, namespace: ns },
        automountServiceAccountToken: false,
      });
  }
  const classes = new Set<string>();
  for (const object of objects as readonly ClaimHolder[]) {
    const claims = [
      ...(object.kind === 'PersistentVolumeClaim' ? [object.spec as { storageClassName?: string }] : []),
      ...(object.spec?.volumeClaimTemplates ?? []).map((t) => t.spec ?? {}),
    ];
    for (const claim of claims) if (claim?.storageClassName) classes.add(claim.storageClassName);
  }
  const storageClasses = (JSON.parse(testStorageClasses([...classes].sort())) as { items: unknown[] }).items;
  return [...needed.values(), ...storageClasses];
}

interface ClaimHolder extends KubeObjectRef {
  readonly spec?: { readonly volumeClaimTemplates?: readonly { spec?: { storageClassName?: string } }[] };
}

/** The node labels the pods' `nodeSelector`s ask for (a node pool an operator's cluster would have). */
export function nodeLabelsOf(objects: readonly KubeObjectRef[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const object of objects as readonly PodTemplateHolder[])
    Object.assign(labels, object.spec?.template?.spec?.nodeSelector ?? {});
  return labels;
}

export function applyPrerequisites(cluster: ClusterClient, objects: readonly KubeObjectRef[]): number {
  const labels = Object.entries(nodeLabelsOf(objects)).map(([key, value]) => `${key}=${value}`);
  if (labels.length > 0) cluster.kubectlOk(['label', 'nodes', '-l', 'type=kwok', '--overwrite', ...labels]);
  if (objects.some((o) => o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'ServiceMonitor'))
    ensureServiceMonitorCrd(cluster);
  const items = prerequisitesOf(objects);
  if (items.length > 0)
    cluster.kubectlOk(['apply', '--server-side', '--field-manager=toolyard-tests', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    });
  return items.length;
}
