/**
 * The plan of `spec.sandboxes` (docs/sandboxes.md): the sandbox manager (`<agent>-sandboxes`) and, per template,
 * what its pods run (a toolchain server in sandbox mode on a workspace claim of their own), its warm pool, its
 * lifecycle and what one sandbox counts against the quota. Each template is also planned as a toolchain in its
 * own pod, so the server config, container and egress reuse the toolchain code paths.
 */
import type { Sandboxes, SandboxTemplate } from '../../schema/src/types.generated.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { planNamedEgress } from './broker-plan.ts';
import { planCodeMode } from './code-mode-plan.ts';
import * as D from './defaults.ts';
import { type AgentNames, LABEL } from './names.ts';
import { planImage } from './plan-image.ts';
import type {
  PlannedNamedEgress,
  PlannedSandboxes,
  PlannedSandboxTemplate,
  PlannedToolchain,
} from './plan-types.ts';

export type { PlannedSandboxes, PlannedSandboxTemplate, SandboxProviderName } from './plan-types.ts';

export const SANDBOXES_COMPONENT = 'sandboxes';
export const SANDBOXES_SERVER_NAME = 'sandboxes';
/** How backends receive the manager's bearer token. */
export const SANDBOXES_TOKEN_ENV = 'TOOLYARD_SANDBOXES_TOKEN';
/** The label that marks the manager's own objects (its list and watch selector). */
export const SANDBOX_MANAGER_LABEL = 'toolyard.dev/sandbox-manager';
/**
 * The manager's name as a broker caller (its key in the tokens Secret): with spec.observability it exports its
 * spans through the broker's `otlp` route, its only route; the sandboxes themselves never get that route. Not
 * `sandbox-manager`: that is the caller name of a template named `manager` (`sandbox-<template>`).
 */
export const SANDBOX_MANAGER_CALLER = 'sandboxes';

export const DEFAULT_SANDBOX_MANAGER_IMAGE = {
  repository: `${D.TOOLYARD_IMAGE_PREFIX}/toolyard-sandbox-manager`,
  tag: PACKAGE_VERSION,
} as const;
export const DEFAULT_SANDBOX_PORT = 8790;
export const DEFAULT_SANDBOX_HEALTH_PORT = 9790;
export const DEFAULT_SANDBOX_SERVER_PORT = 8800;
export const DEFAULT_SANDBOX_QUOTA = { maxSandboxes: 10, maxSessions: 100 } as const;
export const DEFAULT_SANDBOX_RESOURCES = {
  requests: { cpu: '250m', memory: '512Mi' },
  limits: { cpu: '1', memory: '1Gi' },
} as const;
export const DEFAULT_SANDBOX_WORKSPACE = { storage: '5Gi', mountPath: '/workspace' } as const;
export const DEFAULT_SANDBOX_WARM_POOL_REPLICAS = 1;
export const DEFAULT_SANDBOX_IDLE_MINUTES = 15;
export const DEFAULT_SANDBOX_RETENTION_HOURS = 24;
export const DEFAULT_SANDBOX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_SANDBOX_MANAGER_RESOURCES = {
  requests: { cpu: '50m', memory: '96Mi' },
  limits: { memory: '256Mi' },
} as const;

const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
};

/** A Kubernetes quantity as a number of base units (`500m` → 0.5, `1Gi` → 1073741824); NaN when unreadable. */
export function quantityValue(text: string): number {
  const match = /^([+-]?[0-9.]+)(e[+-]?[0-9]+)?([a-zA-Z]*)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const factor = SUFFIXES[match[3] ?? ''];
  if (factor === undefined) return Number.NaN;
  return Number(`${match[1]}${match[2] ?? ''}`) * factor;
}

function counted(resources: SandboxTemplate['resources'], name: 'cpu' | 'memory'): string | undefined {
  const list = resources ?? DEFAULT_SANDBOX_RESOURCES;
  return list.limits?.[name] ?? list.requests?.[name];
}

function planTemplate(
  template: SandboxTemplate,
  names: AgentNames,
  broker: { readonly enabled: boolean },
): PlannedSandboxTemplate {
  const objectName = names.sandboxTemplate(template.name);
  const component = sandboxComponent(template.name);
  const port = template.port ?? DEFAULT_SANDBOX_SERVER_PORT;
  const egress = template.network?.egress;
  const namedEgress: PlannedNamedEgress =
    egress === undefined || egress === 'none' ? planNamedEgress('none') : planNamedEgress(egress);
  const containerName = sandboxContainerName(template.name);
  const workspace = template.workspace ?? {};
  const cpu = counted(template.resources, 'cpu');
  const memory = counted(template.resources, 'memory');
  const toolchain: PlannedToolchain = {
    name: template.name,
    containerName,
    serverName: containerName,
    placement: 'pod',
    url: `http://${objectName}:${port}/mcp`,
    pod: {
      objectName,
      host: objectName,
      component,
      selector: names.selector(component),
      replicas: 0,
    },
    allowUnauthenticated: false,
    image: planImage(template.image),
    port,
    healthPort: port + D.HEALTH_PORT_OFFSET,
    injectServer: template.injectServer ?? true,
    mode: template.tools?.mode ?? 'exec',
    presets: template.tools?.presets ?? [],
    allowedCommands: template.tools?.allowedCommands ?? [],
    handles: { commands: [], files: [] },
    limits: { ...D.DEFAULT_LIMITS, ...template.limits },
    egress: namedEgress.kind === 'none' ? 'none' : 'registries',
    namedEgress: broker.enabled ? namedEgress : planNamedEgress('none'),
    egressPhase: 'always',
    caches: [],
    env: Object.fromEntries(
      Object.entries(template.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    resources: template.resources ?? structuredClone(DEFAULT_SANDBOX_RESOURCES),
    configMapName: objectName,
  };
  // Code mode in a sandbox (docs/code-mode.md#in-sandboxes): its programs call the sandbox's own tools, in process;
  // a sandbox holds no credential of any other server, so nothing else resolves (the checks name what was asked).
  const codeMode = template.tools?.codeMode;
  const planned: PlannedToolchain = codeMode
    ? { ...toolchain, codeMode: planCodeMode(codeMode, toolchain, [toolchain], []) }
    : toolchain;
  const maxUploadBytes = template.files?.maxUploadBytes ?? DEFAULT_SANDBOX_FILE_BYTES;
  const maxDownloadBytes = template.files?.maxDownloadBytes ?? DEFAULT_SANDBOX_FILE_BYTES;
  return {
    name: template.name,
    objectName,
    component,
    selector: names.selector(component),
    serverHost: objectName,
    toolchain: planned,
    mountPath: workspace.mountPath ?? DEFAULT_SANDBOX_WORKSPACE.mountPath,
    storage: workspace.storage ?? DEFAULT_SANDBOX_WORKSPACE.storage,
    ...(workspace.storageClassName ? { storageClassName: workspace.storageClassName } : {}),
    warmPoolReplicas: template.warmPool?.replicas ?? DEFAULT_SANDBOX_WARM_POOL_REPLICAS,
    warmPoolDeclared: template.warmPool !== undefined,
    idleTimeoutSeconds: (template.idleTimeoutMinutes ?? DEFAULT_SANDBOX_IDLE_MINUTES) * 60,
    retentionSeconds: (template.retentionHours ?? DEFAULT_SANDBOX_RETENTION_HOURS) * 3600,
    maxUploadBytes,
    maxDownloadBytes,
    cpuMillis: cpu === undefined ? 0 : Math.round(quantityValue(cpu) * 1000),
    memoryBytes: memory === undefined ? 0 : Math.round(quantityValue(memory)),
  };
}

export function planSandboxes(
  sandboxes: Sandboxes | undefined,
  names: AgentNames,
  broker: { readonly enabled: boolean },
): PlannedSandboxes | undefined {
  if (!sandboxes) return undefined;
  const port = sandboxes.port ?? DEFAULT_SANDBOX_PORT;
  const objectName = names.sandboxManager;
  const host = `${objectName}.${names.namespace}.svc`;
  const templates = sandboxes.templates.map((t) => planTemplate(t, names, broker));
  const quota = sandboxes.quota ?? {};
  return {
    provider: sandboxes.provider ?? 'agent-sandbox',
    objectName,
    component: SANDBOXES_COMPONENT,
    selector: names.selector(SANDBOXES_COMPONENT),
    host,
    url: `http://${host}:${port}/mcp`,
    serverName: SANDBOXES_SERVER_NAME,
    image: planImage(sandboxes.image ?? DEFAULT_SANDBOX_MANAGER_IMAGE),
    port,
    healthPort: sandboxes.healthPort ?? DEFAULT_SANDBOX_HEALTH_PORT,
    auth: {
      secret: { name: sandboxes.auth.bearerTokenSecret.name, key: sandboxes.auth.bearerTokenSecret.key },
      backendEnv: SANDBOXES_TOKEN_ENV,
    },
    bootstrapSecret: { name: sandboxes.bootstrapTokenSecret.name, key: sandboxes.bootstrapTokenSecret.key },
    podServiceAccount: names.sandboxPods,
    managedLabels: {
      [LABEL.agent]: names.agent,
      [SANDBOX_MANAGER_LABEL]: objectName,
    },
    quota: {
      maxSandboxes: quota.maxSandboxes ?? DEFAULT_SANDBOX_QUOTA.maxSandboxes,
      maxSessions: quota.maxSessions ?? DEFAULT_SANDBOX_QUOTA.maxSessions,
      cpuMillis: quota.cpu ? Math.round(quantityValue(quota.cpu) * 1000) : 0,
      memoryBytes: quota.memory ? Math.round(quantityValue(quota.memory)) : 0,
    },
    quotaQuantities: { cpu: quota.cpu ?? '', memory: quota.memory ?? '' },
    templates,
    maxTimeoutSeconds: Math.max(...templates.map((t) => t.toolchain.limits.maxTimeoutSeconds)),
  };
}

/** The component label of a template's sandbox pods. */
export function sandboxComponent(template: string): string {
  return `sandbox-${template}`;
}

/** The container (and broker caller) name of a template's sandboxes. */
export function sandboxContainerName(template: string): string {
  return `sandbox-${template}`;
}
