/**
 * Every reference between rendered objects resolves: Service and NetworkPolicy selectors select pods,
 * RoleBindings name existing Roles and ServiceAccounts, pods name their ServiceAccount and ConfigMaps, a
 * StatefulSet its Service, and every `<service>.<namespace>.svc` URL (client configs, the test pod's
 * targets) is a Service. Existing ServiceAccounts the values name (`create: false`) count as existing.
 */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../constructs/src/render.ts';
import { identity } from './support.ts';

type Json = Record<string, unknown>;

function podTemplate(object: KubeObject): { metadata: Json; spec: Json } | undefined {
  if (object.kind === 'Pod') return { metadata: object.metadata, spec: object['spec'] as Json };
  const template = (object['spec'] as Json | undefined)?.['template'] as Json | undefined;
  return template ? { metadata: template['metadata'] as Json, spec: template['spec'] as Json } : undefined;
}

/** The workload (or Pod) whose pods carry every label of `selector`, if any. */
export function podsSelectedBy(objects: readonly KubeObject[], selector: Json): KubeObject | undefined {
  return objects.find((o) => {
    const labels = podTemplate(o)?.metadata['labels'] as Json | undefined;
    return labels !== undefined && Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
}

export function assertReferencesResolve(
  objects: readonly KubeObject[],
  existingServiceAccounts: readonly string[] = [],
): void {
  const names = new Set(objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
  const has = (kind: string, namespace: string, name: string): boolean =>
    names.has(`${kind}/${namespace}/${name}`) ||
    (kind === 'ServiceAccount' && existingServiceAccounts.includes(name));
  for (const o of objects) {
    const id = identity(o);
    const ns = String(o.metadata.namespace);
    const spec = o['spec'] as Json | undefined;
    if (o.kind === 'Service') {
      assert.ok(podsSelectedBy(objects, spec!['selector'] as Json), `${id}: selector selects no pods`);
    }
    if (o.kind === 'RoleBinding') {
      assert.ok(has('Role', ns, String((o['roleRef'] as Json)['name'])), `${id}: roleRef`);
      for (const subject of o['subjects'] as Json[]) {
        assert.ok(
          has('ServiceAccount', String(subject['namespace']), String(subject['name'])),
          `${id}: subject`,
        );
      }
    }
    const pod = podTemplate(o);
    if (pod && o.kind !== 'Pod') {
      assert.ok(
        has('ServiceAccount', ns, String(pod.spec['serviceAccountName'])),
        `${id}: serviceAccountName`,
      );
      const selector = (spec!['selector'] as Json)['matchLabels'] as Json;
      for (const [k, v] of Object.entries(selector))
        assert.equal((pod.metadata['labels'] as Json)[k], v, `${id}: ${k}`);
    }
    if (pod) {
      for (const volume of (pod.spec['volumes'] as Json[]) ?? []) {
        const cm = volume['configMap'] as Json | undefined;
        if (cm && cm['name'] !== 'kube-root-ca.crt')
          assert.ok(has('ConfigMap', ns, String(cm['name'])), `${id}: configMap volume ${cm['name']}`);
      }
    }
    if (o.kind === 'StatefulSet')
      assert.ok(has('Service', ns, String(spec!['serviceName'])), `${id}: serviceName`);
    const text = JSON.stringify(o['data'] ?? (o.kind === 'Pod' ? o['spec'] : {}));
    // A telemetry route's upstream is the cluster's own collector (spec.observability), not an object of the release.
    const collectors = new Set(
      [
        ...text.matchAll(
          /\\"kind\\": \\"telemetry\\",\\n *\\"name\\": \\"[a-z0-9-]+\\",\\n *\\"upstream\\": \\"https?:\/\/([a-z0-9.-]+)/g,
        ),
      ].map((m) => m[1]),
    );
    for (const match of text.matchAll(/(?:https?|tcp):\/\/([a-z0-9-]+)\.([a-z0-9-]+)\.svc[:/]/g)) {
      if (collectors.has(`${match[1]}.${match[2]}.svc`)) continue;
      assert.ok(has('Service', match[2]!, match[1]!), `${id}: URL host ${match[0]} is no Service`);
    }
    if (o.kind === 'NetworkPolicy') {
      const selectors: Json[] = [];
      const collect = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (typeof value === 'object' && value !== null) {
          for (const [k, v] of Object.entries(value)) {
            if (k === 'podSelector' && (v as Json)['matchLabels'])
              selectors.push((v as Json)['matchLabels'] as Json);
            else if (k !== 'namespaceSelector') collect(v);
          }
        }
      };
      collect(spec);
      for (const selector of selectors) {
        if (!('app.kubernetes.io/instance' in selector)) continue;
        assert.ok(
          podsSelectedBy(objects, selector),
          `${id}: podSelector ${JSON.stringify(selector)} selects no pods`,
        );
      }
    }
  }
}
