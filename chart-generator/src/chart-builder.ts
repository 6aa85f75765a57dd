/**
 * `ChartBuilder`: turns each rendered object into template text, helmify-style — names from the release,
 * the namespace from `.Release.Namespace`, chosen fields lifted into values — and collects the values tree.
 */
import { CONFIG_HASH_ANNOTATION as CONFIG_HASH } from '../../constructs/src/agent-workload.ts';
import { LABEL, MANAGED_BY, PART_OF } from '../../constructs/src/names.ts';
import type {
  AgentPlan,
  PlannedBackend,
  PlannedDeployedGateway,
  PlannedToolchain,
} from '../../constructs/src/plan.ts';
import type { KubeObject, RenderResult } from '../../constructs/src/render.ts';
import { parseImage } from './image-reference.ts';
import { type ExprNode, emitMap, emitSeq, entry, expr, goString, templatedString } from './template-yaml.ts';
import {
  AFFINITY,
  ENV_LIST,
  group,
  IMAGE_PULL_POLICY,
  leaf,
  PULL_SECRETS,
  RESOURCES,
  STRING_MAP,
  TOLERATIONS,
  TOPOLOGY_SPREAD,
  type ValueNode,
} from './values-model.ts';
import { dictLiteral, pad, sameMap, valuesKey, valuesRef, without } from './values-refs.ts';

type Path = readonly (string | number)[];
type Json = Readonly<Record<string, unknown>>;

const LABEL_NAMED_KINDS = new Set(['Service', 'StatefulSet']);

const STD_LABELS = new Set<string>([
  LABEL.name,
  LABEL.instance,
  LABEL.component,
  LABEL.partOf,
  LABEL.managedBy,
  LABEL.agent,
]);

/** Values and descriptions of one component's pods (the agent, or one gateway). */
interface ComponentValues {
  readonly path: readonly string[];
  readonly description: string;
  readonly pod: ValueNode[];
  readonly containers: ValueNode[];
  readonly initContainers: ValueNode[];
  readonly extra: ValueNode[];
  serviceAccount?: ValueNode;
}

export class ChartBuilder {
  readonly plan: AgentPlan;
  readonly objects: readonly KubeObject[];
  readonly chart: string;
  readonly agent: string;
  readonly namespace: string;
  readonly components = new Map<string, ComponentValues>();
  readonly objectNames = new Set<string>();
  readonly nameMax = new Map<string, number>();
  readonly hostPattern: RegExp | undefined;

  constructor(rendered: RenderResult) {
    this.plan = rendered.plan;
    this.objects = rendered.objects;
    this.agent = rendered.plan.name;
    this.chart = rendered.plan.name;
    this.namespace = rendered.plan.namespace;
    for (const o of this.objects) {
      this.objectNames.add(o.metadata.name);
      // Names shared with a kind whose name must be a DNS label (a Service, a StatefulSet's pods) stay within
      // 63 characters; the others (ConfigMaps, Roles, …) are DNS subdomains of up to 253, as in toolyard synth.
      if (LABEL_NAMED_KINDS.has(o.kind) || !this.nameMax.has(o.metadata.name)) {
        this.nameMax.set(o.metadata.name, LABEL_NAMED_KINDS.has(o.kind) ? 63 : 253);
      }
    }
    const services = this.objects.filter((o) => o.kind === 'Service').map((o) => o.metadata.name);
    services.sort((a, b) => b.length - a.length);
    const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.hostPattern =
      services.length === 0
        ? undefined
        : new RegExp(
            `(?<![a-z0-9-])(${services.map(esc).join('|')})\\.${esc(this.namespace)}\\.svc(?![a-z0-9-])`,
            'g',
          );
  }

  helper(name: string): string {
    return `"${this.chart}.${name}"`;
  }

  nameExpr(name: string): ExprNode | undefined {
    if (name === this.agent) return expr(`include ${this.helper('fullname')} $`);
    if (name.startsWith(`${this.agent}-`)) {
      const max = this.nameMax.get(name) ?? 63;
      return expr(
        `include ${this.helper('componentName')} (list $ ${goString(name.slice(this.agent.length + 1))} ${max})`,
      );
    }
    return undefined;
  }

  namespaceExpr(): ExprNode {
    return expr('$.Release.Namespace | quote');
  }

  /** Literal text with every `<service>.<namespace>.svc` host rewritten to the release's names. */
  rewriteHosts(text: string): unknown {
    if (!this.hostPattern || !text.includes('.svc')) return text;
    const parts: (string | ExprNode)[] = [];
    let last = 0;
    for (const match of text.matchAll(this.hostPattern)) {
      const service = match[1]!;
      const nameExpr = this.nameExpr(service);
      if (!nameExpr) continue;
      parts.push(
        text.slice(last, match.index),
        expr(nameExpr.text),
        '.',
        expr('$.Release.Namespace'),
        '.svc',
      );
      last = match.index + match[0].length;
    }
    parts.push(text.slice(last));
    return templatedString(parts);
  }

  componentOf(object: KubeObject): string {
    const labels = (object.metadata['labels'] ?? {}) as Record<string, string>;
    return labels[LABEL.component] ?? 'agent';
  }

  selectorOf(component: string): Record<string, string> {
    return { [LABEL.component]: component, [LABEL.instance]: this.agent, [LABEL.name]: this.agent };
  }

  componentValues(component: string): ComponentValues {
    let values = this.components.get(component);
    if (values) return values;
    if (component === 'agent') {
      const kind = this.objects.find((o) => o.kind === 'StatefulSet') ? 'StatefulSet' : 'Deployment';
      values = {
        path: ['agent'],
        description: `The agent pod (${kind} ${this.agent}): backends ${this.plan.backends.map((b) => b.name).join(', ')}${
          this.plan.toolchains.length > 0
            ? `; toolchain sidecars ${this.plan.toolchains.map((t) => t.name).join(', ')}`
            : ''
        }.`,
        pod: [],
        containers: [],
        initContainers: [],
        extra: [],
      };
    } else {
      const gatewayName = component.replace(/^gateway-/, '');
      const gateway = this.plan.gateways.find((g) => g.name === gatewayName) as
        | PlannedDeployedGateway
        | undefined;
      const authority = gateway?.kubernetes
        ? `, Kubernetes authority ${gateway.kubernetes.preset} in ${gateway.kubernetes.namespaces.join(', ')}`
        : '';
      values = {
        path: ['gateways', valuesKey(gatewayName)],
        description: `MCP gateway "${gatewayName}" (its own Deployment, Service and ServiceAccount${authority}).`,
        pod: [],
        containers: [],
        initContainers: [],
        extra: [],
      };
    }
    this.components.set(component, values);
    return values;
  }

  // ---------------------------------------------------------------- metadata
  labelsLine(
    object: KubeObject,
    labels: Readonly<Record<string, string>>,
    component: string,
    indent: number,
    opts: { stable?: boolean; extraExpr?: string } = {},
  ): string[] {
    const expected: Record<string, string> = {
      ...this.selectorOf(component),
      [LABEL.partOf]: PART_OF,
      [LABEL.managedBy]: MANAGED_BY,
      [LABEL.agent]: this.agent,
    };
    for (const [k, v] of Object.entries(expected)) {
      if (labels[k] !== v) {
        throw new Error(`${object.kind}/${object.metadata.name}: label ${k} is ${labels[k]}, expected ${v}`);
      }
    }
    const rest: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) if (!STD_LABELS.has(k)) rest[k] = v;
    const extra = without(rest, this.plan.labels);
    for (const k of Object.keys(this.plan.labels)) {
      if (!(k in rest) && !STD_LABELS.has(k))
        throw new Error(`${object.kind}/${object.metadata.name}: no label ${k}`);
    }
    let extraExpr = Object.keys(extra).length > 0 ? dictLiteral(extra) : undefined;
    if (opts.extraExpr) extraExpr = extraExpr ? `(merge ${extraExpr} ${opts.extraExpr})` : opts.extraExpr;
    const args = [`"context" $`, `"component" ${goString(component)}`];
    if (extraExpr) args.push(`"extra" ${extraExpr}`);
    if (opts.stable) args.push('"stable" true');
    return [
      `${pad(indent)}labels:`,
      `${pad(indent + 2)}{{- include ${this.helper('labels')} (dict ${args.join(' ')}) | nindent ${indent + 2} }}`,
    ];
  }

  annotationsLines(extraExpr: string | undefined, indent: number): string[] {
    const args = extraExpr ? `(dict "context" $ "extra" ${extraExpr})` : '(dict "context" $)';
    return [
      `${pad(indent)}{{- with include ${this.helper('annotations')} ${args} }}`,
      `${pad(indent)}annotations:`,
      `${pad(indent + 2)}{{- . | nindent ${indent + 2} }}`,
      `${pad(indent)}{{- end }}`,
    ];
  }

  metadataEntry(
    object: KubeObject,
    meta: Json,
    component: string,
    role: 'object' | 'pod' | 'claim',
    path: Path,
  ) {
    return entry((indent, key) => {
      const lines = [`${pad(indent)}${key}:`];
      const annotations = (meta['annotations'] ?? {}) as Record<string, string>;
      const labels = (meta['labels'] ?? {}) as Record<string, string>;
      let annotationsExpr: string | undefined;
      let labelsExpr: string | undefined;
      const values = this.componentValues(component);
      if (role === 'pod') {
        const literal: Record<string, string> = {};
        if (annotations[CONFIG_HASH] !== undefined) literal[CONFIG_HASH] = annotations[CONFIG_HASH];
        const lifted = without(without(annotations, this.plan.annotations), literal);
        values.pod.push(
          leaf('podLabels', 'Extra labels of the pods (never part of selectors).', STRING_MAP, {}),
          leaf('podAnnotations', 'Extra annotations of the pods.', STRING_MAP, lifted),
        );
        const podAnnotations = valuesRef([...values.path, 'podAnnotations']);
        annotationsExpr =
          Object.keys(literal).length > 0
            ? `(merge ${dictLiteral(literal)} ${podAnnotations})`
            : podAnnotations;
        labelsExpr = valuesRef([...values.path, 'podLabels']);
      } else if (role === 'object' && object.kind === 'ServiceAccount') {
        values.serviceAccount = group('serviceAccount', 'The ServiceAccount of these pods.', [
          leaf(
            'annotations',
            'Annotations of the ServiceAccount, e.g. for cloud workload identity (eks.amazonaws.com/role-arn, iam.gke.io/gcp-service-account, azure.workload.identity/client-id).',
            STRING_MAP,
            without(annotations, this.plan.annotations),
          ),
        ]);
        annotationsExpr = valuesRef([...values.path, 'serviceAccount', 'annotations']);
      } else {
        const extra = without(annotations, this.plan.annotations);
        if (Object.keys(extra).length > 0) annotationsExpr = dictLiteral(extra);
      }
      const keys = Object.keys(meta);
      if (!keys.includes('annotations') && role !== 'claim')
        lines.push(...this.annotationsLines(annotationsExpr, indent + 2));
      for (const k of keys) {
        const value = meta[k];
        if (k === 'annotations') lines.push(...this.annotationsLines(annotationsExpr, indent + 2));
        else if (k === 'labels') {
          lines.push(
            ...this.labelsLine(object, labels, component, indent + 2, {
              ...(role === 'claim' ? { stable: true } : {}),
              ...(labelsExpr ? { extraExpr: labelsExpr } : {}),
            }),
          );
        } else if (k === 'name' && typeof value === 'string' && this.nameExpr(value)) {
          lines.push(`${pad(indent + 2)}name: {{ ${this.nameExpr(value)!.text} }}`);
        } else if (k === 'namespace' && value === this.namespace) {
          lines.push(`${pad(indent + 2)}namespace: {{ ${this.namespaceExpr().text} }}`);
        } else {
          lines.push(...emitMap({ [k]: this.transform(object, value, [...path, k], component) }, indent + 2));
        }
      }
      return lines;
    });
  }

  // ---------------------------------------------------------------- pods
  podSpec(object: KubeObject, spec: Json, component: string, path: Path): Json {
    const values = this.componentValues(component);
    const out: Record<string, unknown> = {};
    const podFields: [string, string, Readonly<Record<string, unknown>>, unknown][] = [
      ['nodeSelector', 'Node labels the pods must match.', STRING_MAP, {}],
      ['tolerations', 'Tolerations of the pods.', TOLERATIONS, []],
      ['affinity', 'Affinity rules of the pods.', AFFINITY, {}],
      ['topologySpreadConstraints', 'Topology spread constraints of the pods.', TOPOLOGY_SPREAD, []],
      ['priorityClassName', 'PriorityClass of the pods.', { type: 'string' }, ''],
    ];
    const lifted = new Set(podFields.map(([k]) => k).concat('imagePullSecrets'));
    for (const [key, value] of Object.entries(spec)) {
      if (lifted.has(key)) continue;
      if (key === 'containers' || key === 'initContainers') {
        out[key] = (value as Json[]).map((c, i) =>
          this.container(object, c, component, key, [...path, key, i]),
        );
      } else out[key] = this.transform(object, value, [...path, key], component);
    }
    for (const [key, description, schema, fallback] of podFields) {
      const current = spec[key] ?? fallback;
      values.pod.push(leaf(key, description, schema, current));
      const ref = valuesRef([...values.path, key]);
      out[`\u0000${key}`] = entry((indent) =>
        key === 'priorityClassName'
          ? [
              `${pad(indent)}{{- with ${ref} }}`,
              `${pad(indent)}priorityClassName: {{ . | quote }}`,
              `${pad(indent)}{{- end }}`,
            ]
          : [
              `${pad(indent)}{{- with ${ref} }}`,
              `${pad(indent)}${key}:`,
              `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
              `${pad(indent)}{{- end }}`,
            ],
      );
    }
    out['\u0000imagePullSecrets'] = entry((indent) => [
      `${pad(indent)}{{- with $.Values.imagePullSecrets }}`,
      `${pad(indent)}imagePullSecrets:`,
      `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
      `${pad(indent)}{{- end }}`,
    ]);
    return out;
  }

  containerDescription(component: string, name: string, init: boolean): string {
    if (component !== 'agent') return `Container "${name}" of the gateway.`;
    if (init) return `Init container "${name}" (copies the toolchain server into the pod).`;
    const backend: PlannedBackend | undefined = this.plan.backends.find((b) => b.name === name);
    if (backend) return `Backend "${name}" (${backend.type}), port ${backend.port}.`;
    const toolchain: PlannedToolchain | undefined = this.plan.toolchains.find(
      (t) => t.containerName === name,
    );
    if (toolchain) {
      return `Toolchain "${toolchain.name}" sidecar (toolchain server on 127.0.0.1:${toolchain.port}, tools ${toolchain.mode}${
        toolchain.presets.length > 0 ? ` ${toolchain.presets.join(', ')}` : ''
      }).`;
    }
    return `Container "${name}".`;
  }

  container(object: KubeObject, container: Json, component: string, listKey: string, path: Path): Json {
    const values = this.componentValues(component);
    const name = String(container['name']);
    const init = listKey === 'initContainers';
    const gateway = component !== 'agent';
    const key = valuesKey(name);
    const valuesPath = gateway ? values.path : [...values.path, init ? 'initContainers' : 'containers', key];
    const list = gateway ? values.extra : init ? values.initContainers : values.containers;
    if (!gateway && list.some((n) => n.key === key))
      throw new Error(`two containers map to values key ${key}`);
    if (gateway && list.some((n) => n.key === 'image'))
      throw new Error(`gateway ${component} has two containers`);
    const image = parseImage(String(container['image']));
    const leaves: ValueNode[] = [
      group('image', 'Container image.', [
        leaf(
          'registry',
          'Registry host (replaced by global.imageRegistry when that is set).',
          { type: 'string' },
          image.registry,
        ),
        leaf(
          'repository',
          'Repository within the registry.',
          { type: 'string', minLength: 1 },
          image.repository,
        ),
        leaf('tag', 'Tag (ignored when digest is set).', { type: 'string' }, image.tag),
        leaf(
          'digest',
          'Digest, e.g. sha256:…; wins over tag.',
          { type: 'string', pattern: '^$|^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$' },
          image.digest,
        ),
        leaf(
          'pullPolicy',
          'Image pull policy.',
          IMAGE_PULL_POLICY,
          container['imagePullPolicy'] ?? 'IfNotPresent',
        ),
      ]),
      leaf('resources', 'Resource requests and limits.', RESOURCES, container['resources'] ?? {}),
      leaf('extraEnv', 'Extra environment variables, appended to the generated ones.', ENV_LIST, []),
    ];
    if (gateway) list.push(...leaves);
    else list.push(group(key, this.containerDescription(component, name, init), leaves));
    const ref = (k: string): string => valuesRef([...valuesPath, k]);
    const out: Record<string, unknown> = {};
    for (const [k, value] of Object.entries(container)) {
      if (k === 'image') {
        out[k] = expr(
          `include ${this.helper('image')} (dict "image" ${ref('image')} "global" $.Values.global) | quote`,
        );
      } else if (k === 'imagePullPolicy') out[k] = expr(`${ref('image')}.pullPolicy | quote`);
      else if (k === 'resources') {
        out[k] = entry((indent) => [
          `${pad(indent)}resources:`,
          `${pad(indent + 2)}{{- toYaml ${ref('resources')} | nindent ${indent + 2} }}`,
        ]);
      } else if (k === 'env') {
        const items = this.transform(object, value, [...path, k], component) as unknown[];
        out[k] = entry((indent) => [
          `${pad(indent)}env:`,
          ...emitSeq(items, indent + 2),
          `${pad(indent + 2)}{{- with ${ref('extraEnv')} }}`,
          `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
          `${pad(indent + 2)}{{- end }}`,
        ]);
      } else out[k] = this.transform(object, value, [...path, k], component);
    }
    if (!('env' in container)) {
      out['\u0000env'] = entry((indent) => [
        `${pad(indent)}{{- with ${ref('extraEnv')} }}`,
        `${pad(indent)}env:`,
        `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
        `${pad(indent)}{{- end }}`,
      ]);
    }
    if (!('resources' in container)) throw new Error(`container ${name} has no resources`);
    return out;
  }

  // ---------------------------------------------------------------- generic walk
  transform(object: KubeObject, value: unknown, path: Path, component: string): unknown {
    const key = path.at(-1);
    const parent = path.at(-2);
    const isWorkload = object.kind === 'Deployment' || object.kind === 'StatefulSet';
    const at = (...p: (string | number)[]): boolean =>
      p.length === path.length && p.every((k, i) => k === path[i]);
    if (typeof value === 'string') {
      const nameLike =
        (key === 'name' && (parent === 'configMap' || parent === 'roleRef' || path.at(-3) === 'subjects')) ||
        key === 'serviceAccountName' ||
        key === 'serviceName' ||
        (key === 'claimName' && parent === 'persistentVolumeClaim');
      if (nameLike && this.objectNames.has(value)) return this.nameExpr(value) ?? value;
      if ((key === 'namespace' || key === 'kubernetes.io/metadata.name') && value === this.namespace) {
        return this.namespaceExpr();
      }
      return this.rewriteHosts(value);
    }
    if (Array.isArray(value)) return value.map((v, i) => this.transform(object, v, [...path, i], component));
    if (typeof value !== 'object' || value === null) return value;
    const map = value as Json;
    if (at('metadata')) return this.metadataEntry(object, map, component, 'object', path);
    if (isWorkload && at('spec', 'template', 'metadata'))
      return this.metadataEntry(object, map, component, 'pod', path);
    if (isWorkload && path.length === 4 && at('spec', 'volumeClaimTemplates', path[2]!, 'metadata')) {
      return this.metadataEntry(object, map, component, 'claim', path);
    }
    if (isWorkload && at('spec', 'template', 'spec')) return this.podSpec(object, map, component, path);
    if (
      isWorkload &&
      object.kind === 'Deployment' &&
      component !== 'agent' &&
      at('spec') &&
      typeof map['replicas'] === 'number'
    ) {
      const values = this.componentValues(component);
      values.extra.unshift(
        leaf('replicas', 'Number of gateway replicas.', { type: 'integer', minimum: 0 }, map['replicas']),
      );
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(map)) {
        out[k] =
          k === 'replicas'
            ? expr(valuesRef([...values.path, 'replicas']))
            : this.transform(object, v, [...path, k], component);
      }
      return out;
    }
    const selectorPosition = key === 'matchLabels' || (object.kind === 'Service' && at('spec', 'selector'));
    if (selectorPosition) {
      for (const c of new Set(this.objects.map((o) => this.componentOf(o)))) {
        if (sameMap(map, this.selectorOf(c))) {
          return entry((indent, k) => [
            `${pad(indent)}${k}:`,
            `${pad(indent + 2)}{{- include ${this.helper('selectorLabels')} (dict "context" $ "component" ${goString(c)}) | nindent ${indent + 2} }}`,
          ]);
        }
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(map)) out[k] = this.transform(object, v, [...path, k], component);
    return out;
  }

  objectTemplate(object: KubeObject): string {
    const tree = this.transform(object, object, [], this.componentOf(object)) as Json;
    return emitMap(tree, 0).join('\n');
  }

  valueNodes(hasNetworkPolicies: boolean): ValueNode[] {
    const componentGroup = (values: ComponentValues): ValueNode[] => {
      const nodes: ValueNode[] = [...values.extra];
      if (values.serviceAccount) nodes.push(values.serviceAccount);
      nodes.push(...values.pod);
      if (values.containers.length > 0)
        nodes.push(group('containers', 'Containers of the pod, by name.', values.containers));
      if (values.initContainers.length > 0) {
        nodes.push(group('initContainers', 'Init containers of the pod, by name.', values.initContainers));
      }
      return nodes;
    };
    const agent = this.components.get('agent');
    const gateways = [...this.components.entries()].filter(([c]) => c !== 'agent');
    const nodes: ValueNode[] = [
      group('global', 'Values shared with every chart of a release.', [
        leaf(
          'imageRegistry',
          "Registry that replaces the registry of every image (e.g. a mirror); empty keeps each image's own.",
          { type: 'string' },
          '',
        ),
      ]),
      leaf(
        'nameOverride',
        'Replaces the chart name in names and the app.kubernetes.io/name label.',
        { type: 'string' },
        '',
      ),
      leaf(
        'fullnameOverride',
        'Replaces the full name (release name + chart name) that every object name starts with.',
        { type: 'string' },
        '',
      ),
      leaf('commonLabels', "Labels added to every object and pod (the spec's metadata.labels).", STRING_MAP, {
        ...this.plan.labels,
      }),
      leaf(
        'commonAnnotations',
        "Annotations added to every object and pod (the spec's metadata.annotations).",
        STRING_MAP,
        { ...this.plan.annotations },
      ),
      leaf(
        'imagePullSecrets',
        'Secrets for pulling images, added to every pod: [{name: …}].',
        PULL_SECRETS,
        [],
      ),
    ];
    if (hasNetworkPolicies) {
      nodes.push(
        group('networkPolicy', 'NetworkPolicies (deny by default, then exactly what each pod needs).', [
          leaf(
            'enabled',
            'Render the NetworkPolicies. false removes every NetworkPolicy: pods then have unrestricted network access.',
            { type: 'boolean' },
            true,
          ),
        ]),
      );
    }
    if (agent) nodes.push(group('agent', agent.description, componentGroup(agent)));
    if (gateways.length > 0) {
      nodes.push(
        group(
          'gateways',
          'Deployed MCP gateways, by name.',
          gateways.map(([, values]) => group(values.path[1]!, values.description, componentGroup(values))),
        ),
      );
    }
    return nodes;
  }
}
