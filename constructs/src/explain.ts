/**
 * What was generated and why, as data: per pod its containers, effective egress and mounted credentials,
 * and per ServiceAccount what it can do. The CLI prints it; the site renders it as tables.
 */
import { PATHS, TOKEN_FILE_NAME } from './defaults.ts';
import { allPodEgress, describeDestination, describePorts, type PodEgress } from './effective-egress.ts';
import { type AgentPlan, deployedGateways } from './plan.ts';
import { type PolicyRule, rulesFor } from './rbac-presets.ts';

export interface ContainerReport {
  readonly name: string;
  readonly role: 'backend' | 'toolchain' | 'gateway' | 'init';
  readonly image: string;
  readonly listens: string;
  /** Credentials this container can read: Secret references and API tokens. */
  readonly credentials: readonly string[];
}

export interface PodReport {
  readonly pod: string;
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly serviceAccount: string;
  readonly containers: readonly ContainerReport[];
  readonly egress: PodEgress;
}

export interface ServiceAccountReport {
  readonly serviceAccount: string;
  readonly tokenMountedInto: readonly string[];
  readonly grants: readonly {
    readonly namespace: string;
    readonly preset: string;
    readonly rules: readonly PolicyRule[];
  }[];
}

export interface ExplainReport {
  readonly agent: string;
  readonly namespace: string;
  readonly pods: readonly PodReport[];
  readonly serviceAccounts: readonly ServiceAccountReport[];
}

export function explainAgent(plan: AgentPlan): ExplainReport {
  const egress = allPodEgress(plan);
  const tokenNote =
    plan.rbacPreset !== 'none'
      ? [`ServiceAccount token of "${plan.names.serviceAccount}" (${plan.rbacPreset})`]
      : [];
  const serverTokens = [
    ...plan.toolchains.flatMap((t) =>
      t.auth
        ? [
            `secret ${t.auth.secret.name}/${t.auth.secret.key} as ${t.auth.backendEnv} (toolchain "${t.name}")`,
          ]
        : [],
    ),
    ...plan.gateways.flatMap((g) =>
      g.auth
        ? [`secret ${g.auth.secret.name}/${g.auth.secret.key} as ${g.auth.backendEnv} (gateway "${g.name}")`]
        : [],
    ),
  ];
  const tokenFileNote = (secret: { name: string; key: string }) =>
    `secret ${secret.name}/${secret.key} as file ${PATHS.authDir}/${TOKEN_FILE_NAME} (read-only, 0440)`;
  const agentContainers: ContainerReport[] = [
    ...plan.backends.map((b) => ({
      name: b.name,
      role: 'backend' as const,
      image: b.image.reference,
      listens: `pod IP :${b.port}`,
      credentials: [
        ...b.secretEnv.map((s) => `secret ${s.secretName}/${s.key} as ${s.env}`),
        ...serverTokens,
        ...tokenNote,
      ],
    })),
    ...plan.toolchains.map((t) => ({
      name: t.containerName,
      role: 'toolchain' as const,
      image: t.image.reference,
      listens: `127.0.0.1:${t.port} (MCP), pod IP :${t.healthPort} (probes only)`,
      credentials: t.auth ? [tokenFileNote(t.auth.secret)] : [],
    })),
  ];
  if (plan.toolchains.some((t) => t.injectServer)) {
    agentContainers.push({
      name: 'toolyard-install',
      role: 'init',
      image: plan.toolchainServerImage.reference,
      listens: 'nothing',
      credentials: [],
    });
  }
  const pods: PodReport[] = [
    {
      pod: plan.names.workload,
      kind: plan.workspace.volume.kind === 'claimTemplate' ? 'StatefulSet' : 'Deployment',
      serviceAccount: plan.names.serviceAccount,
      containers: agentContainers,
      egress: egress[0]!,
    },
    ...deployedGateways(plan).map((g, i) => ({
      pod: g.objectName,
      kind: 'Deployment' as const,
      serviceAccount: g.objectName,
      containers: [
        {
          name: g.name,
          role: 'gateway' as const,
          image: g.image.reference,
          listens: `pod IP :${g.port} (${g.url})`,
          credentials: [
            ...(g.auth ? [tokenFileNote(g.auth.secret)] : []),
            ...(g.auth?.gatewayEnv
              ? [`secret ${g.auth.secret.name}/${g.auth.secret.key} as ${g.auth.gatewayEnv}`]
              : []),
            ...g.secretEnv.map((s) => `secret ${s.secretName}/${s.key} as ${s.env}`),
            ...(g.kubernetes ? [`ServiceAccount token of "${g.objectName}" (${g.kubernetes.preset})`] : []),
          ],
        },
      ],
      egress: egress[i + 1]!,
    })),
  ];
  const serviceAccounts: ServiceAccountReport[] = [
    {
      serviceAccount: plan.names.serviceAccount,
      tokenMountedInto: plan.rbacPreset !== 'none' ? plan.backends.map((b) => b.name) : [],
      grants:
        plan.rbacPreset !== 'none'
          ? [{ namespace: plan.namespace, preset: plan.rbacPreset, rules: rulesFor(plan.rbacPreset) }]
          : [],
    },
    ...deployedGateways(plan).map((g) => ({
      serviceAccount: g.objectName,
      tokenMountedInto: g.kubernetes ? [g.name] : [],
      grants: g.kubernetes
        ? g.kubernetes.namespaces.map((namespace) => ({
            namespace,
            preset: g.kubernetes!.preset,
            rules: rulesFor(g.kubernetes!.preset),
          }))
        : [],
    })),
  ];
  return { agent: plan.name, namespace: plan.namespace, pods, serviceAccounts };
}

/** The report as plain text, for terminals. */
export function formatExplainReport(report: ExplainReport): string {
  const lines: string[] = [`Agent ${report.namespace}/${report.agent}`];
  for (const pod of report.pods) {
    lines.push('', `${pod.kind} ${pod.pod} (ServiceAccount ${pod.serviceAccount})`, '  containers:');
    for (const c of pod.containers) {
      lines.push(`    ${c.name} [${c.role}] ${c.image}`, `      listens: ${c.listens}`);
      lines.push(`      credentials: ${c.credentials.length > 0 ? c.credentials.join('; ') : 'none'}`);
    }
    if (!pod.egress.restricted) {
      lines.push('  effective egress: unrestricted (NetworkPolicies disabled)');
      continue;
    }
    lines.push('  effective egress (pod-wide: NetworkPolicy selects pods, not containers):');
    for (const grant of pod.egress.grants) {
      lines.push(
        `    ${describeDestination(grant.to)} on ${describePorts(grant.ports)} — ${grant.purpose}; needed by ${grant.neededBy.join(', ')}`,
      );
    }
  }
  lines.push('', 'ServiceAccounts:');
  for (const sa of report.serviceAccounts) {
    const mounted =
      sa.tokenMountedInto.length > 0
        ? `token mounted into ${sa.tokenMountedInto.join(', ')}`
        : 'no token mounted';
    lines.push(`  ${sa.serviceAccount}: ${mounted}`);
    if (sa.grants.length === 0) lines.push('    can do: nothing in the Kubernetes API');
    for (const grant of sa.grants) {
      lines.push(`    in namespace ${grant.namespace} (${grant.preset}):`);
      for (const rule of grant.rules) {
        const group = rule.apiGroups.map((g) => (g === '' ? 'core' : g)).join(',');
        lines.push(`      ${rule.verbs.join(',')} ${rule.resources.join(',')} [${group}]`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
