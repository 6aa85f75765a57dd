/**
 * Least-privilege Role presets. Exact, enumerated rules: no wildcards, never Secrets, RBAC objects,
 * `pods/exec|attach|portforward`, `serviceaccounts/token`, or the escalate/bind/impersonate verbs.
 */
import type { RbacPresetName } from './plan.ts';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const READ = ['get', 'list', 'watch'] as const;

const READ_ONLY_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [''],
    resources: [
      'configmaps',
      'endpoints',
      'events',
      'limitranges',
      'persistentvolumeclaims',
      'pods',
      'pods/log',
      'replicationcontrollers',
      'resourcequotas',
      'serviceaccounts',
      'services',
    ],
    verbs: READ,
  },
  {
    apiGroups: ['apps'],
    resources: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
    verbs: READ,
  },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: READ },
  { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: READ },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: READ },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: READ },
];

/** Bounded remediation: restart, scale, roll out and tune config; no new workloads, no credentials. */
const NAMESPACE_WRITE_EXTRA_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['delete'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'update'] },
  {
    apiGroups: ['apps'],
    resources: ['daemonsets', 'deployments', 'statefulsets'],
    verbs: ['patch', 'update'],
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments/scale', 'statefulsets/scale'],
    verbs: ['get', 'patch', 'update'],
  },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['patch', 'update'] },
  { apiGroups: ['batch'], resources: ['cronjobs'], verbs: ['patch', 'update'] },
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['delete'] },
];

export const RBAC_PRESETS: Readonly<Record<RbacPresetName, readonly PolicyRule[]>> = {
  'read-only': READ_ONLY_RULES,
  'namespace-write': [...READ_ONLY_RULES, ...NAMESPACE_WRITE_EXTRA_RULES],
};

export function rulesFor(preset: RbacPresetName): readonly PolicyRule[] {
  return RBAC_PRESETS[preset];
}

/** What a preset never grants, checked by the invariant tests over every generated Role. */
export const FORBIDDEN_RESOURCES = [
  'secrets',
  'pods/exec',
  'pods/attach',
  'pods/portforward',
  'serviceaccounts/token',
  'roles',
  'rolebindings',
  'clusterroles',
  'clusterrolebindings',
] as const;
export const FORBIDDEN_VERBS = ['escalate', 'bind', 'impersonate', '*'] as const;
