/**
 * The toolchain server's configuration: the one contract between the renderer (which emits it into a
 * ConfigMap) and the server (which parses it at start). Both sides import this schema; a test joins them.
 *
 * Kept free of Node APIs so the renderer can bundle it for the browser.
 */
import { z } from 'zod';
import { telemetrySchema } from '../kit/telemetry-config.ts';
import { DEFAULT_PASSTHROUGH, neverCallerEnvReason } from './policy/env-names.ts';

/** Presets of structured tools, each a typed wrapper around one toolchain's binaries. */
export const TOOL_PRESETS = ['go', 'python', 'cargo', 'node', 'terraform', 'helm'] as const;
export type ToolPreset = (typeof TOOL_PRESETS)[number];

/** `structured`: only typed preset tools. `exec`: presets plus `exec_allowed` over `allowedCommands`. */
export const TOOL_MODES = ['structured', 'exec'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/** `egressProxy.phase`: when calls get the broker proxy (docs/confinement.md, "Caches and fetch phase"). */
export const EGRESS_PHASES = ['always', 'fetch'] as const;
export type EgressPhase = (typeof EGRESS_PHASES)[number];

/** `caches[].access` and `caches[].kind`. */
export const CACHE_ACCESS = ['read-write', 'read-only'] as const;
export type CacheAccess = (typeof CACHE_ACCESS)[number];
/** `download`: what a registry served. `build`: what project code produced. */
export const CACHE_KINDS = ['download', 'build'] as const;
export type CacheKind = (typeof CACHE_KINDS)[number];

/** `limits.confinement`: see docs/confinement.md. */
export const CONFINEMENT_MODES = ['required', 'best-effort', 'off'] as const;
export type ConfinementMode = (typeof CONFINEMENT_MODES)[number];

/** `limits.connect`: see docs/confinement.md#loopback. */
export const CONNECT_MODES = ['egress', 'pod'] as const;
export type ConnectMode = (typeof CONNECT_MODES)[number];

const commandName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'must be a bare command name (no path, no spaces)');

const port = z.number().int().min(0).max(65535);

/** A host name or address a request may name in Host/Origin (no port, no scheme). */
const hostName = z
  .string()
  .regex(
    /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?)$/,
    'must be a host name or address, without a port',
  );

export const listenSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: port,
    /**
     * Names clients may send in Host/Origin besides loopback and `host`: a toolchain in its own pod is called
     * through its Service (`<service>.<namespace>.svc`), which DNS-rebinding protection must let through.
     */
    allowedHosts: z.array(hostName).default([]),
    /**
     * Serve a listener beyond loopback without `auth`. Off by default: anything that can reach such a listener
     * could run this toolchain's tools, so a non-loopback `host` needs a bearer token unless this says otherwise.
     */
    allowUnauthenticated: z.boolean().default(false),
  })
  .strict();

/** Whether a listen address is reachable only from inside its own network namespace. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * A second listener that serves only `/healthz` and `/readyz`. The MCP endpoint is bound to 127.0.0.1, which
 * kubelet probes (sent from the node to the pod IP) cannot reach; this listener gives them a target without
 * exposing any tool.
 */
export const healthListenSchema = z
  .object({
    host: z.string().min(1).default('0.0.0.0'),
    port: port,
    /**
     * Also serve `/metrics` here, for Prometheus to scrape (the MCP listener's `/metrics` is on loopback behind
     * the bearer token). The metrics name tools, outcomes and rules, never an argument or a token.
     */
    metrics: z.boolean().default(false),
  })
  .strict();

export const toolsSchema = z
  .object({
    mode: z.enum(TOOL_MODES).default('structured'),
    presets: z.array(z.enum(TOOL_PRESETS)).default([]),
    allowedCommands: z.array(commandName).default([]),
  })
  .strict();

export const handlesSchema = z
  .object({
    commands: z.array(z.string().min(1)).default([]),
    files: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const limitsSchema = z
  .object({
    defaultTimeoutSeconds: z.number().int().positive().default(300),
    maxTimeoutSeconds: z.number().int().positive().default(1800),
    maxOutputBytes: z.number().int().positive().default(1048576),
    maxConcurrency: z.number().int().positive().default(2),
    maxQueue: z.number().int().nonnegative().default(16),
    /** Open MCP sessions; beyond it a new client gets 503 with Retry-After, and no live session is evicted. */
    maxSessions: z.number().int().positive().default(64),
    /**
     * Kernel confinement of every command (Landlock, through the `toolyard-confine` helper; docs/confinement.md):
     * `required` refuses to start without it, `best-effort` (default) confines where the kernel allows and says
     * so, `off` runs commands unconfined (argv policy only).
     */
    confinement: z.enum(CONFINEMENT_MODES).default('best-effort'),
    /**
     * Where a confined command may open TCP connections (Landlock ABI 4+; docs/confinement.md#loopback):
     * `egress` (default) only to the egress proxy's port and `testPorts`; `pod` anywhere the pod's network
     * allows — for a toolchain whose pod's NetworkPolicy and broker already bound egress, so test suites that
     * start a server on 127.0.0.1:0 (Go httptest, supertest, pytest live servers) can connect to it.
     */
    connect: z.enum(CONNECT_MODES).default('egress'),
    /** Fixed loopback ports test suites connect to, allowed under `connect: egress` (an ephemeral port cannot be listed). */
    testPorts: z.array(z.number().int().min(1).max(65535)).default([]),
  })
  .strict()
  .refine((l) => l.defaultTimeoutSeconds <= l.maxTimeoutSeconds, {
    message: 'defaultTimeoutSeconds must be <= maxTimeoutSeconds',
    path: ['defaultTimeoutSeconds'],
  });

/** Proxy variables (any case): only egressProxy sets them. */
const PROXY_LIKE =
  /^(https?_proxy|all_proxy|no_proxy|npm_config_(https_)?proxy|npm_config_noproxy|yarn_https?_proxy|pip_proxy|cargo_http_proxy)$/i;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const callerAllowedName = envName.refine((name) => neverCallerEnvReason(name) === undefined, {
  error: (issue) =>
    `${String(issue.input)} can never be set by a caller: ${neverCallerEnvReason(String(issue.input))}`,
});

export const envSchema = z
  .object({
    /** Names copied from the server's own environment into every child. Default: PATH and the locale. */
    passthrough: z.array(envName).default([...DEFAULT_PASSTHROUGH]),
    /** Fixed values set in every child (HOME, caches, TMPDIR). */
    set: z.record(envName, z.string()).default({}),
    /** Names a caller may set besides the built-in allowlist (project variables such as DATABASE_URL). */
    callerAllowed: z.array(callerAllowedName).default([]),
  })
  .strict();

export const authSchema = z
  .object({
    /** A file holding the bearer token (a mounted Secret), read once at start. */
    bearerTokenFile: z.string().startsWith('/', 'must be an absolute path'),
  })
  .strict()
  .optional();

/**
 * A sandbox's server (docs/sandboxes.md): no `auth` token of its own. The sandbox manager binds it to one
 * session after the claim (`POST /sandbox/bind`, authorized once by the bootstrap token read from
 * `bootstrapTokenFile`, which every call's confinement keeps out of reach) and gives it the token every later
 * request must carry. It also offers `read_file`, `write_file` and `list_files`, each capped at `maxFileBytes`.
 */
export const sandboxSchema = z
  .object({
    bootstrapTokenFile: z.string().startsWith('/', 'must be an absolute path'),
    maxFileBytes: z
      .number()
      .int()
      .min(1)
      .default(10 * 1024 * 1024),
  })
  .strict()
  .optional();

/**
 * The broker's CONNECT proxy for this toolchain's children (`network.egress` by name). The server reads its
 * broker token from `tokenFile` at start and sets the proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, their
 * lower-case forms, `NO_PROXY`, and each tool's own proxy setting) in every child's environment; the broker
 * allows that token only this toolchain's own list of hosts. Absent: children get no proxy (no egress).
 */
export const egressProxySchema = z
  .object({
    /** The proxy's URL without credentials, e.g. `http://reviewer-broker.agents.svc:8480`. */
    url: z.string().url(),
    /** The proxy user name: this toolchain's caller name at the broker. */
    user: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label'),
    /** A file holding this toolchain's broker token (a mounted Secret key), read once at start. */
    tokenFile: z.string().startsWith('/', 'must be an absolute path'),
    /** Hosts reached directly, not through the proxy (`NO_PROXY`). Loopback is always added. */
    noProxy: z.array(z.string().min(1)).default([]),
    /**
     * `always` (default): every call gets the proxy. `fetch`: only calls of structured fetch tools (`fetch: true`
     * in tools/presets.ts, which run no project code) get the proxy variables, the TCP connect rule to the
     * proxy's port and write access to `download` caches; every other call gets none of them, and `offlineEnv`.
     */
    phase: z.enum(EGRESS_PHASES).default('always'),
  })
  .strict()
  .optional();

/**
 * A package cache mounted in this toolchain (`spec.workspace.caches`, docs/caches.md): the kernel confinement
 * grants `path` read-write or read-only per call (docs/confinement.md, "Caches and fetch phase").
 */
export const cacheSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label'),
    /** The ecosystem of the cache table (`cargo`, `go`, `npm`, `pip`, …): names the fetch tool that fills it. */
    ecosystem: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be an ecosystem name such as cargo or go'),
    path: z
      .string()
      .startsWith('/', 'must be an absolute path')
      .refine((p) => p !== '/' && !p.split('/').includes('..'), 'must name a directory below /, without ..'),
    /** `read-only`: no call may write it. `read-write`: see `kind`. */
    access: z.enum(CACHE_ACCESS).default('read-write'),
    /**
     * `download`: content fetched from registries; with `egressProxy.phase: fetch` only fetch calls may write it.
     * `build`: build outputs; writable by every call of a read-write consumer.
     */
    kind: z.enum(CACHE_KINDS),
  })
  .strict();
export type CacheConfig = z.output<typeof cacheSchema>;

/** Languages code mode runs (docs/code-mode.md): `node` also runs TypeScript, by Node's type stripping. */
export const CODE_MODE_LANGUAGES = ['python', 'node'] as const;
export type CodeModeLanguage = (typeof CODE_MODE_LANGUAGES)[number];
/** `toolchain`: another toolchain's server (or this one's own, by its name); `gateway`: an MCP gateway. */
export const CODE_MODE_SERVER_KINDS = ['toolchain', 'gateway'] as const;

/**
 * One MCP server a code-mode program may call as `mcp_<name>` (dashes become underscores). The server calls it with
 * the token in `tokenFile`, read once at start and never given to a child; this toolchain itself (kind `toolchain`
 * and this config's `name`) is called in process and needs neither.
 */
export const codeModeServerSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label'),
    kind: z.enum(CODE_MODE_SERVER_KINDS),
    /** Its MCP endpoint (Streamable HTTP): a toolchain's, a gateway's Service, or the gateway's broker route. */
    url: z.string().url().optional(),
    /** A file holding the bearer token to present (its own token, or this toolchain's broker token for a route). */
    tokenFile: z.string().startsWith('/', 'must be an absolute path').optional(),
  })
  .strict();

/** Resource limits of one code-mode run (docs/code-mode.md, "Limits"). */
export const codeModeLimitsSchema = z
  .object({
    /** Memory the program may allocate (Python: RLIMIT_DATA; Node: its heap, and RLIMIT_DATA above V8's reservation). */
    memoryMiB: z.number().int().min(32).max(65536).default(512),
    /** Processes and threads the program may start beyond the ones the server's uid has (RLIMIT_NPROC). */
    processes: z.number().int().min(1).max(4096).default(64),
    /** Largest file the program may write (RLIMIT_FSIZE), in outputs/ or its scratch directory. */
    fileSizeMiB: z.number().int().min(1).max(65536).default(256),
    /** MCP calls one run may make; beyond it a call fails with TOOLYARD_CODE_MODE_LIMIT. */
    maxCallsPerRun: z.number().int().min(0).max(10000).default(200),
    /** MCP calls of one run in flight at once. */
    maxConcurrentCalls: z.number().int().min(1).max(64).default(8),
    /** Largest program accepted, in bytes of UTF-8. */
    maxCodeBytes: z.number().int().min(1024).max(4194304).default(262144),
  })
  .strict();

export const codeModeSchema = z
  .object({
    languages: z.array(z.enum(CODE_MODE_LANGUAGES)).min(1),
    servers: z.array(codeModeServerSchema).default([]),
    limits: codeModeLimitsSchema.default({
      memoryMiB: 512,
      processes: 64,
      fileSizeMiB: 256,
      maxCallsPerRun: 200,
      maxConcurrentCalls: 8,
      maxCodeBytes: 262144,
    }),
  })
  .strict()
  .optional();
export type CodeModeConfig = z.output<typeof codeModeSchema>;

/** Fields that existed once, with why they are gone; a config that still has one is told so. */
const REMOVED_FIELDS: Readonly<Record<string, string>> = {
  '/auth/bearerTokenEnv':
    'removed: a token in the server environment reaches every child through /proc/<pid>/environ; mount it as a file and set bearerTokenFile',
};

export const toolchainServerConfigSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label'),
    listen: listenSchema,
    health: healthListenSchema.optional(),
    workspaceRoots: z.array(z.string().startsWith('/', 'must be an absolute path')).min(1),
    tools: toolsSchema.default({ mode: 'structured', presets: [], allowedCommands: [] }),
    handles: handlesSchema.default({ commands: [], files: [] }),
    limits: limitsSchema.default({
      defaultTimeoutSeconds: 300,
      maxTimeoutSeconds: 1800,
      maxOutputBytes: 1048576,
      maxConcurrency: 2,
      maxQueue: 16,
      maxSessions: 64,
      confinement: 'best-effort',
      connect: 'egress',
      testPorts: [],
    }),
    env: envSchema.default({ passthrough: [...DEFAULT_PASSTHROUGH], set: {}, callerAllowed: [] }),
    auth: authSchema,
    egressProxy: egressProxySchema,
    /** Package caches mounted in this toolchain, with each one's access (docs/caches.md). */
    caches: z.array(cacheSchema).default([]),
    /**
     * Variables set on every call that does not get the proxy (no `egressProxy`, or a non-fetch call under
     * `phase: fetch`): each ecosystem's offline switch (`CARGO_NET_OFFLINE`, `GOPROXY=off`, …). Set after
     * `env.set` and the caller's variables, so a caller cannot undo them.
     */
    offlineEnv: z.record(envName, z.string()).default({}),
    /** Path of the `toolyard-confine` helper. Default: `<bundleDir>/bin/toolyard-confine` next to the server. */
    confinementHelper: z.string().startsWith('/', 'must be an absolute path').optional(),
    /**
     * Code mode (docs/code-mode.md): a `run_code` tool that runs a Python or JavaScript/TypeScript program, confined
     * with no network, which calls `servers` through the server. Absent: no `run_code`.
     */
    codeMode: codeModeSchema,
    /** A sandbox's server, bound to a session by the sandbox manager (docs/sandboxes.md). */
    sandbox: sandboxSchema,
    /**
     * Traces (docs/observability.md): a span per tool call, a child span per process, each proxied code-mode call
     * a client span; sent as OTLP/HTTP JSON to `telemetry.endpoint`. Absent: no spans (trace context from a
     * request still reaches the command as `TRACEPARENT`).
     */
    telemetry: telemetrySchema,
    /**
     * Labels on every sample of `/metrics` (`agent`, `toolchain`): what a dashboard groups by, whatever the
     * scrape discovery adds. Names and values only, never anything a call sent.
     */
    metricsLabels: z
      .record(
        z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name'),
        z.string().max(128),
      )
      .default({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.sandbox && c.auth)
      ctx.addIssue({
        code: 'custom',
        path: ['auth'],
        message: 'a sandbox server takes its token from the manager when it is bound: leave auth out',
      });
    c.codeMode?.servers.forEach((server, i) => {
      const alias = server.name.replace(/-/g, '_');
      const twin = c.codeMode!.servers.findIndex((other) => other.name.replace(/-/g, '_') === alias);
      if (twin !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['codeMode', 'servers', i, 'name'],
          message: `${server.name} is called mcp_${alias}, as servers[${twin}] is: each server needs its own alias`,
        });
      const self = server.kind === 'toolchain' && server.name === c.name;
      if (!self && server.url === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['codeMode', 'servers', i, 'url'],
          message: `${server.name} needs a url (only this toolchain itself, by its own name, is called in process)`,
        });
    });
    const inside = (path: string, dir: string) =>
      path === dir || path.startsWith(`${dir.replace(/\/$/, '')}/`);
    c.caches.forEach((cache, i) => {
      const twin = c.caches.findIndex((other) => other.name === cache.name);
      if (twin !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['caches', i, 'name'],
          message: `duplicate cache name ${cache.name}`,
        });
      const nested = c.caches.findIndex(
        (other, j) => j !== i && (inside(cache.path, other.path) || inside(other.path, cache.path)),
      );
      if (nested >= 0)
        ctx.addIssue({
          code: 'custom',
          path: ['caches', i, 'path'],
          message: `${cache.path} overlaps caches[${nested}].path ${c.caches[nested]!.path}: each cache needs its own directory`,
        });
      const root = c.workspaceRoots.find((r) => inside(cache.path, r) || inside(r, cache.path));
      if (root !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['caches', i, 'path'],
          message: `${cache.path} overlaps the workspace root ${root}: a cache must live outside the workspace (its access would be the workspace's)`,
        });
    });
    for (const name of Object.keys(c.offlineEnv))
      if (PROXY_LIKE.test(name))
        ctx.addIssue({
          code: 'custom',
          path: ['offlineEnv', name],
          message: `${name} is a proxy variable: the server sets those from egressProxy alone`,
        });
  })
  .refine(
    (c) =>
      isLoopbackHost(c.listen.host) ||
      c.auth !== undefined ||
      c.sandbox !== undefined ||
      c.listen.allowUnauthenticated,
    {
      message:
        'a listener beyond loopback needs a bearer token: set auth.bearerTokenFile (or sandbox, whose manager gives it one), or listen.allowUnauthenticated: true to accept unauthenticated calls from whatever can reach it',
      path: ['listen', 'host'],
    },
  );

/** The config as written (defaults optional). */
export type ToolchainServerConfigInput = z.input<typeof toolchainServerConfigSchema>;
/** The config after parsing (defaults applied). */
export type ToolchainServerConfig = z.output<typeof toolchainServerConfigSchema>;

/** A config problem, with the JSON path of the offending field. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

export type ConfigParseResult =
  | { readonly ok: true; readonly config: ToolchainServerConfig }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

/** Parses an already-decoded JSON value; never throws. Paths are JSON Pointers (`/limits/maxQueue`). */
export function parseToolchainServerConfig(value: unknown): ConfigParseResult {
  const result = toolchainServerConfigSchema.safeParse(value);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    issues: result.error.issues.flatMap((issue) => {
      const path = `/${issue.path.map(String).join('/')}`;
      if (issue.code === 'unrecognized_keys') {
        const removed = issue.keys.filter((key) => REMOVED_FIELDS[`${path === '/' ? '' : path}/${key}`]);
        if (removed.length > 0)
          return removed.map((key) => {
            const field = `${path === '/' ? '' : path}/${key}`;
            return { path: field, message: REMOVED_FIELDS[field]! };
          });
      }
      return [{ path, message: issue.message }];
    }),
  };
}
