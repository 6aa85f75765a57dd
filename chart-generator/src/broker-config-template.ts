/**
 * The broker's config.json in a chart, built by Helm from values. `templates/_broker.tpl` defines
 * `<chart>.brokerConfig` — the whole file: the spec's fixed parts as template literals, each caller's egress from
 * `broker.egress.<container>` — and `<chart>.brokerEgress`, which expands a caller's hosts and ecosystems into
 * `{host, ports}` entries exactly as the renderer does (constructs/src/broker-plan.ts, `planNamedEgress`). The
 * ConfigMap includes the config and the broker Deployment's `toolyard.dev/config-hash` is its SHA-1, so a values
 * change rolls the broker. `mustToPrettyJson` writes JSON as Go does, and so does the renderer
 * (constructs/src/go-json.ts): with default values the file is byte for byte synth's. Pure.
 */
import { EGRESS_HOST_NAME } from '../../constructs/src/broker-checks.ts';
import { brokerConfig } from '../../constructs/src/broker-config.ts';
import { DEFAULT_EGRESS_HOST_PORT } from '../../constructs/src/defaults.ts';
import { ECOSYSTEM_NAMES, ECOSYSTEMS } from '../../constructs/src/ecosystems.ts';
import type { AgentPlan, PlannedNamedEgress } from '../../constructs/src/plan.ts';
import type { ObjectLifter } from './object-lifter.ts';
import {
  type EntryNode,
  entry,
  escapeLiteral,
  expr,
  goString,
  isTemplateNode,
  yamlScalar,
} from './template-yaml.ts';
import { group, type JsonSchema, leaf, type ValueNode } from './values-model.ts';
import { pad, valuesKey, valuesRef } from './values-refs.ts';

export const BROKER_TEMPLATE_FILE = 'templates/_broker.tpl';

/** A container whose egress by name is a chart value: `broker.egress.<key>`. */
export interface EgressCaller {
  readonly name: string;
  readonly role: 'backend' | 'toolchain' | 'sandbox-manager';
  readonly pod: string;
  readonly egress: PlannedNamedEgress;
  readonly key: string;
}

/**
 * The broker's callers with egress by name (`network.egress: { hosts, ecosystems }`, or a toolchain's
 * `registries`). Containers with `none` or `open` have no values: whether a container gets proxy settings at
 * all is decided by the spec, so a value could not give egress to one that has none.
 */
export function egressCallers(plan: AgentPlan): EgressCaller[] {
  if (!plan.broker.enabled) return [];
  const declared = new Map<string, PlannedNamedEgress>([
    ...plan.backends.map((b) => [b.name, b.egress] as const),
    ...plan.toolchains.map((t) => [t.containerName, t.namedEgress] as const),
  ]);
  const callers: EgressCaller[] = [];
  const keys = new Map<string, string>();
  for (const caller of plan.broker.callers) {
    const egress = declared.get(caller.name);
    if (egress?.kind !== 'named') continue;
    const key = valuesKey(caller.name);
    const other = keys.get(key);
    if (other !== undefined)
      throw new Error(
        `containers "${other}" and "${caller.name}" would share the values key broker.egress.${key}`,
      );
    keys.set(key, caller.name);
    callers.push({ name: caller.name, role: caller.role, pod: caller.pod, egress, key });
  }
  return callers;
}

/** `network.egress.hosts` as the spec checks it (broker-checks.ts): a name, and a port the broker may open. */
export function egressHostsSchema(egressPorts: readonly number[]): JsonSchema {
  const name = EGRESS_HOST_NAME.source.replace(/^\^/, '').replace(/\$$/, '');
  const port = egressPorts.length > 0 ? `(:(${[...egressPorts].sort((a, b) => a - b).join('|')}))?` : '';
  return {
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', minLength: 1, maxLength: 260, pattern: `^${name}${port}$` },
  };
}

export const ECOSYSTEMS_SCHEMA: JsonSchema = {
  type: 'array',
  uniqueItems: true,
  items: { type: 'string', enum: [...ECOSYSTEM_NAMES] },
};

/** `broker.egress`: one group per caller with egress by name, defaults as the spec declares them. */
export function brokerEgressValues(plan: AgentPlan): ValueNode | undefined {
  const callers = egressCallers(plan);
  if (callers.length === 0) return undefined;
  const ports = plan.broker.egressPorts;
  return group(
    'egress',
    "Egress by name of each container that declares it (network.egress: {hosts, ecosystems}), through the broker's CONNECT proxy with the container's own token. The broker's config.json is built from these lists, and a change rolls the broker pod. Containers whose egress is none or open are not here: change the spec for those.",
    callers.map((caller) =>
      group(caller.key, `Container "${caller.name}" (${caller.role}, pod ${caller.pod}).`, [
        leaf(
          'hosts',
          `DNS names, or *. and a name for its subdomains, optionally with :port (one of ${ports.join(', ') || 'none'}: spec.broker.egressPorts); port ${DEFAULT_EGRESS_HOST_PORT} otherwise. Lower case; no IP literals; no pattern over a whole top-level domain.`,
          egressHostsSchema(ports),
          [...caller.egress.declaredHosts],
        ),
        leaf(
          'ecosystems',
          `Named package ecosystems, each a fixed list of hosts on port ${DEFAULT_EGRESS_HOST_PORT} (docs/broker.md has the table): ${ECOSYSTEM_NAMES.join(', ')}.`,
          ECOSYSTEMS_SCHEMA,
          [...caller.egress.ecosystems],
        ),
      ]),
    ),
  );
}

/**
 * NOTES.txt lines: each container's hosts and ecosystems as the release's values set them (a container whose
 * entry was set to null shows none, as the broker then grants it nothing).
 */
export function brokerEgressNotes(plan: AgentPlan): string[] {
  const callers = egressCallers(plan);
  if (callers.length === 0) return [];
  const list = (key: string, field: string) =>
    `{{ get (index ($.Values.broker.egress | default dict) ${goString(key)} | default dict) ${goString(field)} | default (list) | join ", " | default "none" }}`;
  return [
    '',
    "Egress by name, per container, through the broker's proxy (values broker.egress; the broker refuses",
    'every other host, and any name that resolves to a private or cluster address):',
    ...callers.map(
      (c) =>
        `  ${escapeLiteral(c.name)}: hosts ${list(c.key, 'hosts')}; ecosystems ${list(c.key, 'ecosystems')}`,
    ),
  ];
}

/** The template text that renders the broker's config.json. */
export function brokerConfigInclude(chart: string): string {
  return `include ${goString(`${chart}.brokerConfig`)} $`;
}

/** `toolyard.dev/config-hash` of the broker pod: what `brokerConfigHash` computes in the renderer. */
export function brokerConfigHashExpr(chart: string): string {
  return `${brokerConfigInclude(chart)} | sha1sum | trunc 8`;
}

/** The ConfigMap's `config.json:` entry: a block holding the rendered config. */
export function brokerConfigEntry(chart: string): EntryNode {
  return entry((indent, key) => [
    `${pad(indent)}${yamlScalar(key)}: |`,
    `${pad(indent + 2)}{{- ${brokerConfigInclude(chart)} | nindent ${indent + 2} }}`,
  ]);
}

/** A plain JSON value (strings through `literalString`) as a Go template expression. */
export function goLiteral(value: unknown, literalString: (text: string) => string): string {
  if (isTemplateNode(value) && 'text' in value) return `(${value.text})`;
  if (typeof value === 'string') return literalString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    // Decimals (pricing, sample ratios) print as Go's encoding/json prints a float64: the shortest form, the
    // same digits as JavaScript's, as long as no exponent is involved.
    if (Number.isSafeInteger(value) || (Number.isFinite(value) && !/e/i.test(String(value))))
      return String(value);
    throw new Error(`broker config: ${value} has no template literal that prints as JSON does`);
  }
  if (Array.isArray(value))
    return value.length === 0
      ? '(list)'
      : `(list ${value.map((v) => goLiteral(v, literalString)).join(' ')})`;
  if (typeof value === 'object' && value !== null) {
    const args = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => [goString(k), goLiteral(v, literalString)]);
    return args.length === 0 ? '(dict)' : `(dict ${args.join(' ')})`;
  }
  throw new Error(`broker config: a ${value === null ? 'null' : typeof value} has no template literal`);
}

/** A string of the config, with `<service>.<namespace>.svc` hosts following the release. */
export function literalStringOf(builder: ObjectLifter): (text: string) => string {
  return (text) => {
    const rewritten = builder.rewriteHosts(text);
    if (typeof rewritten === 'string') return goString(rewritten);
    if (isTemplateNode(rewritten) && 'parts' in rewritten) {
      const parts = rewritten.parts.map((p) => (typeof p === 'string' ? goString(p) : `(${p.text})`));
      return `(print ${parts.join(' ')})`;
    }
    throw new Error(`broker config: cannot template "${text}"`);
  };
}

/** Lines that fill `$table` with the ecosystems' hosts. */
function ecosystemsTable(): string[] {
  return [
    '{{- $table := dict }}',
    ...ECOSYSTEM_NAMES.map(
      (name) =>
        `{{- $_ := set $table ${goString(name)} (list ${ECOSYSTEMS[name].hosts.map((h) => goString(h)).join(' ')}) }}`,
    ),
  ];
}

/** `templates/_broker.tpl`. */
export function brokerTemplates(builder: ObjectLifter): string {
  const chart = builder.chart;
  const plan = builder.plan;
  const config = brokerConfig(plan) as unknown as Record<string, unknown>;
  const fromValues = new Map(egressCallers(plan).map((c) => [c.name, c]));
  const callers = (config['callers'] as Record<string, unknown>[]).map((caller) => {
    const values = fromValues.get(caller['name'] as string);
    if (!values) return caller;
    const path = ['broker', 'egress', values.key];
    return {
      ...caller,
      egress: expr(
        `include ${goString(`${chart}.brokerEgress`)} (dict "egress" ${valuesRef(path)} "field" ${goString(path.join('.'))}) | fromJsonArray`,
      ),
    };
  });
  // spec.observability: the collector's URL is a value (observability.endpoint), and a parent chart's
  // global.observability.endpoint sets it for a whole fleet of agent charts at once.
  const endpoint = `dig "observability" "endpoint" $.Values.observability.endpoint ($.Values.global | default dict)`;
  const routes = (config['routes'] as Record<string, unknown>[]).map((route) =>
    route['kind'] === 'telemetry'
      ? {
          ...route,
          upstream: expr(`${endpoint} | trimSuffix "/"`),
          insecureHttp: expr(`hasPrefix "http://" (${endpoint})`),
        }
      : route,
  );
  config['routes'] = routes;
  const literal = literalStringOf(builder);
  const lines: string[] = [];
  const fields: string[] = [];
  for (const [key, value] of Object.entries({ ...config, callers })) {
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || isTemplateNode(value)) {
      fields.push(goString(key), goLiteral(value, literal));
      continue;
    }
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'object')) {
      lines.push(`{{- $${key} := list }}`);
      for (const item of value) lines.push(`{{- $${key} = append $${key} ${goLiteral(item, literal)} }}`);
    } else lines.push(`{{- $${key} := ${goLiteral(value, literal)} }}`);
    fields.push(goString(key), `$${key}`);
  }
  const port = DEFAULT_EGRESS_HOST_PORT;
  const portKey = (p: string) => `printf "%05d" ${p}`;
  return `{{/*
The broker's config.json (its contract: toolchain-server/broker/config.ts), generated by toolyard from the
spec "${plan.name}". Routes, callers' tokens and routes, and denied ranges are the spec's; each caller with egress by
name takes its hosts and ecosystems from broker.egress.<container>. The broker Deployment's
toolyard.dev/config-hash is the first 8 hex digits of this text's SHA-1, so a change rolls the broker.
Argument: the root context.
*/}}
{{- define ${goString(`${chart}.brokerConfig`)} -}}
${lines.join('\n')}
{{- mustToPrettyJson (dict ${fields.join(' ')}) }}
{{- end }}

{{/*
A caller's egress entries as JSON: [{"host", "ports"}] sorted by host, ports ascending — the hosts of its
ecosystems on port ${port}, and its hosts ("name", or "name:port"), merged by host, as the renderer expands them
(constructs/src/broker-plan.ts, planNamedEgress; the table is docs/broker.md's). The values schema checks
both lists; an unknown ecosystem also fails here (e.g. with --skip-schema-validation).
Argument: (dict "egress" .Values.broker.egress.<container> "field" "broker.egress.<container>").
*/}}
{{- define ${goString(`${chart}.brokerEgress`)} -}}
${ecosystemsTable().join('\n')}
{{- $egress := .egress | default dict }}
{{- $byHost := dict }}
{{- range $name := get $egress "ecosystems" | default (list) }}
{{- if not (hasKey $table $name) }}
{{- fail (printf "%s.ecosystems: unknown ecosystem %q (known: %s)" $.field $name (keys $table | sortAlpha | join ", ")) }}
{{- end }}
{{- range $host := get $table $name }}
{{- $ports := get $byHost $host | default dict }}
{{- $_ := set $ports (${portKey(String(port))}) ${port} }}
{{- $_ = set $byHost $host $ports }}
{{- end }}
{{- end }}
{{- range $text := get $egress "hosts" | default (list) }}
{{- $host := $text }}
{{- $port := ${port} }}
{{- if regexMatch "^[^:]*:[0-9]{1,5}$" $text }}
{{- $host = regexReplaceAll ":[0-9]{1,5}$" $text "" }}
{{- $port = regexReplaceAll "^[^:]*:" $text "" | atoi }}
{{- end }}
{{- $ports := get $byHost $host | default dict }}
{{- $_ := set $ports (${portKey('$port')}) $port }}
{{- $_ = set $byHost $host $ports }}
{{- end }}
{{- $entries := list }}
{{- range $host := keys $byHost | sortAlpha }}
{{- $ports := get $byHost $host }}
{{- $sorted := list }}
{{- range $key := keys $ports | sortAlpha }}
{{- $sorted = append $sorted (get $ports $key) }}
{{- end }}
{{- $entries = append $entries (dict "host" $host "ports" $sorted) }}
{{- end }}
{{- toJson $entries }}
{{- end }}
`;
}
