/**
 * `templates/tests/`: the chart's `helm test`. A pod (Pod Security restricted, no ServiceAccount token) checks
 * every toolchain's readiness endpoint and every deployed gateway's Service. Everything it needs exists only
 * while the test runs (test hooks): a Service in front of the toolchains' probe listeners, and NetworkPolicies
 * that let the test pod — and nothing else — reach exactly those ports; NetworkPolicies add up, so the
 * agent's and gateways' own policies stay as rendered. Targets, ports and paths come from the rendered objects.
 */
import type { KubeObject } from '../../constructs/src/render.ts';
import type { ChartBuilder } from './chart-builder.ts';
import { HELM_TEST_SCRIPT } from './helm-test-script.ts';
import { parseImage } from './image-reference.ts';
import { imageValues } from './image-values.ts';
import { type ExprNode, emitMap, entry, expr, goString, templatedString } from './template-yaml.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { pad, valuesRef } from './values-refs.ts';
import { CONTAINER_SECURITY_CONTEXT, POD_SECURITY_CONTEXT, RESOURCES } from './values-schemas.ts';

type Json = Readonly<Record<string, unknown>>;

/** The component label of the test's objects (never a component of the agent: those are agent, gateway-*). */
export const TEST_COMPONENT = 'helm-test';
const NODE = '/opt/toolyard/bin/node';
const TEST_RESOURCES = { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } };

/** A check of the test pod: a Service (by the rendered object's name) and port, HTTP path or TCP. */
export interface HelmTestCheck {
  readonly label: string;
  /** The rendered Service name, or undefined for the test's own Service. */
  readonly service: string | undefined;
  readonly port: number;
  readonly path?: string;
  /** The pods the check reaches, by component, and the port on them. */
  readonly component: string;
  readonly targetPort: number;
}

export interface HelmTest {
  readonly files: ReadonlyMap<string, string>;
  readonly values: ValueNode;
  readonly checks: readonly HelmTestCheck[];
}

function podSpecOf(object: KubeObject | undefined): Json | undefined {
  return ((object?.['spec'] as Json | undefined)?.['template'] as Json | undefined)?.['spec'] as
    | Json
    | undefined;
}

function httpGet(container: Json | undefined): { path: string; port: number } | undefined {
  const get = (container?.['readinessProbe'] as Json | undefined)?.['httpGet'] as Json | undefined;
  return get && typeof get['port'] === 'number'
    ? { path: String(get['path']), port: get['port'] }
    : undefined;
}

/**
 * What the test checks: each toolchain sidecar's readiness probe, each toolchain pod's readiness through its
 * Service (the MCP listener answers `/readyz` without a token, and the Service is what backends use), each
 * deployed gateway's Service.
 */
export function helmTestChecks(builder: ChartBuilder): HelmTestCheck[] {
  const checks: HelmTestCheck[] = [];
  const workloads = builder.objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  const agentPod = podSpecOf(workloads.find((o) => builder.componentOf(o) === 'agent'));
  for (const toolchain of builder.plan.toolchains) {
    const container = ((agentPod?.['containers'] ?? []) as Json[]).find(
      (c) => c['name'] === toolchain.containerName,
    );
    const probe = httpGet(container);
    if (!probe) continue;
    checks.push({
      label: `toolchain ${toolchain.name} readiness`,
      service: undefined,
      port: probe.port,
      path: probe.path,
      component: 'agent',
      targetPort: probe.port,
    });
  }
  for (const service of builder.objects.filter((o) => o.kind === 'Service')) {
    const component = builder.componentOf(service);
    const toolchain = builder.toolchainOf(component);
    if (toolchain) {
      checks.push({
        label: `toolchain ${toolchain.name} readiness`,
        service: service.metadata.name,
        port: toolchain.port,
        path: '/readyz',
        component,
        targetPort: toolchain.port,
      });
      continue;
    }
    if (!component.startsWith('gateway-')) continue;
    const port = ((service['spec'] as Json)['ports'] as Json[])[0]!;
    const pod = podSpecOf(workloads.find((o) => builder.componentOf(o) === component));
    const container = ((pod?.['containers'] ?? []) as Json[])[0];
    const probe = httpGet(container);
    const containerPort = ((container?.['ports'] ?? []) as Json[]).find(
      (p) => p['name'] === port['targetPort'] || p['containerPort'] === port['targetPort'],
    );
    checks.push({
      label: `gateway ${component.slice('gateway-'.length)} Service`,
      service: service.metadata.name,
      port: Number(port['port']),
      ...(probe ? { path: probe.path } : {}),
      component,
      targetPort: Number(containerPort?.['containerPort'] ?? port['port']),
    });
  }
  return checks;
}

/** A suffix for the test's object names that no rendered object's name starts with. */
function testSuffix(builder: ChartBuilder): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? 'test' : `test-${n}`;
    if (![...builder.objectNames].some((name) => name.startsWith(`${builder.agent}-${suffix}`)))
      return suffix;
  }
}

/** The `tests` values, and the test's templates; undefined when there is nothing to check. */
export function helmTest(builder: ChartBuilder): HelmTest | undefined {
  const checks = helmTestChecks(builder);
  if (checks.length === 0) return undefined;
  const suffix = testSuffix(builder);
  const h = (name: string): string => builder.helper(name);
  const ref = (...k: string[]): string => valuesRef(['tests', ...k]);
  const name = (extra: string, max: number): ExprNode =>
    builder.objectNameExpr(extra ? `${suffix}-${extra}` : suffix, max);
  const workloads = builder.objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  const agentPod = podSpecOf(workloads.find((o) => builder.componentOf(o) === 'agent'))!;
  const image = parseImage(builder.plan.toolchainServerImage.reference);

  const values = group(
    'tests',
    "`helm test`: a pod that checks every toolchain's readiness endpoint (a toolchain pod's through its Service) and every gateway's Service (with NetworkPolicies that let only it through while it runs).",
    [
      leaf('enabled', 'Render the test hooks (templates/tests/).', { type: 'boolean' }, true),
      imageValues(
        'Image of the test pod: one with Node at /opt/toolyard/bin/node (the toolchain server image).',
        image,
        builder.plan.toolchainServerImage.pullPolicy,
      ),
      leaf('resources', 'Resource requests and limits of the test pod.', RESOURCES, TEST_RESOURCES),
      leaf(
        'podSecurityContext',
        'Security context of the test pod, merged over these restricted defaults; null removes a field.',
        POD_SECURITY_CONTEXT,
        agentPod['securityContext'],
      ),
      leaf(
        'securityContext',
        'Security context of the test container, merged over these restricted defaults; null removes a field.',
        CONTAINER_SECURITY_CONTEXT,
        ((agentPod['containers'] as Json[])[0] as Json)['securityContext'],
      ),
    ],
  );

  const metadata = (objectName: ExprNode, weight: string) =>
    entry((indent, key) => [
      `${pad(indent)}${key}:`,
      ...builder.annotationsLines(
        `(dict "helm.sh/hook" "test" "helm.sh/hook-weight" ${goString(weight)} "helm.sh/hook-delete-policy" "before-hook-creation,hook-succeeded")`,
        indent + 2,
      ),
      ...builder.labelsInclude(TEST_COMPONENT, indent + 2),
      `${pad(indent + 2)}name: {{ ${objectName.text} }}`,
      `${pad(indent + 2)}namespace: {{ ${builder.namespaceExpr().text} }}`,
    ]);
  const selector = (component: string) =>
    entry((indent, key) => [
      `${pad(indent)}${key}:`,
      `${pad(indent + 2)}{{- include ${h('selectorLabels')} (dict "context" $ "component" ${goString(component)}) | nindent ${indent + 2} }}`,
    ]);
  const host = (check: HelmTestCheck): ExprNode =>
    check.service === undefined ? name('', 63) : builder.nameExpr(check.service, 'Service')!;
  const target = (check: HelmTestCheck) =>
    templatedString([
      check.path === undefined ? 'tcp://' : 'http://',
      expr(host(check).text),
      '.',
      expr('$.Release.Namespace'),
      `.svc:${check.port}${check.path ?? ''}#${check.label}`,
    ]);

  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: metadata(name('', 63), '0'),
    spec: {
      automountServiceAccountToken: false,
      containers: [
        {
          args: checks.map(target),
          command: [NODE, '-e', HELM_TEST_SCRIPT],
          image: expr(
            `include ${h('image')} (dict "image" ${ref('image')} "global" $.Values.global) | quote`,
          ),
          imagePullPolicy: expr(`${ref('image')}.pullPolicy | quote`),
          name: 'check',
          resources: entry((indent) => [
            `${pad(indent)}resources:`,
            `${pad(indent + 2)}{{- toYaml ${ref('resources')} | nindent ${indent + 2} }}`,
          ]),
          securityContext: entry((indent) => [
            `${pad(indent)}securityContext:`,
            `${pad(indent + 2)}{{- include ${h('securityContext')} (dict "context" $ "securityContext" ${ref('securityContext')}) | nindent ${indent + 2} }}`,
          ]),
        },
      ],
      enableServiceLinks: false,
      '\u0000imagePullSecrets': entry((indent) => [
        `${pad(indent)}{{- with include ${h('imagePullSecrets')} $ }}`,
        `${pad(indent)}imagePullSecrets:`,
        `${pad(indent + 2)}{{- . | nindent ${indent + 2} }}`,
        `${pad(indent)}{{- end }}`,
      ]),
      restartPolicy: 'Never',
      securityContext: entry((indent) => [
        `${pad(indent)}securityContext:`,
        `${pad(indent + 2)}{{- include ${h('securityContext')} (dict "context" $ "securityContext" ${ref('podSecurityContext')}) | nindent ${indent + 2} }}`,
      ]),
    },
  };
  const enabled = `{{- if ${ref('enabled')} }}`;
  const files = new Map<string, string>();
  files.set('templates/tests/helm-test-pod.yaml', `${enabled}\n${emitMap(pod, 0).join('\n')}\n{{- end }}\n`);

  const toolchainChecks = checks.filter((c) => c.service === undefined);
  if (toolchainChecks.length > 0) {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: metadata(name('', 63), '-5'),
      spec: {
        ports: toolchainChecks.map((c) => ({
          name: `health-${c.port}`,
          port: c.port,
          protocol: 'TCP',
          targetPort: c.port,
        })),
        selector: selector('agent'),
        type: 'ClusterIP',
      },
    };
    files.set(
      'templates/tests/helm-test-service.yaml',
      `${enabled}\n${emitMap(service, 0).join('\n')}\n{{- end }}\n`,
    );
  }

  const agentPolicy = builder.objects.find(
    (o) => o.kind === 'NetworkPolicy' && builder.componentOf(o) === 'agent',
  );
  if (agentPolicy) {
    const dns = ((agentPolicy['spec'] as Json)['egress'] as Json[]).filter((rule) =>
      ((rule['ports'] ?? []) as Json[]).some((p) => p['port'] === 53),
    );
    const byComponent = new Map<string, number[]>();
    for (const check of checks) {
      byComponent.set(check.component, [
        ...new Set([...(byComponent.get(check.component) ?? []), check.targetPort]),
      ]);
    }
    const ports = (list: readonly number[]) => list.map((port) => ({ port, protocol: 'TCP' }));
    const testPolicy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: metadata(name('', 253), '-5'),
      spec: {
        egress: [
          ...dns.map((rule, i) => builder.transform(agentPolicy, rule, ['spec', 'egress', i], 'agent')),
          ...[...byComponent].map(([component, list]) => ({
            ports: ports(list),
            to: [{ podSelector: { matchLabels: selector(component) } }],
          })),
        ],
        podSelector: { matchLabels: selector(TEST_COMPONENT) },
        policyTypes: ['Ingress', 'Egress'],
      },
    };
    const targetPolicies = [...byComponent].map(([component, list]) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: metadata(name(component, 253), '-5'),
      spec: {
        ingress: [{ from: [{ podSelector: { matchLabels: selector(TEST_COMPONENT) } }], ports: ports(list) }],
        podSelector: { matchLabels: selector(component) },
        policyTypes: ['Ingress'],
      },
    }));
    const docs = [testPolicy, ...targetPolicies].map((doc) => emitMap(doc, 0).join('\n'));
    files.set(
      'templates/tests/helm-test-networkpolicy.yaml',
      `{{- if and ${ref('enabled')} $.Values.networkPolicy.enabled }}\n${docs.join('\n---\n')}\n{{- end }}\n`,
    );
  }
  return { files, values, checks };
}
