/**
 * The values of one component's pods — the agent, or one gateway (and, with `placement: pod`, one toolchain):
 * where they live in values.yaml and the nodes collected while its objects are walked. Components with one
 * container per pod (gateways) keep the container's values next to the pod's; the agent pod has a
 * `containers` map. The order of keys in values.yaml is fixed here, whatever order the walk met them in.
 */
import { group, type ValueNode } from './values-model.ts';

export interface ComponentValues {
  /** Path in values.yaml: ["agent"] or ["gateways", "<key>"]. */
  readonly path: readonly string[];
  readonly description: string;
  /** True when the pod's single container has its values next to the pod's (gateways). */
  readonly flatContainer: boolean;
  /** Workload-level values (replicas, persistence). */
  readonly workload: ValueNode[];
  readonly pod: ValueNode[];
  readonly containers: ValueNode[];
  readonly initContainers: ValueNode[];
  /** The single container's values of a flat component. */
  readonly container: ValueNode[];
  serviceAccount?: ValueNode;
}

export function componentValues(
  path: readonly string[],
  description: string,
  flatContainer: boolean,
): ComponentValues {
  return {
    path,
    description,
    flatContainer,
    workload: [],
    pod: [],
    containers: [],
    initContainers: [],
    container: [],
  };
}

const ORDER = [
  'replicas',
  'persistence',
  'serviceAccount',
  'podSecurityContext',
  'extraVolumes',
  'nodeSelector',
  'tolerations',
  'affinity',
  'topologySpreadConstraints',
  'priorityClassName',
  'podLabels',
  'podAnnotations',
  'image',
  'resources',
  'securityContext',
  'extraEnv',
  'extraEnvFrom',
  'extraVolumeMounts',
];

function rank(node: ValueNode): number {
  const index = ORDER.indexOf(node.key);
  return index < 0 ? ORDER.length : index;
}

/** The value nodes of a component, in values.yaml order. */
export function componentNodes(values: ComponentValues): ValueNode[] {
  const nodes: ValueNode[] = [...values.workload];
  if (values.serviceAccount) nodes.push(values.serviceAccount);
  nodes.push(...values.pod, ...values.container);
  nodes.sort((a, b) => rank(a) - rank(b));
  if (values.containers.length > 0)
    nodes.push(group('containers', 'Containers of the pod, by name.', values.containers));
  if (values.initContainers.length > 0) {
    nodes.push(group('initContainers', 'Init containers of the pod, by name.', values.initContainers));
  }
  return nodes;
}
