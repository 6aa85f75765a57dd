/**
 * `ChartBuilder`: turns each rendered object into template text, helmify-style — names from the release,
 * the namespace from `.Release.Namespace`, Secret names from `secretNames`, chosen fields lifted into values —
 * and collects the values tree. Pod specs and containers are lifted in `pod-template.ts`.
 */

import { CONFIG_HASH_ANNOTATION as CONFIG_HASH } from '../../constructs/src/agent-workload.ts';
import { BROKER_CONFIG_FILE } from '../../constructs/src/broker.ts';
import { brokerConfigHash, brokerConfigText } from '../../constructs/src/broker-config.ts';
import { toolchainEgressSummary } from '../../constructs/src/egress-summary.ts';
import { AGENT_LABEL, METRICS_COMPONENT } from '../../constructs/src/metrics-scrape.ts';
import { BROKER_COMPONENT, LABEL, MANAGED_BY, PART_OF } from '../../constructs/src/names.ts';
import { type AgentPlan, type PlannedDeployedGateway, podToolchains } from '../../constructs/src/plan.ts';
import type { KubeObject, RenderResult } from '../../constructs/src/render.ts';
import { SANDBOXES_COMPONENT } from '../../constructs/src/sandbox-plan.ts';
import { TOOLCHAIN_CONFIG_FILE } from '../../constructs/src/toolchain-config.ts';
import { SANDBOX_MANAGER_CONFIG_FILE } from '../../toolchain-server/sandbox-manager/constants.ts';
import { brokerConfigEntry, brokerConfigHashExpr, brokerEgressValues } from './broker-config-template.ts';
import { cacheClaimCondition, cacheClaimSpec, cacheOfClaim } from './cache-values.ts';
import { type ComponentValues, componentNodes, componentValues } from './component-values.ts';
import type { Json, ObjectLifter, Path } from './object-lifter.ts';
import { claimSpec, persistenceRef, podSpec, volumeClaimTemplates } from './pod-template.ts';
import {
  isSandboxComponent,
  rewriteSandboxNames,
  SANDBOX_PODS_COMPONENT,
  sandboxesValues,
  sandboxManagerConfigEntry,
  sandboxManagerHashExpr,
  sandboxTemplateOf,
} from './sandbox-values.ts';
import { type ExprNode, emitMap, entry, expr, goString, templatedString } from './template-yaml.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { dictLiteral, pad, sameMap, valuesKey, valuesRef, without } from './values-refs.ts';
import { ANNOTATIONS, LABELS } from './values-schemas.ts';

/** Kinds whose names must be DNS labels (63), and StatefulSets, whose pods' labels need 11 more characters. */
const NAME_MAX: Readonly<Record<string, number>> = { Service: 63, Pod: 63, StatefulSet: 52 };
const DEFAULT_NAME_MAX = 253;

const STD_LABELS = new Set<string>([
  LABEL.name,
  LABEL.instance,
  LABEL.component,
  LABEL.partOf,
  LABEL.managedBy,
  LABEL.agent,
]);

export class ChartBuilder implements ObjectLifter {
  readonly plan: AgentPlan;
  readonly objects: readonly KubeObject[];
  readonly chart: string;
  readonly agent: string;
  readonly namespace: string;
  readonly components = new Map<string, ComponentValues>();
  readonly objectNames = new Set<string>();
  /** Shortest limit among the kinds that share each name (a Service and a Deployment share theirs). */
  readonly nameMax = new Map<string, number>();
  /** ServiceAccount object name → its component. */
  readonly serviceAccounts = new Map<string, string>();
  readonly hostPattern: RegExp | undefined;

  constructor(rendered: RenderResult) {
    this.plan = rendered.plan;
    this.objects = rendered.objects;
    this.agent = rendered.plan.name;
    this.chart = rendered.plan.name;
    this.namespace = rendered.plan.namespace;
    for (const o of this.objects) {
      const name = o.metadata.name;
      this.objectNames.add(name);
      const max = NAME_MAX[o.kind] ?? DEFAULT_NAME_MAX;
      // StatefulSets keep their own, shorter limit; the names they share keep the DNS-label one.
      if (o.kind !== 'StatefulSet') this.nameMax.set(name, Math.min(this.nameMax.get(name) ?? max, max));
      if (o.kind === 'ServiceAccount') this.serviceAccounts.set(name, this.componentOf(o));
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

  get workloadKind(): 'StatefulSet' | 'Deployment' {
    return this.objects.some((o) => o.kind === 'StatefulSet') ? 'StatefulSet' : 'Deployment';
  }

  /** The release's name for an object the spec calls `name`: `<fullname>[-<suffix>]`, within `max`. */
  objectNameExpr(suffix: string, max: number): ExprNode {
    if (suffix === '' && max >= 63) return expr(`include ${this.helper('fullname')} $`);
    return expr(`include ${this.helper('componentName')} (list $ ${goString(suffix)} ${max})`);
  }

  nameExpr(name: string, kind?: string): ExprNode | undefined {
    const max = (kind ? NAME_MAX[kind] : undefined) ?? this.nameMax.get(name) ?? 63;
    if (name === this.agent) return this.objectNameExpr('', kind === 'StatefulSet' ? max : 63);
    if (name.startsWith(`${this.agent}-`)) return this.objectNameExpr(name.slice(this.agent.length + 1), max);
    return undefined;
  }

  /** The ServiceAccount name of a component's pods: created by the chart, or an existing one. */
  serviceAccountExpr(name: string): ExprNode {
    const component = this.serviceAccounts.get(name)!;
    const path = [...this.componentValues(component).path, 'serviceAccount'];
    const generated = this.nameExpr(name)!;
    return expr(
      `include ${this.helper('serviceAccountName')} (dict "serviceAccount" ${valuesRef(path)} "generated" (${generated.text}) "key" ${goString(path.join('.'))})`,
    );
  }

  secretExpr(name: string): ExprNode {
    return expr(`include ${this.helper('secretName')} (list $ ${goString(name)}) | quote`);
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
      const sidecars = this.plan.toolchains.filter((t) => t.placement === 'sidecar');
      values = componentValues(
        ['agent'],
        `The agent pod (${this.workloadKind} ${this.agent}): backends ${this.plan.backends.map((b) => b.name).join(', ')}${
          sidecars.length > 0 ? `; toolchain sidecars ${sidecars.map((t) => t.name).join(', ')}` : ''
        }.`,
        false,
      );
    } else if (component === BROKER_COMPONENT && this.plan.broker.enabled) {
      const broker = this.plan.broker;
      values = componentValues(
        ['broker'],
        `The broker (Deployment ${broker.objectName}): the agent's only pod with internet egress, holding the model keys and gateway tokens; routes ${
          broker.routes.map((r) => r.name).join(', ') || 'none'
        }; callers ${broker.callers.map((c) => c.name).join(', ')} (tokens in Secret ${broker.tokensSecret}).`,
        true,
      );
    } else if (component === SANDBOXES_COMPONENT && this.plan.sandboxes) {
      const sandboxes = this.plan.sandboxes;
      values = componentValues(
        ['sandboxes', 'manager'],
        `The sandbox manager (Deployment ${sandboxes.objectName}, one replica): the only holder of Kubernetes authority over the sandboxes (a Role over ${
          sandboxes.provider === 'kubernetes'
            ? 'pods and persistentvolumeclaims'
            : 'sandboxclaims and sandboxes'
        } in its namespace); its MCP Service on port ${sandboxes.port}.`,
        true,
      );
    } else if (component === SANDBOX_PODS_COMPONENT && this.plan.sandboxes) {
      values = componentValues(
        ['sandboxes', 'pods'],
        'The sandbox pods of every template: their ServiceAccount, which mounts no token and holds no Role.',
        false,
      );
    } else if (sandboxTemplateOf(this, component)) {
      const template = sandboxTemplateOf(this, component)!;
      values = componentValues(
        ['sandboxes', 'templates', valuesKey(template.name)],
        `Sandbox template "${template.name}".`,
        false,
      );
    } else if (this.toolchainOf(component)) {
      const toolchain = this.toolchainOf(component)!;
      values = componentValues(
        ['toolchains', valuesKey(toolchain.name)],
        `Toolchain "${toolchain.name}" in its own pod (placement: pod): Deployment, Service on port ${toolchain.port}, ServiceAccount and NetworkPolicy of its own; tools ${toolchain.mode}${
          toolchain.presets.length > 0 ? ` ${toolchain.presets.join(', ')}` : ''
        }, ${toolchainEgressSummary(this.plan, toolchain)}.`,
        false,
      );
    } else {
      const gatewayName = component.replace(/^gateway-/, '');
      const gateway = this.plan.gateways.find((g) => g.name === gatewayName) as
        | PlannedDeployedGateway
        | undefined;
      const authority = gateway?.kubernetes
        ? `, Kubernetes authority ${gateway.kubernetes.preset} in ${gateway.kubernetes.namespaces.join(', ')}`
        : '';
      values = componentValues(
        ['gateways', valuesKey(gatewayName)],
        `MCP gateway "${gatewayName}" (its own Deployment, Service and ServiceAccount${authority}).`,
        true,
      );
    }
    this.components.set(component, values);
    return values;
  }

  /** The toolchain whose own pod a component is (`toolchain-<name>`, placement: pod). */
  toolchainOf(component: string) {
    return podToolchains(this.plan).find((t) => t.pod.component === component);
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
    return this.labelsInclude(component, indent, {
      ...(extraExpr ? { extraExpr } : {}),
      ...(opts.stable ? { stable: true } : {}),
    });
  }

  /** `labels:` of a component's object, through the chart's labels helper. */
  labelsInclude(component: string, indent: number, opts: { stable?: boolean; extraExpr?: string } = {}) {
    const args = [`"context" $`, `"component" ${goString(component)}`];
    if (opts.extraExpr) args.push(`"extra" ${opts.extraExpr}`);
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
        const hashExpr = this.isBroker(component)
          ? this.brokerHashExpr(literal[CONFIG_HASH])
          : component === SANDBOXES_COMPONENT && this.plan.sandboxes
            ? sandboxManagerHashExpr(this, literal[CONFIG_HASH])
            : undefined;
        values.pod.push(
          leaf('podLabels', 'Extra labels of the pods (never part of selectors).', LABELS, {}),
          leaf('podAnnotations', 'Extra annotations of the pods.', ANNOTATIONS, lifted),
        );
        const podAnnotations = valuesRef([...values.path, 'podAnnotations']);
        const literalExpr = hashExpr
          ? `(dict ${goString(CONFIG_HASH)} (${hashExpr}))`
          : Object.keys(literal).length > 0
            ? dictLiteral(literal)
            : undefined;
        annotationsExpr = literalExpr ? `(merge ${literalExpr} ${podAnnotations})` : podAnnotations;
        labelsExpr = valuesRef([...values.path, 'podLabels']);
      } else if (role === 'object' && object.kind === 'ServiceAccount') {
        values.serviceAccount = group('serviceAccount', 'The ServiceAccount of these pods.', [
          leaf(
            'create',
            'Create the ServiceAccount. false uses an existing one, which serviceAccount.name must then name (e.g. one your cloud identity setup manages); the pods never fall back to the namespace\'s "default".',
            { type: 'boolean' },
            true,
          ),
          leaf(
            'name',
            'Name of the ServiceAccount (created or existing); empty: the generated name.',
            {
              type: 'string',
              pattern: '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
            },
            '',
          ),
          leaf(
            'annotations',
            'Annotations of the created ServiceAccount, e.g. for cloud workload identity (eks.amazonaws.com/role-arn, iam.gke.io/gcp-service-account, azure.workload.identity/client-id).',
            ANNOTATIONS,
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
        } else if (k === 'name' && role === 'object' && object.kind === 'ServiceAccount') {
          lines.push(`${pad(indent + 2)}name: {{ ${this.serviceAccountExpr(String(value)).text} }}`);
        } else if (k === 'name' && role === 'object' && typeof value === 'string' && this.nameExpr(value)) {
          lines.push(`${pad(indent + 2)}name: {{ ${this.nameExpr(value, object.kind)!.text} }}`);
        } else if (k === 'namespace' && value === this.namespace) {
          lines.push(`${pad(indent + 2)}namespace: {{ ${this.namespaceExpr().text} }}`);
        } else {
          lines.push(...emitMap({ [k]: this.transform(object, value, [...path, k], component) }, indent + 2));
        }
      }
      return lines;
    });
  }

  isBroker(component: string): boolean {
    return component === BROKER_COMPONENT && this.plan.broker.enabled;
  }

  /**
   * The broker pod's config hash as Helm computes it from the config it renders. The renderer's must be the
   * same function of the same text, or default values would not render synth's bytes: checked here.
   */
  brokerHashExpr(rendered: string | undefined): string {
    const expected = brokerConfigHash(brokerConfigText(this.plan));
    if (rendered !== expected)
      throw new Error(
        `internal error: the broker's ${CONFIG_HASH} is ${rendered}, not the SHA-1 prefix ${expected} of its config`,
      );
    return brokerConfigHashExpr(this.chart);
  }

  // ---------------------------------------------------------------- generic walk
  /** A string field that names an object of the chart, a Secret, a namespace, or holds a service host. */
  transformString(object: KubeObject, value: string, path: Path): unknown {
    const key = path.at(-1);
    const parent = path.at(-2);
    if (
      (key === 'name' && (parent === 'secretKeyRef' || parent === 'secretRef')) ||
      (key === 'secretName' && parent === 'secret') ||
      (key === 'name' && parent === 'secret' && path.at(-4) === 'sources')
    ) {
      return this.secretExpr(value);
    }
    if (key === 'serviceAccountName' && this.serviceAccounts.has(value))
      return this.serviceAccountExpr(value);
    if (key === 'name' && path.at(-3) === 'subjects' && this.serviceAccounts.has(value)) {
      const subject = (object['subjects'] as Json[])[path.at(-2) as number]!;
      if (subject['kind'] === 'ServiceAccount') return this.serviceAccountExpr(value);
    }
    const nameLike =
      (key === 'name' &&
        (parent === 'configMap' ||
          parent === 'roleRef' ||
          parent === 'sandboxTemplateRef' ||
          path.at(-3) === 'subjects')) ||
      key === 'serviceName' ||
      (key === 'claimName' && parent === 'persistentVolumeClaim');
    if (nameLike && this.objectNames.has(value)) return this.nameExpr(value) ?? value;
    if ((key === 'namespace' || key === 'kubernetes.io/metadata.name') && value === this.namespace) {
      return this.namespaceExpr();
    }
    return this.rewriteHosts(value);
  }

  transform(object: KubeObject, value: unknown, path: Path, component: string): unknown {
    const key = path.at(-1);
    const isWorkload = object.kind === 'Deployment' || object.kind === 'StatefulSet';
    const at = (...p: (string | number)[]): boolean =>
      p.length === path.length && p.every((k, i) => k === path[i]);
    if (object.kind === 'ConfigMap' && this.isBroker(component) && at('data', BROKER_CONFIG_FILE))
      return brokerConfigEntry(this.chart);
    if (
      object.kind === 'ConfigMap' &&
      component === SANDBOXES_COMPONENT &&
      at('data', SANDBOX_MANAGER_CONFIG_FILE)
    )
      return sandboxManagerConfigEntry(this.chart);
    const template = sandboxTemplateOf(this, component);
    if (template && typeof value === 'string') {
      // A sandbox server allows its template's object name as Host (no Service has it): the release's name.
      if (object.kind === 'ConfigMap' && at('data', TOOLCHAIN_CONFIG_FILE))
        return rewriteSandboxNames(this, value, [template.serverHost]);
    }
    if (template && object.kind === 'SandboxTemplate' && at('spec', 'podTemplate', 'metadata'))
      return this.metadataEntry(object, value as Json, component, 'claim', path);
    if (template && object.kind === 'SandboxWarmPool' && at('spec', 'replicas'))
      return expr(`${valuesRef([...this.componentValues(component).path, 'warmPool', 'replicas'])} | int`);
    if (typeof value === 'string') return this.transformString(object, value, path);
    if (Array.isArray(value)) return value.map((v, i) => this.transform(object, v, [...path, i], component));
    if (typeof value !== 'object' || value === null) return value;
    const map = value as Json;
    if (at('metadata')) return this.metadataEntry(object, map, component, 'object', path);
    if (isWorkload && at('spec', 'template', 'metadata'))
      return this.metadataEntry(object, map, component, 'pod', path);
    if (isWorkload && path.length === 4 && at('spec', 'volumeClaimTemplates', path[2]!, 'metadata')) {
      return this.metadataEntry(object, map, component, 'claim', path);
    }
    if (isWorkload && at('spec', 'template', 'spec')) return podSpec(this, object, map, component, path);
    if (object.kind === 'PersistentVolumeClaim' && at('spec')) {
      const cache = cacheOfClaim(this, object);
      return cache
        ? cacheClaimSpec(this, object, cache, map, component, path)
        : claimSpec(this, object, map, component, path);
    }
    if (isWorkload && at('spec')) return this.workloadSpec(object, map, component, path);
    const selectorPosition = key === 'matchLabels' || (object.kind === 'Service' && at('spec', 'selector'));
    // The metrics Service selects every pod of the agent by its toolyard.dev/agent label, which is the fullname.
    if (selectorPosition && sameMap(map, { [AGENT_LABEL]: this.agent }))
      return { [AGENT_LABEL]: expr(`include ${this.helper('fullname')} $`) };
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

  /** A Deployment's or StatefulSet's spec: replicas of Deployments and the workspace claim are values. */
  workloadSpec(object: KubeObject, map: Json, component: string, path: Path): Json {
    const values = this.componentValues(component);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(map)) {
      // One sandbox manager: its lifecycle pass and quota checks are one process's.
      if (
        k === 'replicas' &&
        object.kind === 'Deployment' &&
        typeof v === 'number' &&
        component !== SANDBOXES_COMPONENT
      ) {
        values.workload.push(
          leaf(
            'replicas',
            component === 'agent'
              ? 'Number of agent pods (each with its own emptyDir workspace; a shared claim must be ReadWriteMany).'
              : this.isBroker(component)
                ? 'Number of broker pods (each holds the same config and secrets; the Service spreads callers over them).'
                : this.toolchainOf(component)
                  ? "Number of toolchain pods. Keep 1: an MCP session lives in one server process, and the Service spreads a client's connections over every pod."
                  : 'Number of gateway replicas.',
            { type: 'integer', minimum: 0 },
            v,
          ),
        );
        out[k] = expr(valuesRef([...values.path, 'replicas']));
      } else if (k === 'volumeClaimTemplates') {
        out[k] = volumeClaimTemplates(this, object, v as Json[], component, [...path, k]);
      } else if (
        k === 'strategy' &&
        component === 'agent' &&
        this.plan.workspace.volume.kind === 'emptyDir' &&
        (v as Json)['type'] === 'RollingUpdate'
      ) {
        // A claim mounted instead of the emptyDir (persistence.existingClaim) cannot be mounted by two pods.
        out[k] = {
          ...(v as Json),
          type: expr(
            `ternary "Recreate" "RollingUpdate" (not (empty ${valuesRef([...values.path, 'persistence', 'existingClaim'])}))`,
          ),
        };
      } else out[k] = this.transform(object, v, [...path, k], component);
    }
    return out;
  }

  /** A condition under which an object is rendered, if any. */
  objectCondition(object: KubeObject): string | undefined {
    const conditions: string[] = [];
    if (object.kind === 'ServiceAccount') {
      const component = this.serviceAccounts.get(object.metadata.name)!;
      conditions.push(`${valuesRef([...this.componentValues(component).path, 'serviceAccount', 'create'])}`);
    }
    // The shared workspace claim gives way to an existing one (agent.persistence.existingClaim).
    // A cache's new claim gives way to an existing one (agent.caches.<name>.existingClaim).
    if (object.kind === 'PersistentVolumeClaim') {
      const cache = cacheOfClaim(this, object);
      conditions.push(
        cache ? cacheClaimCondition(this, cache) : `not ${persistenceRef(this, 'existingClaim')}`,
      );
    }
    const namespace = object.metadata.namespace;
    // An object the spec puts into another namespace (a gateway's Role there) that also exists in the spec's
    // own namespace would be a duplicate when the release is installed into that other namespace: the
    // release namespace's copy stands for it then.
    const hasReleaseCopy = this.objects.some(
      (o) =>
        o.kind === object.kind &&
        o.metadata.name === object.metadata.name &&
        o.metadata.namespace === this.namespace,
    );
    if (namespace !== undefined && namespace !== this.namespace && hasReleaseCopy) {
      conditions.push(`ne ${goString(namespace)} $.Release.Namespace`);
    }
    if (conditions.length === 0) return undefined;
    return conditions.length === 1 ? conditions[0] : `and (${conditions.join(') (')})`;
  }

  objectTemplate(object: KubeObject): string {
    const tree = this.transform(object, object, [], this.componentOf(object)) as Json;
    const body = emitMap(tree, 0).join('\n');
    const condition = this.objectCondition(object);
    return condition ? `{{- if ${condition} }}\n${body}\n{{- end }}` : body;
  }

  /** The broker's values: its pod's, then `egress` (each caller's hosts and ecosystems). */
  brokerNodes(broker: ComponentValues): ValueNode[] {
    const egress = brokerEgressValues(this.plan);
    return [...componentNodes(broker), ...(egress ? [egress] : [])];
  }

  componentGroups(): {
    agent: ValueNode | undefined;
    broker: ValueNode | undefined;
    toolchains: ValueNode | undefined;
    gateways: ValueNode | undefined;
    sandboxes: ValueNode | undefined;
  } {
    const agent = this.components.get('agent');
    const broker = this.plan.broker.enabled ? this.components.get(BROKER_COMPONENT) : undefined;
    const toolchains = [...this.components.entries()].filter(([c]) => this.toolchainOf(c));
    // The metrics Service and ServiceMonitor (spec.observability) are objects of the agent's, with no values.
    const gateways = [...this.components.entries()].filter(
      ([c, values]) =>
        c !== 'agent' &&
        c !== METRICS_COMPONENT &&
        !this.toolchainOf(c) &&
        values !== broker &&
        !isSandboxComponent(this, c),
    );
    return {
      agent: agent ? group('agent', agent.description, componentNodes(agent)) : undefined,
      broker: broker ? group('broker', broker.description, this.brokerNodes(broker)) : undefined,
      toolchains:
        toolchains.length > 0
          ? group(
              'toolchains',
              'Toolchains in their own pods (placement: pod), by name.',
              toolchains.map(([, values]) =>
                group(values.path[1]!, values.description, componentNodes(values)),
              ),
            )
          : undefined,
      gateways:
        gateways.length > 0
          ? group(
              'gateways',
              'Deployed MCP gateways, by name.',
              gateways.map(([, values]) =>
                group(values.path[1]!, values.description, componentNodes(values)),
              ),
            )
          : undefined,
      sandboxes: sandboxesValues(this),
    };
  }
}
