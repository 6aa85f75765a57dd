import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import type { Labels } from './names.ts';
import type { RbacPresetName } from './plan.ts';
import { rulesFor } from './rbac-presets.ts';

export interface KubernetesAccessProps {
  /** Name of the Role and RoleBinding in each namespace. */
  readonly name: string;
  /** The ServiceAccount granted the preset. */
  readonly serviceAccount: { readonly name: string; readonly namespace: string };
  /** The preset Role. */
  readonly preset: RbacPresetName;
  /** Namespaces to grant it in (one Role + RoleBinding each). */
  readonly namespaces: readonly string[];
  /** Labels of the generated objects. */
  readonly labels: Labels;
  /** Annotations of the generated objects. @default none */
  readonly annotations?: Labels;
}

/** A preset Role and its RoleBinding to one ServiceAccount, per namespace. Namespaced only, never cluster-wide. */
export class KubernetesAccess extends Construct {
  readonly roles: readonly k8s.KubeRole[];
  readonly roleBindings: readonly k8s.KubeRoleBinding[];

  constructor(scope: Construct, id: string, props: KubernetesAccessProps) {
    super(scope, id);
    const rules = rulesFor(props.preset).map((rule) => ({
      apiGroups: [...rule.apiGroups],
      resources: [...rule.resources],
      verbs: [...rule.verbs],
    }));
    const annotations =
      props.annotations && Object.keys(props.annotations).length > 0
        ? { annotations: props.annotations }
        : {};
    const roles: k8s.KubeRole[] = [];
    const bindings: k8s.KubeRoleBinding[] = [];
    for (const namespace of props.namespaces) {
      const metadata = { name: props.name, namespace, labels: { ...props.labels }, ...annotations };
      roles.push(new k8s.KubeRole(this, `role-${namespace}`, { metadata, rules }));
      bindings.push(
        new k8s.KubeRoleBinding(this, `binding-${namespace}`, {
          metadata,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: props.name },
          subjects: [
            {
              kind: 'ServiceAccount',
              name: props.serviceAccount.name,
              namespace: props.serviceAccount.namespace,
            },
          ],
        }),
      );
    }
    this.roles = roles;
    this.roleBindings = bindings;
  }
}
