/**
 * The broker's configuration: the one contract between the renderer (which emits it into the broker's
 * ConfigMap) and `toolyard-broker` (which parses it at start). Both sides import this schema; a test joins them.
 *
 * The broker is the agent's only pod with internet egress and the only holder of model keys and external
 * gateways' tokens. It serves, on one listener:
 * - **routes**: `http://<broker>/<route>/<path>` is forwarded to exactly one upstream origin over verified TLS,
 *   with whatever credential the caller sent dropped and the route's real credential set;
 * - **CONNECT**: `CONNECT host:port` with `Proxy-Authorization`, allowed only to the caller's own list of names,
 *   resolved by the broker itself, never to a non-public address.
 * Every request is authenticated as one **caller** (a container) by its own token; a caller may use only its
 * own routes and its own egress list.
 *
 * Kept free of Node APIs so the renderer can bundle it for the browser.
 */
import { z } from 'zod';
import { resourceAttributesSchema, sampleRatioSchema } from '../kit/telemetry-config.ts';
import { BROKER_PATHS, BROKER_PORTS, DEFAULT_DENIED_CIDRS, DEFAULT_HTTP_PORTS } from './constants.ts';

export { BROKER_PATHS, BROKER_PORTS, DEFAULT_DENIED_CIDRS, DEFAULT_HTTP_PORTS };

import { parseCidr } from './addresses.ts';

const port = z.number().int().min(1).max(65535);
/** A port to listen on; 0 picks a free one (tests), reported in the `listening` line. */
const listenPort = z.number().int().min(0).max(65535);
const absolutePath = z.string().startsWith('/', 'must be an absolute path');
const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label');

/**
 * A host an egress entry names: a DNS name (`registry.npmjs.org`) or a wildcard over one name's subdomains
 * (`*.crates.io` matches `static.crates.io`, not `crates.io` itself). IP literals are never listed: egress is
 * by name only.
 */
export const HOST_PATTERN = /^(\*\.)?([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const egressEntrySchema = z
  .object({
    host: z.string().regex(HOST_PATTERN, 'must be a lower-case DNS name, optionally starting with "*."'),
    ports: z.array(port).min(1).default([443]),
  })
  .strict();

/** Where a route's real credential goes: `header: value`, the value being `prefix` + the key file's content. */
export const credentialSchema = z
  .object({
    /** A file holding the key (a Secret mounted into the broker alone), read at start and on SIGHUP. */
    file: absolutePath,
    /** Lower-case header name, e.g. `x-api-key`, `authorization`, `x-goog-api-key`. */
    header: z.string().regex(/^[a-z0-9-]+$/, 'must be a lower-case header name'),
    /** Put before the key, e.g. `Bearer `. */
    prefix: z.string().default(''),
  })
  .strict();

/**
 * `model`: a model provider. `gateway`: an MCP gateway. `telemetry`: an OTLP/HTTP endpoint every emitter of the
 * agent exports to (docs/observability.md); its requests are audited and counted but never traced themselves.
 */
export const ROUTE_KINDS = ['model', 'gateway', 'telemetry'] as const;

export const routeSchema = z
  .object({
    /** The first path segment callers use: `http://<broker>:<port>/<name>/…`. */
    name: dnsLabel,
    kind: z.enum(ROUTE_KINDS),
    /**
     * The one upstream this route reaches: an `https://` origin with an optional base path
     * (`https://api.anthropic.com`, `https://mcp.github.example/mcp`). `http://` only with `insecureHttp`.
     */
    upstream: z.string().url(),
    /** The credential the broker sets; absent for an upstream that needs none (a gateway without auth). */
    credential: credentialSchema.optional(),
    /** Allow a plain-HTTP upstream (an in-cluster test double). Off by default. */
    insecureHttp: z.boolean().default(false),
    /**
     * The upstream is inside the cluster (a gateway's Service): resolved by the system resolver and exempt
     * from deniedCidrs. Names under `.svc` and `.svc.cluster.local` are in-cluster without it; set it for a
     * cluster domain of another name. Every other upstream is resolved by the broker and refused when any
     * address is in deniedCidrs.
     */
    inCluster: z.boolean().default(false),
    /**
     * USD per million tokens of the route's model, for `toolyard_broker_cost_usd_total` (an estimate from the
     * provider-reported usage). Absent: no cost is counted for the route.
     */
    pricing: z
      .object({
        input: z.number().min(0),
        output: z.number().min(0),
        cacheRead: z.number().min(0).optional(),
        cacheWrite: z.number().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const callerSchema = z
  .object({
    /** The container's name, as it appears in audit lines and metrics. */
    name: dnsLabel,
    /** A file holding this caller's broker token (a key of the broker's token Secret). */
    tokenFile: absolutePath,
    /** Names of the routes this caller may use. */
    routes: z.array(dnsLabel).default([]),
    /** Hosts and ports this caller may reach through CONNECT. */
    egress: z.array(egressEntrySchema).default([]),
    /** Any public host on any of these ports (`network.egress: open`). Empty: only `egress`. */
    openPorts: z.array(port).default([]),
  })
  .strict();

export const limitsSchema = z
  .object({
    /** Most bytes of request headers. */
    maxHeaderBytes: z
      .number()
      .int()
      .min(1024)
      .default(32 * 1024),
    /** From connecting to the end of the request headers. */
    headersTimeoutMs: z.number().int().positive().default(10_000),
    /** A tunnel or stream with no byte either way for this long is closed. */
    idleTimeoutMs: z.number().int().positive().default(300_000),
    /** Open client connections in all. */
    maxConnections: z.number().int().positive().default(4096),
    /** Open client connections per caller. */
    maxConnectionsPerCaller: z.number().int().positive().default(1024),
    /** Connecting to an upstream (resolution included). */
    connectTimeoutMs: z.number().int().positive().default(10_000),
  })
  .strict();

export const brokerConfigSchema = z
  .object({
    /** The agent this broker serves, for audit lines. */
    agent: dnsLabel,
    listen: z
      .object({
        host: z.string().min(1).default('0.0.0.0'),
        port: listenPort,
        /** Names callers may use in Host (the broker Service's names); loopback is always accepted. */
        allowedHosts: z.array(z.string().min(1)).default([]),
      })
      .strict(),
    /** `/healthz`, `/readyz` and `/metrics` (Prometheus), on a listener of their own. */
    health: z.object({ host: z.string().min(1).default('0.0.0.0'), port: listenPort }).strict(),
    routes: z.array(routeSchema).default([]),
    callers: z.array(callerSchema).min(1),
    /** Refused after resolution, whatever a caller's list says. */
    deniedCidrs: z.array(z.string().min(1)).default([...DEFAULT_DENIED_CIDRS]),
    /**
     * Ports where a tunnel must open with a TLS ClientHello or an HTTP/1.x request (whose name the broker checks):
     * anything else to them is refused, not relayed. Other ports pass bytes it cannot read (SSH, a database).
     */
    httpPorts: z.array(port).default([...DEFAULT_HTTP_PORTS]),
    /** Extra CA certificates (PEM file) trusted for upstream TLS, besides Node's bundled roots. */
    extraCaFile: absolutePath.optional(),
    /**
     * The broker's own spans (docs/observability.md): one per authenticated route request and tunnel, sent as
     * OTLP/HTTP JSON through `route` (a `telemetry` route: its upstream and credential). Absent: no spans; a
     * caller's `traceparent` is still forwarded upstream.
     */
    telemetry: z
      .object({ route: dnsLabel, sampleRatio: sampleRatioSchema, resource: resourceAttributesSchema })
      .strict()
      .optional(),
    /** Labels on every sample of `/metrics` (`agent`): what a dashboard groups by, whatever the scrape adds. */
    metricsLabels: z
      .record(
        z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name'),
        z.string().max(128),
      )
      .default({}),
    limits: limitsSchema.default({
      maxHeaderBytes: 32 * 1024,
      headersTimeoutMs: 10_000,
      idleTimeoutMs: 300_000,
      maxConnections: 4096,
      maxConnectionsPerCaller: 1024,
      connectTimeoutMs: 10_000,
    }),
  })
  .strict()
  .superRefine((config, ctx) => {
    const routeNames = new Set<string>();
    config.routes.forEach((route, i) => {
      if (routeNames.has(route.name))
        ctx.addIssue({
          code: 'custom',
          path: ['routes', i, 'name'],
          message: `duplicate route "${route.name}"`,
        });
      routeNames.add(route.name);
      const url = URL.canParse(route.upstream) ? new URL(route.upstream) : undefined;
      if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && route.insecureHttp))
        ctx.addIssue({
          code: 'custom',
          path: ['routes', i, 'upstream'],
          message: 'must be an https:// origin (set insecureHttp for a plain-HTTP test double)',
        });
      if (url && (url.search || url.hash || url.username || url.password))
        ctx.addIssue({
          code: 'custom',
          path: ['routes', i, 'upstream'],
          message: 'must be an origin with an optional path: no query, fragment or user info',
        });
    });
    if (config.telemetry) {
      const route = config.routes.find((r) => r.name === config.telemetry!.route);
      if (route?.kind !== 'telemetry')
        ctx.addIssue({
          code: 'custom',
          path: ['telemetry', 'route'],
          message: `must name a route of kind telemetry; this config has ${
            config.routes
              .filter((r) => r.kind === 'telemetry')
              .map((r) => r.name)
              .join(', ') || 'none'
          }`,
        });
    }
    config.deniedCidrs.forEach((text, i) => {
      if (!parseCidr(text))
        ctx.addIssue({
          code: 'custom',
          path: ['deniedCidrs', i],
          message: `"${text}" is not a CIDR range (a.b.c.d/n or an IPv6 prefix, no host bits set)`,
        });
    });
    const callerNames = new Set<string>();
    config.callers.forEach((caller, i) => {
      if (callerNames.has(caller.name))
        ctx.addIssue({
          code: 'custom',
          path: ['callers', i, 'name'],
          message: `duplicate caller "${caller.name}"`,
        });
      callerNames.add(caller.name);
      caller.routes.forEach((route, j) => {
        if (!routeNames.has(route))
          ctx.addIssue({ code: 'custom', path: ['callers', i, 'routes', j], message: `no route "${route}"` });
      });
    });
  });

export type BrokerConfigInput = z.input<typeof brokerConfigSchema>;
export type BrokerConfig = z.output<typeof brokerConfigSchema>;
export type BrokerRoute = z.output<typeof routeSchema>;
export type BrokerCaller = z.output<typeof callerSchema>;
export type EgressEntry = z.output<typeof egressEntrySchema>;

export interface BrokerConfigIssue {
  readonly path: string;
  readonly message: string;
}

export type BrokerConfigParseResult =
  | { readonly ok: true; readonly config: BrokerConfig }
  | { readonly ok: false; readonly issues: readonly BrokerConfigIssue[] };

/** Parses an already-decoded JSON value; never throws. Paths are JSON Pointers (`/callers/0/tokenFile`). */
export function parseBrokerConfig(value: unknown): BrokerConfigParseResult {
  const result = brokerConfigSchema.safeParse(value);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: `/${issue.path.map(String).join('/')}`,
      message: issue.message,
    })),
  };
}

/** Whether `host` (lower-case, no port) matches an egress entry's pattern. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}
