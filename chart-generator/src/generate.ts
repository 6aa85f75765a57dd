/**
 * `generateChart(rendered)`: a Helm chart derived from the renderer's own objects, helmify-style. Each object
 * becomes a template that, with the default values, release name = agent name and namespace = the spec's
 * namespace, renders back to exactly that object (plus Helm's labels). Chosen fields are lifted into values;
 * names come from the release, the namespace from `.Release.Namespace`. Pure: objects in, files out.
 */
import { stringify } from 'yaml';
import { LABEL, MANAGED_BY, PART_OF } from '../../constructs/src/names.ts';
import type {
  AgentPlan,
  PlannedBackend,
  PlannedDeployedGateway,
  PlannedToolchain,
} from '../../constructs/src/plan.ts';
import type { KubeObject, RenderResult } from '../../constructs/src/render.ts';
import { helpersTpl } from './helpers-tpl.ts';
import { chartNotes } from './notes.ts';
import { chartReadme } from './readme.ts';
import {
  type ExprNode,
  emitMap,
  emitSeq,
  entry,
  escapeLiteral,
  expr,
  goString,
  templatedString,
} from './template-yaml.ts';
import {
  AFFINITY,
  defaultsOf,
  ENV_LIST,
  group,
  IMAGE_PULL_POLICY,
  leaf,
  PULL_SECRETS,
  RESOURCES,
  renderValuesYaml,
  STRING_MAP,
  TOLERATIONS,
  TOPOLOGY_SPREAD,
  type ValueNode,
  valuesSchema,
} from './values-model.ts';

export const DEFAULT_CHART_VERSION = '0.1.0';
export const DEFAULT_HOME = 'https://toolyard.dev';
export const KUBE_VERSION = '>=1.25.0-0';
/** The pod-template annotation that carries a hash of the generated configs; kept as rendered. */
export const CONFIG_HASH = 'toolyard.dev/config-hash';

export interface ChartOptions {
  /** SemVer chart version (default 0.1.0). */
  readonly version?: string;
  /** appVersion (default: the chart version). */
  readonly appVersion?: string;
  readonly home?: string;
  readonly sources?: readonly string[];
}

export interface GeneratedChart {
  readonly name: string;
  readonly version: string;
  readonly appVersion: string;
  /** Chart files by path relative to the chart directory, sorted. */
  readonly files: ReadonlyMap<string, string>;
  readonly values: Readonly<Record<string, unknown>>;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isSemver(version: string): boolean {
  return SEMVER.test(version);
}

/** camelCase values key of a DNS-label name: `toolchain-go-python` → `toolchainGoPython`. */
export function valuesKey(name: string): string {
  const key = name
    .replace(/[-_.]+([a-z0-9])/g, (_, c: string) => c.toUpperCase())
    .replace(/[^A-Za-z0-9]/g, '');
  return /^[0-9]/.test(key) ? `_${key}` : key;
}

/** A reference into .Values: `$.Values.a.b`, or `(index $.Values "a" "b")` for keys that are not identifiers. */
export function valuesRef(path: readonly string[]): string {
  if (path.every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))) return ['$.Values', ...path].join('.');
  return `(index $.Values ${path.map(goString).join(' ')})`;
}

function dictLiteral(map: Readonly<Record<string, string>>): string {
  const args = Object.entries(map).flatMap(([k, v]) => [goString(k), goString(v)]);
  return args.length === 0 ? '(dict)' : `(dict ${args.join(' ')})`;
}

function pad(indent: number): string {
  return ' '.repeat(indent);
}

function sameMap(a: unknown, b: Readonly<Record<string, string>>): boolean {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => (a as Record<string, unknown>)[k] === b[k]);
}

/** `a` without the entries that `common` has with the same value. */
function without(a: Readonly<Record<string, string>>, common: Readonly<Record<string, string>>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (common[k] !== v) out[k] = v;
  return out;
}

interface ParsedImage {
  readonly registry: string;
  readonly repository: string;
  readonly tag: string;
  readonly digest: string;
}

export function parseImage(reference: string): ParsedImage {
  let name = reference;
  let tag = '';
  let digest = '';
  const at = name.indexOf('@');
  if (at >= 0) {
    digest = name.slice(at + 1);
    name = name.slice(0, at);
  } else {
    const colon = name.lastIndexOf(':');
    if (colon > name.lastIndexOf('/')) {
      tag = name.slice(colon + 1);
      name = name.slice(0, colon);
    }
  }
  let registry = '';
  const slash = name.indexOf('/');
  if (slash > 0) {
    const first = name.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      registry = first;
      name = name.slice(slash + 1);
    }
  }
  return { registry, repository: name, tag, digest };
}

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

class ChartBuilder {
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

/** Generates the chart of one rendered agent. */
export function generateChart(rendered: RenderResult, options: ChartOptions = {}): GeneratedChart {
  const version = options.version ?? DEFAULT_CHART_VERSION;
  if (!isSemver(version)) throw new Error(`chart version "${version}" is not SemVer 2`);
  const appVersion = options.appVersion ?? version;
  const home = options.home ?? DEFAULT_HOME;
  const builder = new ChartBuilder(rendered);
  const plan = rendered.plan;
  const name = builder.chart;

  // Templates: one file per component and kind, objects in render order.
  const byFile = new Map<string, string[]>();
  for (const object of rendered.objects) {
    const file = `templates/${builder.componentOf(object)}-${object.kind.toLowerCase()}.yaml`;
    const docs = byFile.get(file) ?? [];
    docs.push(builder.objectTemplate(object));
    byFile.set(file, docs);
  }
  const hasNetworkPolicies = rendered.objects.some((o) => o.kind === 'NetworkPolicy');
  const files = new Map<string, string>();
  for (const [file, docs] of byFile) {
    const body = docs.join('\n---\n');
    files.set(
      file,
      file.endsWith('-networkpolicy.yaml')
        ? `{{- if $.Values.networkPolicy.enabled }}\n${body}\n{{- end }}\n`
        : `${body}\n`,
    );
  }
  const nodes = builder.valueNodes(hasNetworkPolicies);
  const values = defaultsOf(nodes);
  const description = chartDescription(plan);

  files.set(
    'Chart.yaml',
    chartYaml(plan, { name, version, appVersion, home, sources: options.sources ?? [home], description }),
  );
  files.set(
    'values.yaml',
    renderValuesYaml(nodes, [
      `Values of the ${name} chart, generated by toolyard from the Agent spec "${name}".`,
      "With these defaults, release name = agent name and namespace = the spec's namespace, the chart renders",
      "exactly the objects of `toolyard synth` (plus Helm's labels).",
    ]),
  );
  files.set(
    'values.schema.json',
    `${JSON.stringify(valuesSchema(nodes, `${name} chart values`, `Values of the ${name} chart (generated by toolyard).`), null, 2)}\n`,
  );
  files.set('templates/_helpers.tpl', helpersTpl(name));
  files.set('templates/NOTES.txt', chartNotes(builder, plan));
  files.set(
    'README.md',
    chartReadme({ name, version, appVersion, description, namespace: plan.namespace, nodes, plan }),
  );
  files.set('.helmignore', HELMIGNORE);
  for (const [file, content] of ciValues(builder, values, hasNetworkPolicies)) files.set(file, content);

  const sorted = new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { name, version, appVersion, files: sorted, values };
}

export type { ChartBuilder };

function chartDescription(plan: AgentPlan): string {
  const parts = [`backends ${plan.backends.map((b) => b.name).join(', ')}`];
  if (plan.toolchains.length > 0) parts.push(`toolchains ${plan.toolchains.map((t) => t.name).join(', ')}`);
  const deployed = plan.gateways.filter((g) => g.kind === 'deployed');
  if (deployed.length > 0) parts.push(`MCP gateways ${deployed.map((g) => g.name).join(', ')}`);
  return `toolyard agent "${plan.name}": ${parts.join('; ')}.`;
}

function chartYaml(
  plan: AgentPlan,
  c: {
    name: string;
    version: string;
    appVersion: string;
    home: string;
    sources: readonly string[];
    description: string;
  },
): string {
  const doc = {
    apiVersion: 'v2',
    name: c.name,
    description: c.description,
    type: 'application',
    version: c.version,
    appVersion: c.appVersion,
    kubeVersion: KUBE_VERSION,
    home: c.home,
    sources: [...c.sources],
    keywords: [
      'toolyard',
      'ai-agent',
      'mcp',
      ...plan.toolchains.map((t) => t.name),
      ...plan.backends.map((b) => b.type),
    ].filter((k, i, all) => all.indexOf(k) === i),
    annotations: { 'toolyard.dev/generated-from': `toolyard.dev/v1alpha1 Agent ${plan.name}` },
  };
  return `# Generated by toolyard from the Agent spec "${plan.name}". Regenerate instead of editing.\n${stringify(doc, { version: '1.1', lineWidth: 0 })}`;
}

const HELMIGNORE = `# Patterns to ignore when building packages.
.DS_Store
.git/
.gitignore
.hg/
.svn/
*.swp
*.bak
*.tmp
*.orig
*~
.idea/
.vscode/
`;

/** Scenario values under ci/, each rendered and validated in tests. */
function ciValues(
  builder: ChartBuilder,
  values: Readonly<Record<string, unknown>>,
  hasNetworkPolicies: boolean,
): [string, string][] {
  const out: [string, string][] = [];
  const header = (text: string): string => `# ${text}\n`;
  out.push([
    'ci/default-values.yaml',
    `${header('The defaults: renders exactly what toolyard synth renders.')}{}\n`,
  ]);
  const agent = values['agent'] as Record<string, Record<string, unknown>> | undefined;
  const containerKeys = Object.keys((agent?.['containers'] as Record<string, unknown>) ?? {});
  const firstContainer = containerKeys[0];
  const overrides: Record<string, unknown> = {
    global: { imageRegistry: 'registry.internal.example' },
    imagePullSecrets: [{ name: 'registry-credentials' }],
    commonLabels: { 'cost-center': 'platform' },
    agent: {
      serviceAccount: {
        annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/agent' },
      },
      podLabels: { team: 'agents' },
      podAnnotations: { 'example.com/scrape': 'false' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'agents', effect: 'NoSchedule' }],
      priorityClassName: 'agents',
      ...(firstContainer
        ? {
            containers: {
              [firstContainer]: {
                image: { tag: '9.9.9' },
                resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { memory: '4Gi' } },
                extraEnv: [{ name: 'EXTRA', value: 'yes' }],
              },
            },
          }
        : {}),
    },
  };
  const gateways = Object.keys((values['gateways'] as Record<string, unknown>) ?? {});
  if (gateways.length > 0) overrides['gateways'] = { [gateways[0]!]: { replicas: 3 } };
  out.push([
    'ci/overrides-values.yaml',
    header(
      'Every kind of lifted value set at once: registry mirror, pull secrets, labels, scheduling, an image tag, resources and env.',
    ) + stringify(overrides, { version: '1.1', lineWidth: 0 }),
  ]);
  if (hasNetworkPolicies) {
    out.push([
      'ci/no-networkpolicy-values.yaml',
      `${header('Without NetworkPolicies (e.g. a cluster whose CNI does not enforce them).')}networkPolicy:\n  enabled: false\n`,
    ]);
  }
  out.push([
    'ci/renamed-values.yaml',
    `${header('A different full name: every object, reference and in-config URL follows it.')}fullnameOverride: ${escapeLiteral(`${builder.agent}-renamed`)}\n`,
  ]);
  return out;
}
