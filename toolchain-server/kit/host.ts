/**
 * Host header parsing and checks, shared by the toolchain server and the broker. A Host (or Origin authority)
 * is parsed once, strictly: a name or IP literal and an optional decimal port in 1–65535. Anything else is
 * refused up front — before a handler builds a URL from it and throws after the reply is already taken over.
 */

export interface HostAuthority {
  /** Lower-case; IPv6 literals keep their brackets (`[::1]`). */
  readonly hostname: string;
  readonly port: number | undefined;
}

const NAME = /^[a-z0-9_]([-a-z0-9_.]*[a-z0-9_])?$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;
const PORT = /^[0-9]{1,5}$/;

/** Parses `host[:port]`; undefined when it is not one (bad characters, empty, a port beyond 65535…). */
export function parseHostHeader(value: string | undefined): HostAuthority | undefined {
  if (value === undefined || value === '' || value.length > 255) return undefined;
  const text = value.toLowerCase();
  let hostname: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return undefined;
    hostname = text.slice(0, end + 1);
    const rest = text.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      portText = rest.slice(1);
    }
    if (!IPV6_LITERAL.test(hostname)) return undefined;
  } else {
    const colon = text.indexOf(':');
    hostname = colon >= 0 ? text.slice(0, colon) : text;
    portText = colon >= 0 ? text.slice(colon + 1) : undefined;
    if (!NAME.test(hostname)) return undefined;
  }
  if (portText === undefined) return { hostname, port: undefined };
  if (!PORT.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  return { hostname, port };
}

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function bracketed(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/**
 * Hostnames a request may name in Host/Origin: loopback, the listen host when it is a specific address, and
 * the configured extra names (a Service's names).
 */
export function allowedHostnames(listenHost: string, allowedHosts: readonly string[] = []): Set<string> {
  const hosts = new Set(LOOPBACK_HOSTNAMES);
  if (!WILDCARD_HOSTS.has(listenHost)) hosts.add(bracketed(listenHost));
  for (const host of allowedHosts) hosts.add(bracketed(host));
  return hosts;
}

/** Whether a Host header value parses and names one of `hostnames`. */
export function isAllowedHost(value: string | undefined, hostnames: ReadonlySet<string>): boolean {
  const parsed = parseHostHeader(value);
  return parsed !== undefined && hostnames.has(parsed.hostname);
}

/** Whether an Origin header value is an http(s) origin whose authority is one of `hostnames`. */
export function isAllowedOrigin(value: string, hostnames: ReadonlySet<string>): boolean {
  const match = /^https?:\/\/([^/?#@]+)$/i.exec(value);
  return match !== null && isAllowedHost(match[1], hostnames);
}
