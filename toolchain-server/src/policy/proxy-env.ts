/**
 * The environment that sends a toolchain's children through the broker's CONNECT proxy (`egressProxy`): the
 * conventional variables in both cases, and each tool's own setting where the tool prefers it over those or
 * lets a project file override them (npm, yarn, pip, cargo all rank environment above project config).
 * git reads `https_proxy` through libcurl, and gets `http.proxy` as a GIT_CONFIG_* override (git.ts) so a
 * repository's own setting cannot win. The proxy URL carries this toolchain's caller name
 * and broker token as user info (`http://<user>:<token>@host:port`), which is how every one of these tools
 * sends Proxy-Authorization. Callers can set none of these names (env-names.ts).
 */

import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';

/** Names this module sets; every one is also refused to callers. */
export const PROXY_ENV_NAMES = [
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'https_proxy',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'npm_config_proxy',
  'npm_config_https_proxy',
  'npm_config_noproxy',
  'YARN_HTTP_PROXY',
  'YARN_HTTPS_PROXY',
  'PIP_PROXY',
  'CARGO_HTTP_PROXY',
] as const;

/** Always reached directly: the pod's own loopback. */
export const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '::1'] as const;

export interface EgressProxySettings {
  readonly url: string;
  readonly user: string;
  readonly noProxy: readonly string[];
}

/**
 * The proxy URL with credentials: `http://<user>:<url-encoded token>@host:port`. With `address`, the host is that
 * address instead of the configured name: under `limits.connect: egress` a call may open no UDP socket, so it
 * cannot resolve the proxy's name itself (docs/confinement.md, "The second wall").
 */
export function proxyUrl(
  settings: EgressProxySettings,
  token: string,
  address?: string,
  user: string = settings.user,
): string {
  const url = new URL(settings.url);
  const host = address === undefined ? url.host : `${isIPv6(address) ? `[${address}]` : address}:${url.port}`;
  return `${url.protocol}//${encodeURIComponent(user)}:${encodeURIComponent(token)}@${host}`;
}

/**
 * `env` with every value that is the proxy URL `plain` (the proxy variables, git's `http.proxy` override) replaced
 * by `traced`, the same URL whose user carries the call's trace context (kit/proxy-user.ts), so the broker's
 * tunnel spans of the call's command join its trace.
 */
export function withProxyUrl(
  env: Readonly<Record<string, string>>,
  plain: string,
  traced: string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value === plain ? traced : value]),
  );
}

/**
 * The address calls reach the proxy at, resolved once by the server, when calls cannot resolve names (`connect:
 * egress`) and the URL names a host; undefined otherwise, or when the name does not resolve (then calls get the
 * name, and their fetches fail to resolve it: the warning says why).
 */
export async function proxyAddressForCalls(
  url: string,
  connect: 'egress' | 'pod',
  warn: (message: string) => void,
): Promise<string | undefined> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (connect !== 'egress' || isIP(host) !== 0) return undefined;
  try {
    return (await lookup(host)).address;
  } catch (error) {
    warn(
      `egressProxy.url names ${host}, which did not resolve (${(error as Error).message}); under limits.connect: egress calls cannot resolve names, so their fetches will fail: make the name resolvable, or give egressProxy.url an address`,
    );
    return undefined;
  }
}

export function egressProxyEnv(
  settings: EgressProxySettings,
  token: string,
  address?: string,
): Record<string, string> {
  const proxy = proxyUrl(settings, token, address);
  const noProxy = [...new Set([...LOOPBACK_NO_PROXY, ...settings.noProxy])].join(',');
  return {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: proxy,
    npm_config_https_proxy: proxy,
    npm_config_noproxy: noProxy,
    YARN_HTTP_PROXY: proxy,
    YARN_HTTPS_PROXY: proxy,
    PIP_PROXY: proxy,
    CARGO_HTTP_PROXY: proxy,
  } satisfies Record<(typeof PROXY_ENV_NAMES)[number], string>;
}
