/**
 * A route's one upstream, parsed once at start, and how the broker finds the address it connects to.
 *
 * A route upstream is resolved by the broker itself, as a CONNECT host is (the hosts file, then DNS for the
 * fully qualified name), and refused when any of its addresses is in `deniedCidrs`; the connection goes to an
 * address that was checked, while TLS still verifies the certificate for the upstream's name (servername).
 * The exception is an **in-cluster** upstream — a Service name (`<svc>.<ns>.svc`, `….svc.cluster.local`) or a
 * route with `inCluster: true` — which legitimately has a private address: it is resolved by the system
 * resolver (the pod's search path applies) and the denied ranges do not apply to it.
 *
 * Resolution happens once per new upstream connection (pooled keep-alive connections are reused), never per
 * request.
 */
import {
  type LookupAddress,
  type LookupAllOptions,
  type LookupOptions,
  lookup as systemLookup,
} from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Cidr, Resolver } from './addresses.ts';
import { deniedBy, parseIp } from './addresses.ts';
import type { BrokerRoute } from './config.ts';
import { BrokerError } from './errors.ts';

/** Cluster Service names: `<svc>.<ns>.svc` (through the search path) and `….svc.cluster.local`. */
const CLUSTER_SERVICE_NAME = /\.svc(\.cluster\.local)?\.?$/;

export function isClusterServiceName(hostname: string): boolean {
  return CLUSTER_SERVICE_NAME.test(hostname.toLowerCase());
}

export interface RouteUpstream {
  /** `https://host[:port]`, for audit lines and messages. */
  readonly origin: string;
  /** The Host header value (`host[:port]`). */
  readonly host: string;
  /** The name (or IP literal, without brackets) connected to and verified. */
  readonly hostname: string;
  /** The name TLS sends as SNI and verifies: the upstream's name; undefined for an IP literal (no SNI). */
  readonly servername: string | undefined;
  readonly port: number;
  readonly tls: boolean;
  /** The upstream's base path without trailing slashes (`''` for none). */
  readonly basePath: string;
  readonly inCluster: boolean;
  /** For an IP-literal upstream outside the cluster that is in a denied range: why every request is refused. */
  readonly deniedLiteral: string | undefined;
}

export function routeUpstream(route: BrokerRoute, denied: readonly Cidr[]): RouteUpstream {
  const url = new URL(route.upstream);
  const tls = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const inCluster = route.inCluster || isClusterServiceName(hostname);
  const ip = parseIp(hostname);
  const range = ip && !inCluster ? deniedBy(ip, denied) : undefined;
  return {
    origin: url.origin,
    host: url.host,
    hostname,
    servername: ip ? undefined : hostname,
    port: Number(url.port) || (tls ? 443 : 80),
    tls,
    basePath: url.pathname.replace(/\/+$/, ''),
    inCluster,
    deniedLiteral: range
      ? `route "${route.name}": upstream ${hostname} is in denied range ${range.text} (an in-cluster upstream is a Service name or a route with inCluster: true)`
      : undefined,
  };
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The `lookup` a route's upstream connections use (net.connect calls it with `all: true` when it tries
 * several addresses): outside the cluster, the broker's resolver and the denied ranges; in-cluster, the system
 * resolver. A refusal is a BrokerError (TOOLYARD_BROKER_ADDRESS_DENIED) that reaches the request's error handler.
 */
export function upstreamLookup(
  route: string,
  upstream: RouteUpstream,
  resolve: Resolver,
  denied: readonly Cidr[],
): LookupFunction {
  if (upstream.inCluster) return systemLookup as LookupFunction;
  return (hostname: string, options: LookupOptions | LookupAllOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(
            new BrokerError(
              'TOOLYARD_BROKER_RESOLVE_FAILED',
              `route "${route}": ${hostname} resolved to no address`,
            ),
            '',
          );
          return;
        }
        for (const { address } of addresses) {
          const ip = parseIp(address);
          const range = ip ? deniedBy(ip, denied) : undefined;
          if (!ip || range) {
            callback(
              new BrokerError(
                'TOOLYARD_BROKER_ADDRESS_DENIED',
                `route "${route}": upstream ${hostname} resolves to ${address}, ${range ? `in denied range ${range.text}` : 'not an IP address'}; refused (an in-cluster upstream is a Service name or a route with inCluster: true)`,
              ),
              '',
            );
            return;
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) {
          callback(
            new BrokerError(
              'TOOLYARD_BROKER_RESOLVE_FAILED',
              `route "${route}": ${hostname} has no IPv${wanted} address`,
            ),
            '',
          );
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) =>
        callback(
          new BrokerError(
            'TOOLYARD_BROKER_RESOLVE_FAILED',
            `route "${route}": ${hostname} did not resolve (${error.code ?? 'error'})`,
          ),
          '',
        ),
    );
  };
}
