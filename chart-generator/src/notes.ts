/** `templates/NOTES.txt`: what was installed, how to reach the agent, and each pod's effective egress. Pure. */
import { allPodEgress, describeDestination, describePorts } from '../../constructs/src/effective-egress.ts';
import { toolchainEgressSummary } from '../../constructs/src/egress-summary.ts';
import type { AgentPlan } from '../../constructs/src/plan.ts';
import { deployedGateways, podToolchains, sidecarToolchains } from '../../constructs/src/plan.ts';
import { brokerEgressNotes } from './broker-config-template.ts';
import type { ChartBuilder } from './chart-builder.ts';
import { sandboxesNotes } from './sandbox-values.ts';
import { createSecretArgs, describeUse, generatedTokenKeys, type SecretSummary } from './secret-refs.ts';
import { escapeLiteral, goString } from './template-yaml.ts';
import { valuesKey } from './values-refs.ts';

/** NOTES.txt runs with the root context as `.`; generated expressions use `$`, which is the same there. */
function inNotes(text: string): string {
  return `{{ ${text} }}`;
}

export function chartNotes(
  builder: ChartBuilder,
  plan: AgentPlan,
  secrets: readonly SecretSummary[],
  hasTest: boolean,
): string {
  const h = (name: string): string => builder.helper(name);
  const nameOf = (objectName: string, kind?: string): string => {
    const e = builder.nameExpr(objectName, kind);
    return e ? inNotes(e.text) : escapeLiteral(objectName);
  };
  const lit = escapeLiteral;
  const workload = builder.workloadKind;
  const lines: string[] = [
    `{{- $fullname := include ${h('fullname')} . -}}`,
    `toolyard agent "${lit(plan.name)}" is installed as {{ $fullname }} in namespace {{ .Release.Namespace }}`,
    `(release {{ .Release.Name }}, chart {{ include ${h('chart')} . }}).`,
    '',
    'Installed:',
    `  - ${workload}/${nameOf(plan.name, workload)}: the agent pod, no Kubernetes API token mounted`,
    ...plan.backends.map((b) => `      backend ${lit(b.name)} (${b.type}) on port ${b.port}`),
    ...sidecarToolchains(plan).map(
      (t) =>
        `      toolchain ${lit(t.name)}: sidecar on 127.0.0.1:${t.port}, tools ${t.mode}, ${lit(toolchainEgressSummary(plan, t))}`,
    ),
    `  - Service/{{ $fullname }}, ServiceAccount ${inNotes(builder.serviceAccountExpr(plan.names.serviceAccount).text)}{{ if not .Values.agent.serviceAccount.create }} (existing){{ end }}`,
    `  - ConfigMaps with the backends' MCP client configs and the toolchain servers' configs`,
  ];
  if (plan.workspace.volume.kind === 'sharedClaim') {
    lines.push(
      `{{- if not ${'.Values.agent.persistence.existingClaim'} }}`,
      `  - PersistentVolumeClaim/${nameOf(plan.workspace.volume.claimName)}: the workspace the agent and toolchain pods share (ReadWriteMany)`,
      '{{- end }}',
    );
  }
  // Caches on new claims, unless agent.caches.<name>.existingClaim replaces them (docs/caches.md).
  for (const cache of plan.caches) {
    if (cache.volume.kind !== 'newClaim') continue;
    const users = plan.toolchains
      .filter((t) => t.caches.some((u) => u.name === cache.name))
      .map((t) => t.name);
    lines.push(
      `{{- if not .Values.agent.caches.${valuesKey(cache.name)}.existingClaim }}`,
      `  - PersistentVolumeClaim/${nameOf(cache.volume.claimName)}: the ${lit(cache.ecosystem)} cache "${lit(cache.name)}" at ${cache.path} in toolchain${users.length === 1 ? '' : 's'} ${users.map(lit).join(', ')}`,
      '{{- end }}',
    );
  }
  for (const toolchain of podToolchains(plan)) {
    const key = builder.componentValues(toolchain.pod.component).path;
    lines.push(
      `  - toolchain ${lit(toolchain.name)} in its own pod: Deployment/Service ${nameOf(toolchain.pod.objectName)}, ServiceAccount ${inNotes(builder.serviceAccountExpr(toolchain.pod.objectName).text)} (replicas: {{ .Values.${key.join('.')}.replicas }}, no token mounted), MCP on port ${toolchain.port} ${
        toolchain.auth ? 'behind a bearer token' : 'WITHOUT a bearer token (insecureAllowUnauthenticated)'
      }, tools ${toolchain.mode}, ${lit(toolchainEgressSummary(plan, toolchain))}`,
    );
  }
  for (const gateway of deployedGateways(plan)) {
    const key = builder.componentValues(`gateway-${gateway.name}`).path;
    const replicas = `replicas: {{ .Values.${key.join('.')}.replicas }}`;
    // Roles for another namespace are left out when the release is installed into it (see objectCondition).
    const namespaces = gateway.kubernetes?.namespaces ?? [];
    const inRelease = namespaces.includes(plan.namespace);
    const others = namespaces
      .filter((n) => n !== plan.namespace)
      .map((n, i) => {
        const comma = i > 0 || inRelease ? ', ' : '';
        return inRelease
          ? `{{ if ne ${goString(n)} .Release.Namespace }}${comma}${lit(n)}{{ end }}`
          : `${comma}${lit(n)}`;
      });
    const authority = gateway.kubernetes
      ? `, Role ${gateway.kubernetes.preset} in ${inRelease ? '{{ .Release.Namespace }}' : ''}${others.join('')}`
      : '';
    lines.push(
      `  - MCP gateway ${lit(gateway.name)}: Deployment/Service ${nameOf(gateway.objectName)}, ServiceAccount ${inNotes(builder.serviceAccountExpr(gateway.objectName).text)} (${replicas}${authority})`,
    );
  }
  for (const gateway of plan.gateways.filter((g) => g.kind === 'external')) {
    lines.push(`  - (referenced, not deployed) MCP gateway ${lit(gateway.name)} at ${lit(gateway.url)}`);
  }
  const hasNetworkPolicies = builder.objects.some((o) => o.kind === 'NetworkPolicy');
  if (hasNetworkPolicies) {
    lines.push(
      '{{- if .Values.networkPolicy.enabled }}',
      '  - NetworkPolicies: every pod denies all ingress and egress except what is listed below',
      '{{- end }}',
    );
  }
  if (secrets.length > 0) {
    lines.push('', 'Secrets the pods read (the chart creates none; pods wait until they exist):');
    for (const secret of secrets) {
      const name = `{{ index .Values.secretNames ${goString(secret.name)} }}`;
      lines.push(`  - ${name}${secret.keys.length > 0 ? `: keys ${lit(secret.keys.join(', '))}` : ''}`);
      for (const use of secret.uses) lines.push(`      ${lit(describeUse(use))}`);
    }
    const generated = generatedTokenKeys(plan);
    lines.push(
      '  Create them, e.g. (broker and toolchain tokens: a random value per key, so every caller has its own):',
    );
    for (const secret of secrets) {
      lines.push(
        `  kubectl --namespace {{ .Release.Namespace }} create secret generic {{ index .Values.secretNames ${goString(secret.name)} }} ${lit(createSecretArgs(secret, generated))}`,
      );
    }
  }
  const first = plan.backends[0]!;
  lines.push(
    '',
    'Reach the agent:',
    `  kubectl --namespace {{ .Release.Namespace }} port-forward service/{{ $fullname }} ${first.port}:${first.port}`,
    `  then http://127.0.0.1:${first.port} is backend "${lit(first.name)}".`,
    ...(hasTest
      ? [
          '{{- if .Values.tests.enabled }}',
          '',
          'Check the installation (toolchain readiness, gateway Services):',
          '  helm test {{ .Release.Name }} --namespace {{ .Release.Namespace }}',
          '{{- end }}',
        ]
      : []),
    '',
    'Effective egress (NetworkPolicy selects pods, not containers: a pod may reach the union of what its',
    "containers need; toolchain sidecars share the agent pod's egress, a toolchain pod has its own):",
  );
  if (hasNetworkPolicies) lines.push('{{- if .Values.networkPolicy.enabled }}');
  for (const pod of allPodEgress(plan)) {
    lines.push(`  pod ${nameOf(pod.pod)} (containers ${lit(pod.containers.join(', '))}):`);
    if (pod.grants.length === 0) lines.push('    - nothing (not even DNS)');
    for (const grant of pod.grants) {
      const to =
        grant.to.kind === 'gateway'
          ? `pods of ${nameOf(grant.to.gateway)}`
          : grant.to.kind === 'toolchain'
            ? `pods of ${nameOf(grant.to.toolchain)}`
            : lit(describeDestination(grant.to));
      lines.push(
        `    - ${to} on ${describePorts(grant.ports)}: ${lit(grant.purpose)}, for ${lit(grant.neededBy.join(', '))}`,
      );
    }
  }
  if (hasNetworkPolicies) {
    lines.push(
      '{{- else }}',
      '  NetworkPolicies are disabled (networkPolicy.enabled=false): every pod may reach anything, and be',
      '  reached from anywhere.',
      '{{- end }}',
    );
  } else {
    lines.push('  The spec disables NetworkPolicies: every pod may reach anything.');
  }
  lines.push(...brokerEgressNotes(plan));
  lines.push(...sandboxesNotes(plan));
  return `${lines.join('\n')}\n`;
}
