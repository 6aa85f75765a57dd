/**
 * The sandbox manager's configuration: the one contract between the renderer (which emits it into the
 * manager's ConfigMap) and `toolyard-sandbox-manager` (which parses it at start). Both sides import this schema;
 * a test joins them.
 *
 * The manager is the only holder of Kubernetes authority over an agent's sandboxes: it creates, stops, resumes
 * and destroys them (SandboxClaims and Sandboxes of agent-sandbox, or Pods and PersistentVolumeClaims with the
 * `kubernetes` provider) in its own namespace, and offers MCP tools to the agent's backends. Each sandbox pod
 * runs toolyard's toolchain server, which the manager binds to one session after the claim (docs/sandboxes.md).
 *
 * Kept free of Node APIs so the renderer can bundle it for the browser.
 */
import { z } from 'zod';
import { telemetrySchema } from '../kit/telemetry-config.ts';
import { CODE_MODE_LANGUAGES } from '../src/config.ts';
import { SANDBOX_MANAGER_CONFIG_FILE, SANDBOX_MANAGER_PATHS } from './constants.ts';

export { SANDBOX_MANAGER_CONFIG_FILE, SANDBOX_MANAGER_PATHS };

export const SANDBOX_PROVIDERS = ['agent-sandbox', 'kubernetes'] as const;
export type SandboxProvider = (typeof SANDBOX_PROVIDERS)[number];

const port = z.number().int().min(1).max(65535);
/** A port to listen on; 0 picks a free one (tests), reported in the `listening` line. */
const listenPort = z.number().int().min(0).max(65535);
const absolutePath = z.string().startsWith('/', 'must be an absolute path');
const dnsLabel = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label')
  .max(63);
const labels = z.record(z.string(), z.string());
/** A Kubernetes object (a pod or claim template): passed through as JSON, checked by the API server. */
const kubeObject = z.record(z.string(), z.unknown());

/** Per-template values the manager needs; the pod itself is the SandboxTemplate's (or `pod` below). */
export const sandboxTemplateConfigSchema = z
  .object({
    /** The template's name in the spec (`sandboxes.templates[].name`), what callers choose by. */
    name: dnsLabel,
    /** agent-sandbox: the SandboxWarmPool claims are made against. */
    warmPool: z.string().min(1).optional(),
    /** The toolchain server's MCP port in the sandbox pod. */
    serverPort: port,
    /** The Host the manager sends to the sandbox's server (a name in its `listen.allowedHosts`). */
    serverHost: z.string().min(1),
    /** What one running sandbox counts against the quota: its containers' limits (else requests). */
    cpuMillis: z.number().int().min(0),
    memoryBytes: z.number().int().min(0),
    /** A running sandbox without a call for this long is stopped (its pod removed, its volume kept). */
    idleTimeoutSeconds: z.number().int().min(1),
    /** A stopped sandbox is destroyed (with its volume) this long after it stopped; 0: when it stops. */
    retentionSeconds: z.number().int().min(0),
    /** Largest timeout a caller may give `sandbox_exec` (the server's `limits.maxTimeoutSeconds`). */
    maxTimeoutSeconds: z.number().int().min(1),
    /**
     * Code mode (docs/code-mode.md#in-sandboxes): the languages of the sandbox server's `run_code`, which the
     * manager offers as `sandbox_run_code`; absent, the template has no code mode and the tool is refused for it.
     */
    codeMode: z
      .object({ languages: z.array(z.enum(CODE_MODE_LANGUAGES)).min(1) })
      .strict()
      .optional(),
    /** File transfers through the manager, each way. */
    maxUploadBytes: z.number().int().min(1),
    maxDownloadBytes: z.number().int().min(1),
    /**
     * `kubernetes` provider: the pod (spec and metadata) and the workspace claim's spec the manager creates for
     * each session. The pod's workspace volume names the claim `workspaceClaimVolume`; the manager sets its name.
     */
    pod: z
      .object({
        metadata: z.object({ labels: labels.default({}), annotations: labels.default({}) }).strict(),
        spec: kubeObject,
        workspaceClaim: kubeObject,
        workspaceClaimVolume: dnsLabel,
      })
      .strict()
      .optional(),
  })
  .strict();

export const sandboxManagerConfigSchema = z
  .object({
    /** The agent this manager serves: in object labels and audit lines. */
    agent: dnsLabel,
    /** The namespace of the agent, its sandboxes and the manager's Role. */
    namespace: dnsLabel,
    provider: z.enum(SANDBOX_PROVIDERS),
    listen: z
      .object({
        host: z.string().default('0.0.0.0'),
        port: listenPort,
        /** Names callers may use in `Host` (the Service's names); loopback is always accepted. */
        allowedHosts: z.array(z.string()).default([]),
      })
      .strict(),
    health: z.object({ host: z.string().default('0.0.0.0'), port: listenPort }).strict(),
    /** The backends' bearer token (a Secret mounted here and, as an env reference, into backends). */
    auth: z.object({ bearerTokenFile: absolutePath }).strict(),
    /**
     * The sandbox servers' bootstrap token (a Secret mounted here and into every sandbox pod, where code run in
     * the sandbox cannot read it: the server keeps it outside every call's confinement). It authorizes one
     * `bind` per server process; the manager then talks to that sandbox with a token of its own.
     */
    bootstrapTokenFile: absolutePath,
    /** How the manager reaches the API server; defaults are a pod's in-cluster credentials. */
    kubernetes: z
      .object({
        /** `https://host:port`; default from KUBERNETES_SERVICE_HOST/PORT. */
        server: z.string().url().optional(),
        tokenFile: absolutePath.default(`${SANDBOX_MANAGER_PATHS.serviceAccountDir}/token`),
        caFile: absolutePath.default(`${SANDBOX_MANAGER_PATHS.serviceAccountDir}/ca.crt`),
      })
      .strict()
      .default({
        tokenFile: `${SANDBOX_MANAGER_PATHS.serviceAccountDir}/token`,
        caFile: `${SANDBOX_MANAGER_PATHS.serviceAccountDir}/ca.crt`,
      }),
    /** Labels every object the manager creates carries (and the only ones it lists, watches and touches). */
    labels: labels,
    quota: z
      .object({
        /** Sandboxes running (or starting) at once. */
        maxSandboxes: z.number().int().min(1),
        /** Sandboxes kept in all, running and stopped. */
        maxSessions: z.number().int().min(1),
        /** Sum of running sandboxes' CPU (millicores) and memory (bytes); 0: no limit. */
        cpuMillis: z.number().int().min(0),
        memoryBytes: z.number().int().min(0),
      })
      .strict(),
    /** How often idle sandboxes are stopped and expired ones destroyed. */
    lifecycleIntervalSeconds: z.number().int().min(1).default(15),
    /** How long a create or resume waits for a ready sandbox before it fails. */
    readyTimeoutSeconds: z.number().int().min(1).default(120),
    templates: z.array(sandboxTemplateConfigSchema).min(1),
    /** The template `sandbox_create` uses when the caller names none. */
    defaultTemplate: dnsLabel,
    /**
     * Where the manager's spans go (OTLP/HTTP JSON, docs/observability.md#the-sandbox-manager): a server span
     * per tool call, a client span per call to a sandbox's server and per Kubernetes call. Absent: no spans
     * (a caller's trace context is still passed on to the sandbox's server).
     */
    telemetry: telemetrySchema,
  })
  .strict()
  .superRefine((config, ctx) => {
    const names = new Set<string>();
    config.templates.forEach((template, i) => {
      if (names.has(template.name))
        ctx.addIssue({
          code: 'custom',
          path: ['templates', i, 'name'],
          message: `duplicate "${template.name}"`,
        });
      names.add(template.name);
      if (config.provider === 'agent-sandbox' && !template.warmPool)
        ctx.addIssue({
          code: 'custom',
          path: ['templates', i, 'warmPool'],
          message: 'the agent-sandbox provider claims from a SandboxWarmPool: name it',
        });
      if (config.provider === 'kubernetes' && !template.pod)
        ctx.addIssue({
          code: 'custom',
          path: ['templates', i, 'pod'],
          message: 'the kubernetes provider creates the pod itself: give its pod template',
        });
    });
    if (!names.has(config.defaultTemplate))
      ctx.addIssue({
        code: 'custom',
        path: ['defaultTemplate'],
        message: `no template "${config.defaultTemplate}"`,
      });
  });

export type SandboxManagerConfigInput = z.input<typeof sandboxManagerConfigSchema>;
export type SandboxManagerConfig = z.output<typeof sandboxManagerConfigSchema>;
export type SandboxTemplateConfig = z.output<typeof sandboxTemplateConfigSchema>;

export type SandboxManagerConfigParseResult =
  | { readonly ok: true; readonly config: SandboxManagerConfig }
  | { readonly ok: false; readonly issues: readonly { readonly path: string; readonly message: string }[] };

/** Parses an already-decoded JSON value; never throws. Paths are JSON Pointers (`/templates/0/name`). */
export function parseSandboxManagerConfig(value: unknown): SandboxManagerConfigParseResult {
  const result = sandboxManagerConfigSchema.safeParse(value);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: `/${issue.path.map(String).join('/')}`,
      message: issue.message,
    })),
  };
}
