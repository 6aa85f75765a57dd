/**
 * Validates rendered objects against the Kubernetes OpenAPI schemas (via `kubernetes-models`), for every kind
 * toolyard emits. An unknown apiVersion/kind is itself an error: a new kind must be added here on purpose.
 *
 * The OpenAPI schemas check types, enums and required fields but allow unknown fields, so this also rejects
 * objects without a name or namespace (every kind toolyard emits is namespaced).
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ServiceMonitorModel } from './service-monitor-schema.ts';

interface Validatable {
  validate(): void;
}
type ModelFactory = (data: unknown) => Validatable;

const factory =
  <T>(Model: new (data: never) => T & Validatable): ModelFactory =>
  (data) =>
    new Model(data as never);

/** apiVersion/kind → model, for every kind toolyard renders (Pods: a chart's `helm test` pod). */
export const KUBE_MODELS: Readonly<Record<string, ModelFactory>> = {
  'v1/ServiceAccount': factory(ServiceAccount),
  'v1/ConfigMap': factory(ConfigMap),
  'v1/Service': factory(Service),
  'v1/Pod': factory(Pod),
  'v1/PersistentVolumeClaim': factory(PersistentVolumeClaim),
  'apps/v1/Deployment': factory(Deployment),
  'apps/v1/StatefulSet': factory(StatefulSet),
  'rbac.authorization.k8s.io/v1/Role': factory(Role),
  'rbac.authorization.k8s.io/v1/RoleBinding': factory(RoleBinding),
  'networking.k8s.io/v1/NetworkPolicy': factory(NetworkPolicy),
  // spec.observability.metrics.scrape: serviceMonitor (prometheus-operator's CRD).
  'monitoring.coreos.com/v1/ServiceMonitor': factory(ServiceMonitorModel),
};

interface AjvError {
  readonly instancePath?: string;
  readonly message?: string;
  readonly params?: Record<string, unknown>;
}

/** Every schema problem of `obj` as `<kind>/<name>: <path>: <message>`; empty when valid. */
export function validateKubeObject(obj: unknown): string[] {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return ['object: not a JSON object'];
  const record = obj as Record<string, unknown>;
  const { apiVersion, kind } = record;
  const metadata = record['metadata'] as Record<string, unknown> | undefined;
  const label = `${String(kind)}/${String(metadata?.['name'] ?? '<unnamed>')}`;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string')
    return [`${label}: apiVersion and kind must be strings`];
  const model = KUBE_MODELS[`${apiVersion}/${kind}`];
  if (!model) return [`${label}: unknown apiVersion/kind "${apiVersion}/${kind}"`];
  const errors: string[] = [];
  if (typeof metadata?.['name'] !== 'string' || metadata['name'] === '')
    errors.push(`${label}: /metadata/name: required`);
  if (typeof metadata?.['namespace'] !== 'string' || metadata['namespace'] === '')
    errors.push(`${label}: /metadata/namespace: required (every kind toolyard emits is namespaced)`);
  try {
    model(obj).validate();
  } catch (error) {
    const details = (error as { errors?: readonly AjvError[] }).errors;
    if (!Array.isArray(details)) errors.push(`${label}: ${(error as Error).message}`);
    else
      for (const detail of details) {
        const params =
          detail.params && Object.keys(detail.params).length > 0 ? ` ${JSON.stringify(detail.params)}` : '';
        errors.push(`${label}: ${detail.instancePath || '/'}: ${detail.message ?? 'invalid'}${params}`);
      }
  }
  return errors;
}
