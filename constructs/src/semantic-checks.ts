/**
 * Checks the schema cannot express: uniqueness across lists, port collisions inside each pod, lengths of
 * derived object names, reserved paths, URLs that would resolve to nothing, and what `placement: pod` needs
 * (a workspace every pod can mount, a bearer token unless explicitly waived).
 */
import type { SpecProblem } from '../../schema/src/validator.ts';
import { checkApiServerEgress } from './api-server-egress.ts';
import { BACKEND_BROKER_ENV_NAMES, gitHardeningEnv, portName } from './backend-container.ts';
import { checkBroker } from './broker-checks.ts';
import { checkCaches } from './cache-checks.ts';
import { checkCodeMode } from './code-mode-checks.ts';
import { BROKER_TOKEN_DIR, CLIENT_CONFIG_PATHS, PATHS } from './defaults.ts';
import { checkKubernetesValues } from './kubernetes-checks.ts';
import { clientConfigEnv, clientConfigProblems, mcpServerEntries } from './mcp-client-configs.ts';
import { checkObservability } from './observability-checks.ts';
import { type AgentPlan, podToolchains, sidecarToolchains } from './plan.ts';
import { NO_REJECTED_ENTRIES, type RejectedEntries } from './rejected-entries.ts';
import { checkSandboxes } from './sandbox-checks.ts';

const MAX_NAME = 63;
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Every semantic problem of a plan. `rejected`: entries the schema rejected from the document the plan was made
 * of (see check-agent.ts), which references may still name.
 */
export function checkAgentPlan(
  plan: AgentPlan,
  rejected: RejectedEntries = NO_REJECTED_ENTRIES,
): SpecProblem[] {
  return [
    ...checkUniqueNames(plan),
    ...checkPorts(plan),
    ...checkDerivedNames(plan),
    ...checkPaths(plan),
    ...checkToolchains(plan),
    ...checkToolchainPlacement(plan),
    ...checkSharedWorkspace(plan),
    ...checkGatewayUrls(plan),
    ...checkEnv(plan),
    ...checkPortNames(plan),
    ...checkAcknowledgements(plan, rejected),
    ...checkBroker(plan),
    ...checkApiServerEgress(plan),
    ...checkCaches(plan, rejected),
    ...checkObservability(plan),
    ...checkCodeMode(
      plan,
      plan.toolchains.map((t) => (t.limits as { confinement?: string }).confinement),
    ),
    ...checkSandboxes(plan),
    ...checkKubernetesValues(plan),
    ...clientConfigProblems(plan),
  ];
}

/** An acknowledgement must name a toolchain or gateway of this spec, once. */
function checkAcknowledgements(plan: AgentPlan, rejected: RejectedEntries): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const ack of plan.acknowledgements) {
    const key = `${ack.warning}\u0000${ack.subject ?? ''}`;
    if (seen.has(key)) {
      problems.push({ path: ack.path, message: `acknowledges the same "${ack.warning}" warning twice` });
    }
    seen.add(key);
    if (ack.subject === undefined) continue;
    const [field, names] =
      ack.warning === 'shared-egress'
        ? ['toolchain', plan.toolchains.map((t) => t.name)]
        : ['gateway', plan.gateways.map((g) => g.name)];
    if (
      !names.includes(ack.subject) &&
      !rejected.has(`${field}s` as 'toolchains' | 'gateways', ack.subject)
    ) {
      problems.push({
        path: `${ack.path}/${field}`,
        message: `no ${field} "${ack.subject}" in this spec`,
        hint: names.length > 0 ? `${field}s: ${names.join(', ')}` : `this spec has no ${field}`,
      });
    }
  }
  return problems;
}

function checkPortNames(plan: AgentPlan): SpecProblem[] {
  // Backends with the same name are reported as duplicate containers already.
  const distinct = plan.backends.filter((b, i) => plan.backends.findIndex((o) => o.name === b.name) === i);
  const named = distinct.map((b) => ({
    name: portName(b),
    path: `/spec/backends/${plan.backends.indexOf(b)}/name`,
  }));
  return duplicates(
    named,
    (n) => n.name,
    (i) => named[i]!.path,
    'Service port name',
  ).map((p) => ({
    ...p,
    hint: 'a backend name longer than 15 characters, without a letter or with "--" is exposed as port-<port>; rename the backend that clashes',
  }));
}

/** Variables toolyard sets itself; a spec that also sets them would silently lose one of the two. */
const RESERVED_ENV = new Set(['HOME', 'TMPDIR']);
const isReserved = (name: string) => RESERVED_ENV.has(name) || name.startsWith('TOOLYARD_');

function checkEnv(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const reserved = (path: string, name: string, why: string) =>
    problems.push({ path, message: `environment variable "${name}" is set by toolyard`, hint: why });
  const checkContainer = (
    base: string,
    env: Readonly<Record<string, string>>,
    secrets: readonly { readonly env: string }[],
    setByToolyard: ReadonlySet<string>,
  ) => {
    const why = (name: string) =>
      setByToolyard.has(name)
        ? `toolyard sets ${name} so the backend's CLI finds its config and the broker, and git ignores hooks planted in the workspace; choose another name`
        : 'HOME, TMPDIR and TOOLYARD_* point at generated volumes and configs; choose another name';
    const taken = (name: string) => isReserved(name) || setByToolyard.has(name);
    for (const name of Object.keys(env)) if (taken(name)) reserved(`${base}/env/${name}`, name, why(name));
    const seen = new Set(Object.keys(env));
    secrets.forEach((secret, i) => {
      if (taken(secret.env)) reserved(`${base}/secretEnv/${i}/name`, secret.env, why(secret.env));
      else if (seen.has(secret.env))
        problems.push({
          path: `${base}/secretEnv/${i}/name`,
          message: `environment variable "${secret.env}" is defined twice`,
          hint: 'a variable comes either from env or from one secretEnv entry',
        });
      seen.add(secret.env);
    });
  };
  plan.backends.forEach((b, i) => {
    const own = new Set([
      ...Object.keys(clientConfigEnv(b)),
      ...Object.keys(gitHardeningEnv(plan.workspace.mountPath)),
      ...(plan.broker.enabled ? BACKEND_BROKER_ENV_NAMES : []),
    ]);
    checkContainer(`/spec/backends/${i}`, b.env, b.secretEnv, own);
  });
  plan.gateways.forEach((g, i) => {
    if (g.kind === 'deployed') checkContainer(`/spec/gateways/${i}`, g.env, g.secretEnv, new Set());
  });
  return problems;
}

function duplicates<T>(
  items: readonly T[],
  key: (item: T) => string,
  path: (index: number) => string,
  what: string,
): SpecProblem[] {
  const first = new Map<string, number>();
  const problems: SpecProblem[] = [];
  items.forEach((item, index) => {
    const k = key(item);
    const earlier = first.get(k);
    if (earlier === undefined) first.set(k, index);
    else
      problems.push({
        path: path(index),
        message: `duplicate ${what} "${k}"`,
        hint: `already used at ${path(earlier)}; names must be unique`,
      });
  });
  return problems;
}

function checkUniqueNames(plan: AgentPlan): SpecProblem[] {
  const containers = [
    ...plan.backends.map((b, i) => ({ name: b.name, path: `/spec/backends/${i}/name` })),
    ...plan.toolchains.map((t, i) => ({ name: t.containerName, path: `/spec/toolchains/${i}/name` })),
    // The sandbox manager's broker caller name (its key in the tokens Secret), with observability.
    ...plan.broker.callers
      .filter((c) => c.role === 'sandbox-manager')
      .map((c) => ({ name: c.name, path: '/spec/sandboxes' })),
  ];
  const servers = mcpServerEntries(plan).map((server, i) => ({
    name: server.name,
    path:
      i < plan.toolchains.length
        ? `/spec/toolchains/${i}/name`
        : i < plan.toolchains.length + plan.gateways.length
          ? `/spec/gateways/${i - plan.toolchains.length}/name`
          : '/spec/sandboxes',
  }));
  const problems = [
    ...duplicates(
      containers,
      (c) => c.name,
      (i) => containers[i]!.path,
      'container name',
    ),
    ...duplicates(
      servers,
      (s) => s.name,
      (i) => servers[i]!.path,
      'MCP server name',
    ),
  ];
  // One problem per path: a duplicate toolchain is both a duplicate container and a duplicate server.
  const seen = new Set<string>();
  return problems.filter((p) => {
    if (seen.has(p.path)) return false;
    seen.add(p.path);
    return true;
  });
}

interface PodPort {
  readonly port: number;
  readonly path: string;
  readonly owner: string;
}

function checkPorts(plan: AgentPlan): SpecProblem[] {
  const toolchainPorts = (t: (typeof plan.toolchains)[number]): PodPort[] => {
    const i = plan.toolchains.indexOf(t);
    return [
      { port: t.port, path: `/spec/toolchains/${i}/port`, owner: `toolchain "${t.name}"` },
      {
        port: t.healthPort,
        path: `/spec/toolchains/${i}/healthPort`,
        owner: `toolchain "${t.name}" (health)`,
      },
    ];
  };
  const agentPod = [
    ...plan.backends.map((b, i) => ({
      port: b.port,
      path: `/spec/backends/${i}/port`,
      owner: `backend "${b.name}"`,
    })),
    ...sidecarToolchains(plan).flatMap(toolchainPorts),
  ];
  return [
    ...podPortClashes(plan.names.workload, agentPod),
    ...podToolchains(plan).flatMap((t) => podPortClashes(t.pod.objectName, toolchainPorts(t))),
  ];
}

function podPortClashes(pod: string, ports: readonly PodPort[]): SpecProblem[] {
  const first = new Map<number, PodPort>();
  const problems: SpecProblem[] = [];
  for (const entry of ports) {
    const other = first.get(entry.port);
    if (!other) {
      first.set(entry.port, entry);
      continue;
    }
    problems.push({
      path: entry.path,
      message: `port ${entry.port} of ${entry.owner} collides with ${other.owner} in pod "${pod}"`,
      hint: 'containers of one pod share its network namespace: give each listener its own port',
    });
  }
  return problems;
}

/**
 * A toolchain in its own pod listens beyond loopback: it needs a bearer token, or an explicit waiver. (Its
 * objects, `<agent>-toolchain-<name>`, cannot clash with a gateway's: a gateway named `toolchain-<name>` is
 * already a duplicate MCP server name.)
 */
function checkToolchainPlacement(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.toolchains.forEach((t, i) => {
    const base = `/spec/toolchains/${i}`;
    if (!t.pod) {
      if (t.allowUnauthenticated)
        problems.push({
          path: `${base}/insecureAllowUnauthenticated`,
          message: `toolchain "${t.name}" is a sidecar: insecureAllowUnauthenticated applies only to placement: pod`,
          hint: "remove it; a sidecar listens on the agent pod's 127.0.0.1, where auth is optional",
        });
      return;
    }
    if (!t.auth && !t.allowUnauthenticated)
      problems.push({
        path: `${base}/auth`,
        message: `toolchain "${t.name}" has placement: pod: its server listens on the pod IP and needs a bearer token`,
        hint: `add auth: { bearerTokenSecret: { name: ${plan.name}-${t.name}-token, key: token } } (a Secret of its own), or set insecureAllowUnauthenticated: true to let anything that reaches its Service call it`,
      });
    if (t.auth && t.allowUnauthenticated)
      problems.push({
        path: `${base}/insecureAllowUnauthenticated`,
        message: `toolchain "${t.name}" has auth, so insecureAllowUnauthenticated would change nothing`,
        hint: 'remove insecureAllowUnauthenticated (the token stays required), or remove auth to waive it',
      });
  });
  return problems;
}

const RWX = 'ReadWriteMany';

/**
 * Toolchains in their own pods mount the agent's workspace from other pods, possibly on other nodes: only a
 * ReadWriteMany claim serves them all. A new claim says so in its accessModes; an existing one must be declared.
 */
function checkSharedWorkspace(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const volume = plan.workspace.volume;
  if ((volume.kind === 'claimTemplate' || volume.kind === 'sharedClaim') && volume.accessModes.length > 1)
    if (volume.accessModes.includes('ReadWriteOncePod'))
      problems.push({
        path: '/spec/workspace/volume/persistentVolumeClaim/accessModes',
        message: 'ReadWriteOncePod cannot be combined with other access modes',
        hint: 'Kubernetes rejects such a claim; list ReadWriteOncePod alone, or leave it out',
      });
  const pods = podToolchains(plan);
  if (pods.length === 0) return problems;
  const who = `toolchain${pods.length > 1 ? 's' : ''} ${pods.map((t) => `"${t.name}"`).join(', ')} ${
    pods.length > 1 ? 'have' : 'has'
  } placement: pod`;
  const newClaim =
    'persistentVolumeClaim: { storage: 20Gi, storageClassName: <a ReadWriteMany class>, accessModes: [ReadWriteMany] }';
  switch (volume.kind) {
    case 'emptyDir':
      problems.push({
        path: '/spec/workspace/volume',
        message: `${who}, so the workspace must be a volume every pod can mount; an emptyDir lives inside one pod`,
        hint: `use ${newClaim}, or an existing claim: persistentVolumeClaim: { claimName: …, readWriteMany: true } (storage classes with ReadWriteMany: NFS, CephFS, EFS, Filestore, Azure Files, Longhorn)`,
      });
      break;
    case 'existingClaim':
      if (!volume.readWriteMany)
        problems.push({
          path: '/spec/workspace/volume/persistentVolumeClaim/readWriteMany',
          message: `${who}, so the existing claim "${volume.claimName}" must be ReadWriteMany, which toolyard cannot check`,
          hint: 'if the claim is ReadWriteMany, declare it with readWriteMany: true; otherwise use a ReadWriteMany claim',
        });
      break;
    case 'claimTemplate':
    case 'sharedClaim':
      if (!volume.accessModes.includes(RWX))
        problems.push({
          path: '/spec/workspace/volume/persistentVolumeClaim/accessModes',
          message: `${who}, so the workspace claim must be ReadWriteMany; its accessModes are [${volume.accessModes.join(', ')}]`,
          hint: 'set accessModes: [ReadWriteMany] and a storageClassName that provides it (NFS, CephFS, EFS, Filestore, Azure Files, Longhorn)',
        });
      break;
  }
  return problems;
}

function checkDerivedNames(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const tooLong = (name: string, path: string, what: string) => {
    if (name.length > MAX_NAME)
      problems.push({
        path,
        message: `${what} "${name}" would be ${name.length} characters, more than Kubernetes allows (${MAX_NAME})`,
        hint: 'shorten this name or the agent name',
      });
  };
  plan.toolchains.forEach((t, i) => {
    tooLong(t.containerName, `/spec/toolchains/${i}/name`, 'container name');
    tooLong(`${t.containerName}-home`, `/spec/toolchains/${i}/name`, 'volume name');
    if (t.pod) tooLong(t.pod.objectName, `/spec/toolchains/${i}/name`, 'object name');
  });
  plan.backends.forEach((b, i) => {
    tooLong(`${b.name}-home`, `/spec/backends/${i}/name`, 'volume name');
  });
  plan.gateways.forEach((g, i) => {
    if (g.kind === 'deployed') tooLong(g.objectName, `/spec/gateways/${i}/name`, 'object name');
  });
  return problems;
}

function checkPaths(plan: AgentPlan): SpecProblem[] {
  const reserved = [
    PATHS.home,
    PATHS.tmp,
    PATHS.serverBundle,
    PATHS.toolchainConfigDir,
    PATHS.serviceAccount,
    ...(plan.broker.enabled ? [BROKER_TOKEN_DIR] : []),
  ];
  const problems: SpecProblem[] = [];
  const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const mountPath = plan.workspace.mountPath;
  for (const path of reserved) {
    if (overlaps(mountPath, path))
      problems.push({
        path: '/spec/workspace/mountPath',
        message: `"${mountPath}" overlaps "${path}", which toolyard mounts itself`,
        hint: 'mount the workspace elsewhere, e.g. /workspace',
      });
  }
  plan.backends.forEach((b, i) => {
    const at = `/spec/backends/${i}/mcpConfigPath`;
    if (b.mcpConfigPath === undefined) return;
    if (b.type !== 'custom') {
      problems.push({
        path: at,
        message: `a backend of type ${b.type} reads its MCP config from ${clientConfigLocation(b.type)}, not from mcpConfigPath`,
        hint: 'remove mcpConfigPath; only custom backends take it',
      });
      return;
    }
    for (const path of [mountPath, ...reserved]) {
      if (overlaps(b.mcpConfigPath, path))
        problems.push({
          path: at,
          message: `"${b.mcpConfigPath}" overlaps "${path}"`,
          hint: 'use a directory of its own, e.g. /etc/toolyard/mcp',
        });
    }
  });
  for (const type of new Set(plan.backends.map((b) => b.type))) {
    if (type === 'custom') continue;
    const location = clientConfigLocation(type);
    if (overlaps(mountPath, location))
      problems.push({
        path: '/spec/workspace/mountPath',
        message: `"${mountPath}" overlaps "${location}", where the ${type} backend's client config is mounted`,
        hint: 'mount the workspace elsewhere, e.g. /workspace',
      });
  }
  return problems;
}

function clientConfigLocation(type: 'claude' | 'openai' | 'gemini'): string {
  switch (type) {
    case 'claude':
      return CLIENT_CONFIG_PATHS.claudeCode;
    case 'openai':
      return CLIENT_CONFIG_PATHS.codex;
    case 'gemini':
      return CLIENT_CONFIG_PATHS.geminiCliSettings;
  }
}

function checkToolchains(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.toolchains.forEach((t, i) => {
    if (t.mode === 'exec' && t.allowedCommands.length === 0)
      problems.push({
        path: `/spec/toolchains/${i}/tools/allowedCommands`,
        message: `toolchain "${t.name}" is in exec mode but allows no command`,
        hint: 'list the binaries exec_allowed may run (e.g. [cargo, rustc]) or use mode: structured',
      });
    if (t.mode === 'structured' && t.presets.length === 0)
      problems.push({
        path: `/spec/toolchains/${i}/tools/presets`,
        message: `toolchain "${t.name}" exposes no tool: structured mode needs at least one preset`,
        hint: 'add a preset (go, python, cargo, node, terraform, helm) or use mode: exec with allowedCommands',
      });
    if (t.limits.defaultTimeoutSeconds > t.limits.maxTimeoutSeconds)
      problems.push({
        path: `/spec/toolchains/${i}/limits/defaultTimeoutSeconds`,
        message: `defaultTimeoutSeconds ${t.limits.defaultTimeoutSeconds} exceeds maxTimeoutSeconds ${t.limits.maxTimeoutSeconds}`,
      });
  });
  return problems;
}

/** A gateway URL into the pod itself must hit a container port; anything else would resolve to nothing. */
function checkGatewayUrls(plan: AgentPlan): SpecProblem[] {
  const podPorts = new Set([
    ...plan.backends.map((b) => b.port),
    ...sidecarToolchains(plan).map((t) => t.port),
  ]);
  const problems: SpecProblem[] = [];
  plan.gateways.forEach((g, i) => {
    if (g.kind !== 'external') return;
    let url: URL;
    try {
      url = new URL(g.url);
    } catch {
      problems.push({ path: `/spec/gateways/${i}/url`, message: `"${g.url}" is not a valid URL` });
      return;
    }
    if (!LOCAL_HOSTS.has(url.hostname)) return;
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    if (!podPorts.has(port))
      problems.push({
        path: `/spec/gateways/${i}/url`,
        message: `"${g.url}" points into the agent pod, but no container listens on port ${port}`,
        hint: "use the gateway's Service URL, or declare the gateway with an image so toolyard deploys it",
      });
  });
  return problems;
}
