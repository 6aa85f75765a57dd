/**
 * What was generated and why, as data: per pod its containers, effective egress and mounted credentials,
 * and per ServiceAccount what it can do. The CLI prints it; the site renders it as tables.
 */

import { BROKER_CONTAINER } from './broker.ts';
import { BROKER_TOKEN_DIR, BROKER_TOKEN_ENV, PATHS, TOKEN_FILE_NAME } from './defaults.ts';
import {
  agentPodEgress,
  brokerPodEgress,
  type ContainerEgress,
  containerEgress,
  describeDestination,
  describeHost,
  describePorts,
  gatewayPodEgress,
  type PodEgress,
  sandboxManagerPodEgress,
  sandboxPodEgress,
  toolchainPodEgress,
} from './effective-egress.ts';
import { type CacheContainerReport, explainCaches, formatCachesReport } from './explain-caches.ts';
import {
  formatObservabilityReport,
  type ObservabilityReport,
  observabilityReport,
} from './explain-observability.ts';
import {
  type AgentPlan,
  deployedGateways,
  type PlannedToolchain,
  podToolchains,
  sidecarToolchains,
} from './plan.ts';
import { type PolicyRule, rulesFor } from './rbac-presets.ts';
import type { PlannedSandboxTemplate } from './sandbox-plan.ts';
import { SANDBOX_CONTAINER, sandboxUsesBroker } from './sandbox-pod.ts';
import { SANDBOX_MANAGER_CONTAINER, sandboxManagerRules } from './sandboxes.ts';

export interface ContainerReport {
  readonly name: string;
  readonly role: 'backend' | 'toolchain' | 'gateway' | 'init' | 'broker' | 'sandboxes';
  readonly image: string;
  readonly listens: string;
  /** Credentials this container can read: Secret references and API tokens. */
  readonly credentials: readonly string[];
  /** A sandbox template's code mode (`tools.codeMode`, docs/code-mode.md#in-sandboxes); absent without it. */
  readonly codeMode?: SandboxCodeModeReport;
}

/** What `sandbox_run_code` runs in a template's sandboxes, and how confined. */
export interface SandboxCodeModeReport {
  /** The manager's tool and the sandbox server's tool it reaches. */
  readonly tool: string;
  /** As `sandbox_run_code` takes them: python, javascript, typescript. */
  readonly languages: readonly string[];
  /** Each server a program may call: the template itself (in process), or none. */
  readonly servers: readonly string[];
  /** What each program can and cannot reach. */
  readonly confinement: string;
  /** `tools.codeMode.limits` as set (the server's defaults apply to the rest). */
  readonly limits: readonly string[];
  /** The template's `limits.maxTimeoutSeconds`: the longest run the manager accepts. */
  readonly maxTimeoutSeconds: number;
}

function sandboxCodeMode(t: PlannedSandboxTemplate): SandboxCodeModeReport | undefined {
  const codeMode = t.toolchain.codeMode;
  if (!codeMode) return undefined;
  const limits = codeMode.limits;
  return {
    tool: "sandbox_run_code (through the manager) → run_code of the session's sandbox server",
    languages: codeMode.languages.flatMap((l) => (l === 'node' ? ['javascript', 'typescript'] : [l])),
    servers: codeMode.servers.map((s) => `mcp_${s.name} (the sandbox itself, in process, no token)`),
    confinement:
      "each run a fresh child under kernel confinement: no network at all (not even the pod's egress), writes only its scratch dir and outputs/ in the workspace, cannot read the bootstrap token, killed with its descendants at the timeout",
    limits: [
      ...(limits.memoryMiB !== undefined ? [`memory ${limits.memoryMiB} MiB`] : []),
      ...(limits.processes !== undefined ? [`${limits.processes} processes`] : []),
      ...(limits.fileSizeMiB !== undefined ? [`files up to ${limits.fileSizeMiB} MiB`] : []),
      ...(limits.maxCallsPerRun !== undefined ? [`${limits.maxCallsPerRun} MCP calls per run`] : []),
    ],
    maxTimeoutSeconds: t.toolchain.limits.maxTimeoutSeconds,
  };
}

export interface PodReport {
  readonly pod: string;
  /** What the pod is for: the agent's, a toolchain's own (`placement: pod`), a gateway's, or the broker's. */
  readonly role: 'agent' | 'toolchain' | 'gateway' | 'broker' | 'sandboxes';
  /** `SandboxTemplate`: agent-sandbox's pods of a sandbox template; `Pod`: those the sandbox manager creates. */
  readonly kind: 'Deployment' | 'StatefulSet' | 'SandboxTemplate' | 'Pod';
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

/** The broker: what it holds, and what each container may reach through it, by name. */
export interface BrokerReport {
  /** `http://<broker Service>:<port>`. */
  readonly url: string;
  /** The credentials only the broker holds, one per route (`secret <name>/<key> for route <route> → <upstream>`). */
  readonly credentials: readonly string[];
  /** Per container: its routes and its hosts (or any public host, `open`). */
  readonly egress: readonly ContainerEgress[];
  readonly tokensSecret: string;
  /** The command that creates the callers' tokens Secret, one random key per caller. */
  readonly createTokensCommand: string;
}

export interface ExplainReport {
  readonly agent: string;
  readonly namespace: string;
  readonly pods: readonly PodReport[];
  readonly serviceAccounts: readonly ServiceAccountReport[];
  /** Present with the broker on. */
  readonly broker?: BrokerReport;
  /** Toolchain containers with caches or a fetch phase (docs/caches.md); absent when there is none. */
  readonly caches?: readonly CacheContainerReport[];
  /** `spec.observability`: who emits what, where it goes (docs/observability.md); absent when off. */
  readonly observability?: ObservabilityReport;
}

/** `kubectl create secret generic <tokensSecret> -n <ns> --from-literal=<caller>=$(openssl rand -hex 32) …`. */
export function createTokensCommand(plan: AgentPlan): string {
  const literals = plan.broker.callers.map((c) => `--from-literal=${c.name}=$(openssl rand -hex 32)`);
  return [`kubectl create secret generic ${plan.broker.tokensSecret} -n ${plan.namespace}`, ...literals].join(
    ' ',
  );
}

function brokerReport(plan: AgentPlan): BrokerReport | undefined {
  if (!plan.broker.enabled) return undefined;
  return {
    url: plan.broker.url,
    credentials: plan.broker.routes.flatMap((r) =>
      r.credential
        ? [
            `secret ${r.credential.secret.name}/${r.credential.secret.key} for route ${r.name} → ${r.upstream}`,
          ]
        : [],
    ),
    egress: containerEgress(plan),
    tokensSecret: plan.broker.tokensSecret,
    createTokensCommand: createTokensCommand(plan),
  };
}

/** The sandbox manager's pod and each template's sandbox pods (`spec.sandboxes`). */
function sandboxPods(plan: AgentPlan): PodReport[] {
  const sandboxes = plan.sandboxes;
  if (!sandboxes) return [];
  return [
    {
      pod: sandboxes.objectName,
      role: 'sandboxes',
      kind: 'Deployment',
      serviceAccount: sandboxes.objectName,
      containers: [
        {
          name: SANDBOX_MANAGER_CONTAINER,
          role: 'sandboxes',
          image: sandboxes.image.reference,
          listens: `pod IP :${sandboxes.port} (${sandboxes.url}: the sandbox tools, behind a bearer token), pod IP :${sandboxes.healthPort} (probes and metrics only)`,
          credentials: [
            `ServiceAccount token of "${sandboxes.objectName}" (sandbox-manager: ${sandboxes.provider === 'agent-sandbox' ? 'sandboxclaims, sandboxes' : 'pods, persistentvolumeclaims'})`,
            `secret ${sandboxes.auth.secret.name}/${sandboxes.auth.secret.key} as file (backends' token)`,
            `secret ${sandboxes.bootstrapSecret.name}/${sandboxes.bootstrapSecret.key} as file (bootstrap token)`,
          ],
        },
      ],
      egress: sandboxManagerPodEgress(plan, sandboxes),
    },
    ...sandboxes.templates.map(
      (t): PodReport => ({
        pod: t.objectName,
        role: 'sandboxes',
        kind: sandboxes.provider === 'agent-sandbox' ? 'SandboxTemplate' : 'Pod',
        serviceAccount: sandboxes.podServiceAccount,
        containers: [
          {
            name: SANDBOX_CONTAINER,
            role: 'sandboxes',
            image: t.toolchain.image.reference,
            listens: `pod IP :${t.toolchain.port} (the sandbox's server, for its manager alone, one token per sandbox), pod IP :${t.toolchain.healthPort} (probes only)`,
            credentials: [
              `secret ${sandboxes.bootstrapSecret.name}/${sandboxes.bootstrapSecret.key} as file (read by the server alone, once)`,
              ...(sandboxUsesBroker(plan, t)
                ? [
                    `secret ${plan.broker.tokensSecret}/${t.toolchain.containerName} as file (its broker token)`,
                  ]
                : []),
            ],
            ...(sandboxCodeMode(t) ? { codeMode: sandboxCodeMode(t) } : {}),
          },
        ],
        egress: sandboxPodEgress(plan, t),
      }),
    ),
  ];
}

export function explainAgent(plan: AgentPlan): ExplainReport {
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
    // A gateway behind a broker route: the broker holds its token.
    ...plan.gateways.flatMap((g) =>
      g.auth && !g.route
        ? [`secret ${g.auth.secret.name}/${g.auth.secret.key} as ${g.auth.backendEnv} (gateway "${g.name}")`]
        : [],
    ),
  ];
  const brokerToken = (b: AgentPlan['backends'][number]) => {
    if (!plan.broker.enabled)
      return b.model?.keyEnv
        ? [
            `secret ${b.model.apiKeySecret.name}/${b.model.apiKeySecret.key} as ${b.model.keyEnv} (provider key)`,
          ]
        : [];
    const vars = [BROKER_TOKEN_ENV, ...(b.model?.keyEnv ? [b.model.keyEnv] : [])].join(', ');
    return [`secret ${plan.broker.tokensSecret}/${b.name} as ${vars} (its broker token, not a provider key)`];
  };
  const tokenFileNote = (secret: { name: string; key: string }) =>
    `secret ${secret.name}/${secret.key} as file ${PATHS.authDir}/${TOKEN_FILE_NAME} (read-only, 0440)`;
  const agentContainers: ContainerReport[] = [
    ...plan.backends.map((b) => ({
      name: b.name,
      role: 'backend' as const,
      image: b.image.reference,
      listens: `pod IP :${b.port}`,
      credentials: [
        ...brokerToken(b),
        ...b.secretEnv.map((s) => `secret ${s.secretName}/${s.key} as ${s.env}`),
        ...serverTokens,
        ...tokenNote,
      ],
    })),
    ...sidecarToolchains(plan).map((t) => toolchainContainer(plan, t, tokenFileNote)),
  ];
  const installer: ContainerReport = {
    name: 'toolyard-install',
    role: 'init',
    image: plan.toolchainServerImage.reference,
    listens: 'nothing',
    credentials: [],
  };
  if (sidecarToolchains(plan).some((t) => t.injectServer)) agentContainers.push(installer);
  const pods: PodReport[] = [
    {
      pod: plan.names.workload,
      role: 'agent',
      kind: plan.workspace.volume.kind === 'claimTemplate' ? 'StatefulSet' : 'Deployment',
      serviceAccount: plan.names.serviceAccount,
      containers: agentContainers,
      egress: agentPodEgress(plan),
    },
    ...podToolchains(plan).map((t) => ({
      pod: t.pod.objectName,
      role: 'toolchain' as const,
      kind: 'Deployment' as const,
      serviceAccount: t.pod.objectName,
      containers: [toolchainContainer(plan, t, tokenFileNote), ...(t.injectServer ? [installer] : [])],
      egress: toolchainPodEgress(plan, t),
    })),
    ...deployedGateways(plan).map((g) => ({
      pod: g.objectName,
      role: 'gateway' as const,
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
      egress: gatewayPodEgress(plan, g),
    })),
    ...(plan.broker.enabled
      ? [
          {
            pod: plan.broker.objectName,
            role: 'broker' as const,
            kind: 'Deployment' as const,
            serviceAccount: plan.broker.objectName,
            containers: [
              {
                name: BROKER_CONTAINER,
                role: 'broker' as const,
                image: plan.broker.image.reference,
                listens: `pod IP :${plan.broker.port} (${plan.broker.url}: routes and CONNECT, a token per caller), pod IP :${plan.broker.healthPort} (probes and metrics only)`,
                credentials: [
                  `secret ${plan.broker.tokensSecret} (every caller's token) as files`,
                  ...plan.broker.routes.flatMap((r) =>
                    r.credential
                      ? [
                          `secret ${r.credential.secret.name}/${r.credential.secret.key} as file (route ${r.name})`,
                        ]
                      : [],
                  ),
                ],
              },
            ],
            egress: brokerPodEgress(plan),
          },
        ]
      : []),
    ...sandboxPods(plan),
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
    ...podToolchains(plan).map((t) => ({
      serviceAccount: t.pod.objectName,
      tokenMountedInto: [],
      grants: [],
    })),
    ...(plan.broker.enabled
      ? [{ serviceAccount: plan.broker.objectName, tokenMountedInto: [], grants: [] }]
      : []),
    ...(plan.sandboxes
      ? [
          {
            serviceAccount: plan.sandboxes.objectName,
            tokenMountedInto: [SANDBOX_MANAGER_CONTAINER],
            grants: [
              {
                namespace: plan.namespace,
                preset: 'sandbox-manager',
                rules: sandboxManagerRules(plan.sandboxes.provider),
              },
            ],
          },
          { serviceAccount: plan.sandboxes.podServiceAccount, tokenMountedInto: [], grants: [] },
        ]
      : []),
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
  const broker = brokerReport(plan);
  const caches = explainCaches(plan);
  const observability = observabilityReport(plan);
  return {
    agent: plan.name,
    namespace: plan.namespace,
    pods,
    serviceAccounts,
    ...(broker ? { broker } : {}),
    ...(caches.length > 0 ? { caches } : {}),
    ...(observability ? { observability } : {}),
  };
}

function toolchainContainer(
  plan: AgentPlan,
  t: PlannedToolchain,
  tokenFileNote: (secret: { name: string; key: string }) => string,
): ContainerReport {
  const credentials = [
    ...(t.auth ? [tokenFileNote(t.auth.secret)] : []),
    ...(plan.broker.enabled && t.namedEgress.kind !== 'none'
      ? [
          `secret ${plan.broker.tokensSecret}/${t.containerName} as file ${BROKER_TOKEN_DIR}/${TOKEN_FILE_NAME} (its broker proxy token)`,
        ]
      : []),
  ];
  if (t.pod)
    return {
      name: t.containerName,
      role: 'toolchain',
      image: t.image.reference,
      listens: `pod IP :${t.port} (MCP, ${t.url}; ${
        t.auth ? 'bearer token required' : 'NO bearer token: insecureAllowUnauthenticated'
      }), pod IP :${t.healthPort} (probes only)`,
      credentials,
    };
  return {
    name: t.containerName,
    role: 'toolchain',
    image: t.image.reference,
    listens: `127.0.0.1:${t.port} (MCP), pod IP :${t.healthPort} (probes only)`,
    credentials,
  };
}

/** The report as plain text, for terminals. */
export function formatExplainReport(report: ExplainReport): string {
  const lines: string[] = [`Agent ${report.namespace}/${report.agent}`];
  for (const pod of report.pods) {
    lines.push('', `${pod.kind} ${pod.pod} (ServiceAccount ${pod.serviceAccount})`, '  containers:');
    for (const c of pod.containers) {
      lines.push(`    ${c.name} [${c.role}] ${c.image}`, `      listens: ${c.listens}`);
      lines.push(`      credentials: ${c.credentials.length > 0 ? c.credentials.join('; ') : 'none'}`);
      if (c.codeMode) {
        const cm = c.codeMode;
        lines.push(
          `      code mode: ${cm.tool}`,
          `        languages: ${cm.languages.join(', ')}`,
          `        servers: ${cm.servers.length > 0 ? cm.servers.join('; ') : 'none (discovery helpers only)'}`,
          `        confinement: ${cm.confinement}`,
          `        limits: ${cm.limits.length > 0 ? cm.limits.join(', ') : "the server's defaults"}; timeout at most ${cm.maxTimeoutSeconds} s`,
        );
      }
    }
    if (!pod.egress.restricted) {
      lines.push('  effective egress: unrestricted (NetworkPolicies disabled)');
      continue;
    }
    lines.push('  effective egress (pod-wide: NetworkPolicy selects pods, not containers):');
    if (pod.egress.grants.length === 0) lines.push('    none (not even DNS)');
    for (const grant of pod.egress.grants) {
      lines.push(
        `    ${describeDestination(grant.to)} on ${describePorts(grant.ports)} — ${grant.purpose}; needed by ${grant.neededBy.join(', ')}`,
      );
    }
  }
  if (report.broker) {
    const broker = report.broker;
    lines.push('', `Egress by name (per container, through the broker at ${broker.url}):`);
    for (const c of broker.egress) {
      const routes = c.routes.map((r) => `${r.name} → ${r.upstream}`);
      const hosts =
        c.openPorts.length > 0 ? [`any public host on ${c.openPorts.join(', ')}`] : c.hosts.map(describeHost);
      lines.push(`  ${c.container} (pod ${c.pod}):`);
      lines.push(`    routes: ${routes.length > 0 ? routes.join('; ') : 'none'}`);
      lines.push(`    hosts: ${hosts.length > 0 ? hosts.join(', ') : 'none'}`);
    }
    lines.push('', 'Credentials only the broker holds:');
    if (broker.credentials.length === 0) lines.push('  none');
    for (const c of broker.credentials) lines.push(`  ${c}`);
    lines.push(
      '',
      `Broker tokens: Secret ${broker.tokensSecret}, one key per caller; create it with:`,
      `  ${broker.createTokensCommand}`,
    );
  }
  lines.push(...formatCachesReport(report.caches ?? []));
  lines.push(...formatObservabilityReport(report.observability));
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
