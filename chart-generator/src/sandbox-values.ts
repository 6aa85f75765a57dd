/**
 * `spec.sandboxes` in a chart (docs/helm.md#sandboxes). The sandbox manager's config.json is built by Helm from
 * values, as the broker's is (broker-config-template.ts): `templates/_sandboxes.tpl` defines
 * `<chart>.sandboxManagerConfig` — the spec's fixed parts as template literals; every object the manager names
 * (warm pools, the Hosts of sandbox servers, its own label, the pods' ServiceAccount, ConfigMaps and Secrets of the
 * `kubernetes` provider's pods) by the release's names; the quota and each template's idle timeout and retention
 * from `sandboxes.quota` and `sandboxes.templates.<name>` — and `<chart>.quantity`, which reads a Kubernetes
 * quantity as the renderer does (constructs/src/sandbox-plan.ts, `quantityValue`). The manager's
 * `toolyard.dev/config-hash` is the SHA-1 prefix of that text, so a values change rolls the manager. Each
 * SandboxWarmPool's replicas is `sandboxes.templates.<name>.warmPool.replicas`. With default values every file is
 * byte for byte synth's. Pure.
 */
import { CONFIG_HASH_ANNOTATION as CONFIG_HASH } from '../../constructs/src/agent-workload.ts';
import { LABEL, MANAGED_BY, PART_OF } from '../../constructs/src/names.ts';
import type { AgentPlan } from '../../constructs/src/plan.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import {
  sandboxManagerConfig,
  sandboxManagerConfigHash,
} from '../../constructs/src/sandbox-manager-config.ts';
import {
  DEFAULT_SANDBOX_IDLE_MINUTES,
  DEFAULT_SANDBOX_RETENTION_HOURS,
  type PlannedSandboxes,
  type PlannedSandboxTemplate,
  SANDBOX_MANAGER_LABEL,
  SANDBOXES_COMPONENT,
} from '../../constructs/src/sandbox-plan.ts';
import { goLiteral, literalStringOf } from './broker-config-template.ts';
import { type ComponentValues, componentNodes } from './component-values.ts';
import type { ObjectLifter, Path } from './object-lifter.ts';
import {
  type EntryNode,
  type ExprNode,
  entry,
  escapeLiteral,
  expr,
  goString,
  isTemplateNode,
  templatedString,
  yamlScalar,
} from './template-yaml.ts';
import { group, type JsonSchema, leaf, type ValueNode } from './values-model.ts';
import { dictLiteral, pad, valuesKey, valuesRef } from './values-refs.ts';

/**
 * What the sandbox parts of a chart take from the chart builder (chart-builder.ts, which calls them): its plan,
 * chart name, component values and its helpers for names, hosts and strings. An interface, so this module does
 * not import the builder that imports it.
 */
export interface ChartBuilder extends ObjectLifter {
  readonly components: ReadonlyMap<string, ComponentValues>;
  nameExpr(name: string, kind?: string): ExprNode | undefined;
  transformString(object: KubeObject, value: string, path: Path): unknown;
}

export const SANDBOXES_TEMPLATE_FILE = 'templates/_sandboxes.tpl';

/** The component of the sandbox pods' ServiceAccount (shared by every template). */
export const SANDBOX_PODS_COMPONENT = 'sandbox';

/** A quantity the chart reads (`<chart>.quantity`): the spec's Quantity without `n`, `u`, `E` and `Ei`. */
const QUOTA_QUANTITY: JsonSchema = {
  type: 'string',
  pattern: '^$|^[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]{1,2}|[mkMGTP]|[KMGTP]i)?$',
};

const COUNT = (minimum: number): JsonSchema => ({ type: 'integer', minimum });

export function sandboxTemplateValuesPath(template: PlannedSandboxTemplate): string[] {
  return ['sandboxes', 'templates', valuesKey(template.name)];
}

/** `sandboxes`: the manager's pod, the sandbox pods' ServiceAccount, the quota, and per template its lifecycle. */
export function sandboxesValues(builder: ChartBuilder): ValueNode | undefined {
  const sandboxes = builder.plan.sandboxes;
  if (!sandboxes) return undefined;
  const manager = builder.components.get(SANDBOXES_COMPONENT);
  const pods = builder.components.get(SANDBOX_PODS_COMPONENT);
  const kubernetes = sandboxes.provider === 'kubernetes';
  return group(
    'sandboxes',
    `Sandboxes (provider ${sandboxes.provider}): the sandbox manager, the pods of every template, the agent's quota and each template's warm pool and lifecycle. The manager's config.json is built from these values, and a change rolls the manager.`,
    [
      ...(manager ? [group('manager', manager.description, componentNodes(manager))] : []),
      ...(pods ? [group('pods', pods.description, componentNodes(pods))] : []),
      group(
        'quota',
        'Per-agent quota the manager enforces: a create or resume that would go over it is refused with a clear error.',
        [
          leaf(
            'maxSandboxes',
            'Sandboxes running at once (the warm pool does not count until claimed).',
            COUNT(1),
            sandboxes.quota.maxSandboxes,
          ),
          leaf(
            'maxSessions',
            'Sandboxes kept at all, running or stopped (each holds a workspace volume).',
            COUNT(1),
            sandboxes.quota.maxSessions,
          ),
          leaf(
            'cpu',
            "Total CPU of the running sandboxes (each counts its container's limit, else its request), a Kubernetes quantity; empty: no limit.",
            QUOTA_QUANTITY,
            sandboxes.quotaQuantities.cpu,
          ),
          leaf(
            'memory',
            "Total memory of the running sandboxes (each counts its container's limit, else its request), a Kubernetes quantity; empty: no limit.",
            QUOTA_QUANTITY,
            sandboxes.quotaQuantities.memory,
          ),
        ],
      ),
      group(
        'templates',
        'Sandbox templates, by name.',
        sandboxes.templates.map((t) =>
          group(
            valuesKey(t.name),
            `Template "${t.name}" (${kubernetes ? 'pods and workspace claims the manager creates' : `SandboxTemplate and SandboxWarmPool ${t.objectName}`}; image ${t.toolchain.image.reference}).`,
            [
              ...(kubernetes
                ? []
                : [
                    group('warmPool', 'The SandboxWarmPool.', [
                      leaf(
                        'replicas',
                        'Ready sandboxes kept waiting for a claim (a claim from the pool is ready in under a second; 0: every sandbox starts cold).',
                        COUNT(0),
                        t.warmPoolReplicas,
                      ),
                    ]),
                  ]),
              leaf(
                'idleTimeoutMinutes',
                `Minutes without a call after which a sandbox is stopped (its workspace kept); default of the spec ${DEFAULT_SANDBOX_IDLE_MINUTES}.`,
                COUNT(1),
                t.idleTimeoutSeconds / 60,
              ),
              leaf(
                'retentionHours',
                `Hours a stopped sandbox and its workspace are kept before they are destroyed (0: at once); default of the spec ${DEFAULT_SANDBOX_RETENTION_HOURS}.`,
                COUNT(0),
                t.retentionSeconds / 3600,
              ),
            ],
          ),
        ),
      ),
    ],
  );
}

/** NOTES.txt lines: the quota and each template's pool and lifecycle as the release's values set them. */
export function sandboxesNotes(plan: AgentPlan): string[] {
  const sandboxes = plan.sandboxes;
  if (!sandboxes) return [];
  const quota = (field: string) => `{{ ${valuesRef(['sandboxes', 'quota', field])} }}`;
  const unlimited = (field: string) =>
    `{{ ${valuesRef(['sandboxes', 'quota', field])} | default "no limit" }}`;
  return [
    '',
    `Sandboxes (provider ${sandboxes.provider}; values sandboxes.quota and sandboxes.templates.<name>):`,
    `  quota: ${quota('maxSandboxes')} running, ${quota('maxSessions')} kept; cpu ${unlimited('cpu')}, memory ${unlimited('memory')}`,
    ...sandboxes.templates.map((t) => {
      const path = sandboxTemplateValuesPath(t);
      const pool =
        sandboxes.provider === 'kubernetes'
          ? 'always cold'
          : `warm pool {{ ${valuesRef([...path, 'warmPool', 'replicas'])} }}`;
      return `  ${escapeLiteral(t.name)}: ${pool}; stopped after {{ ${valuesRef([...path, 'idleTimeoutMinutes'])} }} min idle, destroyed {{ ${valuesRef([...path, 'retentionHours'])} }} h after stop`;
    }),
  ];
}

/** Whether a component is one of the sandboxes' (the manager, the pods' ServiceAccount, a template). */
export function isSandboxComponent(builder: ChartBuilder, component: string): boolean {
  const sandboxes = builder.plan.sandboxes;
  if (!sandboxes) return false;
  return (
    component === SANDBOXES_COMPONENT ||
    component === SANDBOX_PODS_COMPONENT ||
    sandboxes.templates.some((t) => t.component === component)
  );
}

export function sandboxTemplateOf(builder: ChartBuilder, component: string) {
  return builder.plan.sandboxes?.templates.find((t) => t.component === component);
}

/** The template text that renders the manager's config.json. */
function configInclude(chart: string): string {
  return `include ${goString(`${chart}.sandboxManagerConfig`)} $`;
}

/** `toolyard.dev/config-hash` of the manager's pod, checked against the renderer's. */
export function sandboxManagerHashExpr(builder: ChartBuilder, rendered: string | undefined): string {
  const expected = sandboxManagerConfigHash(builder.plan, builder.plan.sandboxes!);
  if (rendered !== expected)
    throw new Error(
      `internal error: the sandbox manager's ${CONFIG_HASH} is ${rendered}, not the SHA-1 prefix ${expected} of its config`,
    );
  return `${configInclude(builder.chart)} | sha1sum | trunc 8`;
}

/** The manager ConfigMap's `config.json:` entry. */
export function sandboxManagerConfigEntry(chart: string): EntryNode {
  return entry((indent, key) => [
    `${pad(indent)}${yamlScalar(key)}: |`,
    `${pad(indent + 2)}{{- ${configInclude(chart)} | nindent ${indent + 2} }}`,
  ]);
}

/**
 * A template server's config.json (or any text) with the template's object name, which the server allows as
 * Host and which has no Service to be rewritten by `rewriteHosts`, as the release names it.
 */
export function rewriteSandboxNames(builder: ChartBuilder, text: string, names: readonly string[]): unknown {
  const parts: (string | ExprNode)[] = [];
  const push = (piece: string) => {
    const rewritten = builder.rewriteHosts(piece);
    if (typeof rewritten === 'string') parts.push(rewritten);
    else if (isTemplateNode(rewritten) && 'parts' in rewritten) parts.push(...rewritten.parts);
    else throw new Error(`cannot template "${piece}"`);
  };
  const pattern = new RegExp(
    `"(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})"`,
    'g',
  );
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    push(text.slice(last, match.index));
    parts.push('"', expr(builder.nameExpr(match[1]!)!.text), '"');
    last = match.index + match[0].length;
  }
  push(text.slice(last));
  return templatedString(parts);
}

/** A value of the config as a Go template literal; strings as the chart names them at `path` of a Pod. */
function podLiteral(builder: ChartBuilder, value: unknown, path: Path, pod: KubeObject): string {
  if (typeof value === 'string') {
    const node = builder.transformString(pod, value, path);
    if (typeof node === 'string') return goString(node);
    if (isTemplateNode(node) && 'parts' in node)
      return `(print ${node.parts.map((p) => (typeof p === 'string' ? goString(p) : `(${p.text})`)).join(' ')})`;
    // A Secret's name is quoted for YAML (secretExpr); here it is a string of the config.
    if (isTemplateNode(node) && 'text' in node) return `(${node.text.replace(/ \| quote$/, '')})`;
    throw new Error(`sandbox manager config: cannot template ${path.join('.')}`);
  }
  if (Array.isArray(value))
    return value.length === 0
      ? '(list)'
      : `(list ${value.map((v, i) => podLiteral(builder, v, [...path, i], pod)).join(' ')})`;
  if (typeof value === 'object' && value !== null) {
    const args = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => [goString(k), podLiteral(builder, v, [...path, k], pod)]);
    return args.length === 0 ? '(dict)' : `(dict ${args.join(' ')})`;
  }
  return goLiteral(value, goString);
}

/** `templates/_sandboxes.tpl`. */
export function sandboxesTemplates(builder: ChartBuilder): string {
  const chart = builder.chart;
  const plan = builder.plan;
  const sandboxes = plan.sandboxes as PlannedSandboxes;
  const config = sandboxManagerConfig(plan, sandboxes) as unknown as Record<string, unknown>;
  const literal = literalStringOf(builder);
  const name = (objectName: string) => expr(builder.nameExpr(objectName)!.text);
  const fullname = expr(`include ${builder.helper('fullname')} $`);
  const int = (path: string[]) => expr(`${valuesRef(path)} | int`);
  const quotaPath = ['sandboxes', 'quota'];
  const quantity = (field: 'cpu' | 'memory', scale: number) =>
    `include ${builder.helper('quantity')} (dict "value" ${valuesRef([...quotaPath, field])} "scale" ${scale} "field" ${goString(`sandboxes.quota.${field}`)}) | atoi`;
  const ref = (field: string) => `${valuesRef([...quotaPath, field])} | int`;
  // What the spec's checks refuse across fields (constructs/src/sandbox-checks.ts), refused here for values.
  const checks = [
    `{{- $cpuMillis := ${quantity('cpu', 1000)} }}`,
    `{{- $memoryBytes := ${quantity('memory', 1)} }}`,
    `{{- if lt (${ref('maxSessions')}) (${ref('maxSandboxes')}) }}`,
    `{{- fail (printf "sandboxes.quota.maxSessions %d is below sandboxes.quota.maxSandboxes %d: running sandboxes are kept sandboxes too" (${ref('maxSessions')}) (${ref('maxSandboxes')})) }}`,
    '{{- end }}',
    ...sandboxes.templates.flatMap((t) => [
      `{{- if and (gt $cpuMillis 0) (lt $cpuMillis ${t.cpuMillis}) }}`,
      `{{- fail (printf "sandboxes.quota.cpu (%dm) is below what one sandbox of template %q counts (${t.cpuMillis}m): none could start" $cpuMillis ${goString(t.name)}) }}`,
      '{{- end }}',
      `{{- if and (gt $memoryBytes 0) (lt $memoryBytes ${t.memoryBytes}) }}`,
      `{{- fail (printf "sandboxes.quota.memory (%d bytes) is below what one sandbox of template %q counts (${t.memoryBytes} bytes): none could start" $memoryBytes ${goString(t.name)}) }}`,
      '{{- end }}',
    ]),
  ];
  const templates = (config['templates'] as Record<string, unknown>[]).map((entryConfig, i) => {
    const t = sandboxes.templates[i]!;
    const path = sandboxTemplateValuesPath(t);
    const out: Record<string, unknown> = {
      ...entryConfig,
      serverHost: name(t.serverHost),
      idleTimeoutSeconds: expr(`mul ${valuesRef([...path, 'idleTimeoutMinutes'])} 60`),
      retentionSeconds: expr(`mul ${valuesRef([...path, 'retentionHours'])} 3600`),
    };
    if (entryConfig['warmPool'] !== undefined) out['warmPool'] = name(t.objectName);
    const pod = entryConfig['pod'] as Record<string, unknown> | undefined;
    if (pod) {
      const podObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: t.objectName } } as KubeObject;
      const templated: readonly string[] = [LABEL.component, LABEL.instance, LABEL.name, LABEL.agent];
      const extra: Record<string, string> = Object.fromEntries(
        Object.entries(plan.names.labels(t.component, plan.labels)).filter(
          ([k]) => !(k in plan.labels) && !templated.includes(k),
        ),
      );
      // The labels the template's NetworkPolicy selects, as the chart's selectorLabels make them; the release's
      // agent name; the spec's labels as commonLabels. Not Helm's: these pods are the manager's, not the release's.
      const fixed = { ...extra, [LABEL.partOf]: PART_OF, [LABEL.managedBy]: MANAGED_BY };
      out['pod'] = {
        ...pod,
        metadata: {
          labels: expr(
            `merge ${dictLiteral(fixed)} (dict ${goString(LABEL.agent)} (include ${builder.helper('fullname')} $)) (include ${builder.helper('selectorLabels')} (dict "context" $ "component" ${goString(t.component)}) | fromYaml) ($.Values.commonLabels | default dict)`,
          ),
          annotations: expr('merge (dict) ($.Values.commonAnnotations | default dict)'),
        },
        spec: expr(podLiteral(builder, pod['spec'], ['spec'], podObject)),
      };
    }
    return out;
  });
  const full: Record<string, unknown> = {
    ...config,
    agent: fullname,
    namespace: expr('$.Release.Namespace'),
    labels: {
      [LABEL.agent]: fullname,
      [SANDBOX_MANAGER_LABEL]: name(sandboxes.objectName),
    },
    quota: {
      maxSandboxes: int([...quotaPath, 'maxSandboxes']),
      maxSessions: int([...quotaPath, 'maxSessions']),
      cpuMillis: expr('$cpuMillis'),
      memoryBytes: expr('$memoryBytes'),
    },
    templates,
  };
  const lines: string[] = [...checks];
  const fields: string[] = [];
  for (const [key, value] of Object.entries(full)) {
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || isTemplateNode(value)) {
      fields.push(goString(key), goLiteral(value, literal));
      continue;
    }
    if (Array.isArray(value)) {
      lines.push(`{{- $${key} := list }}`);
      for (const item of value) lines.push(`{{- $${key} = append $${key} ${goLiteral(item, literal)} }}`);
    } else lines.push(`{{- $${key} := ${goLiteral(value, literal)} }}`);
    fields.push(goString(key), `$${key}`);
  }
  return `{{/*
The sandbox manager's config.json (its contract: toolchain-server/sandbox-manager/config.ts), generated by
toolyard from the spec "${plan.name}". Every object it names follows the release's names; the quota is
sandboxes.quota (refused, as the spec's checks refuse it, when it is below what one sandbox counts or keeps fewer
than it runs), each template's idle timeout and retention sandboxes.templates.<name>. The manager Deployment's
toolyard.dev/config-hash is the first 8 hex digits of this text's SHA-1, so a change rolls the manager.
Argument: the root context.
*/}}
{{- define ${goString(`${chart}.sandboxManagerConfig`)} -}}
${lines.join('\n')}
{{- mustToPrettyJson (dict ${fields.join(' ')}) }}
{{- end }}

{{/*
A Kubernetes quantity times "scale", rounded, as decimal text ("" is 0): "500m" scale 1000 is "500", "12Gi"
scale 1 is "12884901888" — as the renderer reads quantities (constructs/src/sandbox-plan.ts, quantityValue).
The values schema checks the form; a quantity it cannot read also fails here (e.g. with --skip-schema-validation).
Argument: (dict "value" "12Gi" "scale" 1 "field" "sandboxes.quota.memory").
*/}}
{{- define ${goString(`${chart}.quantity`)} -}}
{{- $text := .value | default "" | toString | trimPrefix "+" }}
{{- if not $text }}
{{- 0 }}
{{- else }}
{{- $match := regexFindAll "^([0-9]+(\\\\.[0-9]*)?|\\\\.[0-9]+)([eE][-+]?[0-9]{1,2}|[mkMGTP]|[KMGTP]i)?$" $text -1 }}
{{- if not $match }}
{{- fail (printf "%s: %q is not a Kubernetes quantity (e.g. 500m, 4, 8Gi)" .field $text) }}
{{- end }}
{{- $number := regexFind "^([0-9]+(\\\\.[0-9]*)?|\\\\.[0-9]+)" $text }}
{{- $suffix := trimPrefix $number $text }}
{{- $factors := dict "" 1.0 "m" 0.001 "k" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 "P" 1000000000000000.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "Pi" 1125899906842624.0 }}
{{- $factor := 1.0 }}
{{- if hasKey $factors $suffix }}
{{- $factor = get $factors $suffix }}
{{- else }}
{{- $exponent := regexReplaceAll "^[eE][+]?" $suffix "" | atoi }}
{{- range until (ternary (sub 0 $exponent) $exponent (lt $exponent 0) | int) }}
{{- $factor = ternary (divf $factor 10) (mulf $factor 10) (lt $exponent 0) }}
{{- end }}
{{- end }}
{{- round (mulf (float64 $number) $factor .scale) 0 | int64 }}
{{- end }}
{{- end }}
`;
}
