/** `templates/NOTES.txt`: what was installed, how to reach the agent, and each pod's effective egress. Pure. */
import { allPodEgress, describeDestination, describePorts } from '../../constructs/src/effective-egress.ts';
import type { AgentPlan } from '../../constructs/src/plan.ts';
import { deployedGateways } from '../../constructs/src/plan.ts';
import type { ChartBuilder } from './chart-builder.ts';
import { escapeLiteral } from './template-yaml.ts';

export function chartNotes(builder: ChartBuilder, plan: AgentPlan): string {
  const h = (name: string): string => builder.helper(name);
  const nameOf = (objectName: string): string => {
    const e = builder.nameExpr(objectName);
    return e ? `{{ ${e.text.replaceAll('$', '.')} }}` : escapeLiteral(objectName);
  };
  const lit = escapeLiteral;
  const workload = builder.objects.find((o) => o.kind === 'StatefulSet') ? 'StatefulSet' : 'Deployment';
  const lines: string[] = [
    `{{- $fullname := include ${h('fullname')} . -}}`,
    `toolyard agent "${lit(plan.name)}" is installed as {{ $fullname }} in namespace {{ .Release.Namespace }}`,
    `(release {{ .Release.Name }}, chart {{ include ${h('chart')} . }}).`,
    '',
    'Installed:',
    `  - ${workload}/{{ $fullname }}: the agent pod, no Kubernetes API token mounted`,
    ...plan.backends.map((b) => `      backend ${lit(b.name)} (${b.type}) on port ${b.port}`),
    ...plan.toolchains.map(
      (t) =>
        `      toolchain ${lit(t.name)}: sidecar on 127.0.0.1:${t.port}, tools ${t.mode}, egress ${t.egress}`,
    ),
    `  - Service/{{ $fullname }} and ServiceAccount/{{ $fullname }}`,
    `  - ConfigMaps with the backends' MCP client configs and the toolchain servers' configs`,
  ];
  for (const gateway of deployedGateways(plan)) {
    const key = builder.componentValues(`gateway-${gateway.name}`).path;
    const replicas = `replicas: {{ .Values.${key.join('.')}.replicas }}`;
    const authority = gateway.kubernetes
      ? `, Role ${gateway.kubernetes.preset} in ${gateway.kubernetes.namespaces.map((n) => (n === plan.namespace ? '{{ .Release.Namespace }}' : lit(n))).join(', ')}`
      : '';
    lines.push(
      `  - MCP gateway ${lit(gateway.name)}: Deployment/Service/ServiceAccount ${nameOf(gateway.objectName)} (${replicas}${authority})`,
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
  const first = plan.backends[0]!;
  lines.push(
    '',
    'Reach the agent:',
    `  kubectl --namespace {{ .Release.Namespace }} port-forward service/{{ $fullname }} ${first.port}:${first.port}`,
    `  then http://127.0.0.1:${first.port} is backend "${lit(first.name)}".`,
    '',
    'Effective egress (NetworkPolicy selects pods, not containers: a pod may reach the union of what its',
    "containers need; toolchains share their pod's egress):",
  );
  if (hasNetworkPolicies) lines.push('{{- if .Values.networkPolicy.enabled }}');
  for (const pod of allPodEgress(plan)) {
    lines.push(`  pod ${nameOf(pod.pod)} (containers ${lit(pod.containers.join(', '))}):`);
    for (const grant of pod.grants) {
      const to =
        grant.to.kind === 'gateway'
          ? `pods of ${nameOf(grant.to.gateway)}`
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
  return `${lines.join('\n')}\n`;
}
