/**
 * The CONNECT proxy: `CONNECT host:port` with `Proxy-Authorization: Basic base64(caller:token)`. The target
 * must be a name (never an IP literal) on the caller's own egress list (or any public name on one of its
 * openPorts). The broker resolves the name itself, refuses it when any address is in deniedCidrs, and
 * connects to the address it vetted — the client's bytes never cause a second resolution (DNS rebinding).
 */
import type { IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { parseProxyUser } from '../kit/proxy-user.ts';
import { deniedBy, parseIp } from './addresses.ts';
import { hostMatches } from './config.ts';
import {
  acquire,
  type BrokerContext,
  finish,
  type Outcome,
  type ResolvedAddress,
  release,
} from './context.ts';
import { BrokerError } from './errors.ts';
import { checkFraming } from './request-checks.ts';
import { tunnel } from './tunnel.ts';

const NAME = /^(?:[a-z0-9_](?:[-a-z0-9_]*[a-z0-9])?\.)*[a-z](?:[-a-z0-9]*[a-z0-9])?$/;

/**
 * Parses a CONNECT target into a lower-case name (one trailing dot dropped) and a port. IP literals and names
 * whose last label is numeric (`2130706433`, `0x7f.1`, `127.1`: forms a resolver reads as addresses) are
 * refused as IP literals.
 */
export function parseConnectTarget(target: string | undefined): { host: string; port: number } {
  // User info in the target is a credential in the wrong place: refused without repeating it.
  if (target?.includes('@'))
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      'the CONNECT target holds user info ("@"): send host:port as the target and the credentials in Proxy-Authorization',
    );
  const match = /^(\[[^\]]*\]|[^:[\]]+):([0-9]{1,5})$/.exec(target ?? '');
  if (!match)
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      `CONNECT target ${JSON.stringify(target ?? '')} is not host:port`,
    );
  const port = Number(match[2]);
  if (port < 1 || port > 65535)
    throw new BrokerError('TOOLYARD_BROKER_BAD_REQUEST', `CONNECT port ${match[2]} is not in 1-65535`);
  let host = match[1]!.toLowerCase();
  if (host.startsWith('[') || parseIp(host))
    throw new BrokerError(
      'TOOLYARD_BROKER_IP_LITERAL',
      `CONNECT to an IP address (${host}): egress is by name only`,
    );
  if (host.endsWith('.')) host = host.slice(0, -1);
  const last = host.slice(host.lastIndexOf('.') + 1);
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(last))
    throw new BrokerError(
      'TOOLYARD_BROKER_IP_LITERAL',
      `CONNECT to ${JSON.stringify(host)}, which a resolver reads as an IP address: egress is by name only`,
    );
  if (host.length > 253 || !NAME.test(host))
    throw new BrokerError(
      'TOOLYARD_BROKER_BAD_REQUEST',
      `CONNECT host ${JSON.stringify(host)} is not a DNS name`,
    );
  return { host, port };
}

/** Caller name and token from `Proxy-Authorization: Basic …`, or undefined. */
export function proxyCredentials(header: string | undefined): { user: string; token: string } | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

/** The egress rule that allows `host:port` for `caller`, or undefined. */
export function allowingRule(
  ctx: BrokerContext,
  callerName: string,
  host: string,
  port: number,
): string | undefined {
  const caller = ctx.callers.get(callerName);
  if (!caller) return undefined;
  for (const entry of caller.egress)
    if (entry.ports.includes(port) && hostMatches(entry.host, host)) return `${entry.host}:${port}`;
  if (caller.openPorts.includes(port)) return `open:${port}`;
  return undefined;
}

function describeList(ctx: BrokerContext, callerName: string): string {
  const caller = ctx.callers.get(callerName)!;
  const items = caller.egress.flatMap((e) => e.ports.map((p) => `${e.host}:${p}`));
  if (caller.openPorts.length) items.push(`any public host on ${caller.openPorts.join(', ')}`);
  return items.join(', ') || '(nothing)';
}

function writeRefusal(socket: Socket, error: BrokerError): void {
  const body = error.body();
  const reason =
    error.status === 407 ? 'Proxy Authentication Required' : error.message.replace(/[\r\n]/g, ' ');
  const lines = [
    `HTTP/1.1 ${error.status} ${reason.slice(0, 200)}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  if (error.status === 407) lines.push('proxy-authenticate: Basic realm="toolyard-broker"');
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

async function resolveWithin(
  ctx: BrokerContext,
  host: string,
  ms: number,
): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new BrokerError('TOOLYARD_BROKER_UPSTREAM_TIMEOUT', `resolving ${host} took over ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([ctx.resolve(host), timeout]);
  } catch (error) {
    if (error instanceof BrokerError) throw error;
    throw new BrokerError(
      'TOOLYARD_BROKER_RESOLVE_FAILED',
      `${host} did not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  } finally {
    clearTimeout(timer);
  }
}

function connectWithin(address: ResolvedAddress, port: number, ms: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address.address, port, family: address.family, noDelay: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new BrokerError(
          'TOOLYARD_BROKER_UPSTREAM_TIMEOUT',
          `no connection to ${address.address}:${port} within ${ms} ms`,
        ),
      );
    }, ms);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new BrokerError(
          'TOOLYARD_BROKER_UPSTREAM_FAILED',
          `connecting to ${address.address}:${port}: ${error.code ?? 'error'}`,
        ),
      );
    });
  });
}

export function handleConnect(
  ctx: BrokerContext,
  request: IncomingMessage,
  socket: Socket,
  head: Buffer,
): void {
  const started = ctx.now();
  const outcome: Outcome = {
    caller: null,
    kind: 'connect',
    route: null,
    target: null,
    rule: null,
    method: 'CONNECT',
    path: null,
    address: null,
    decision: 'error',
    code: null,
    reason: null,
    status: 0,
    bytesIn: 0,
    bytesOut: 0,
    usage: null,
  };
  socket.on('error', () => socket.destroy());
  const refuse = (error: BrokerError) => {
    if (!socket.destroyed) writeRefusal(socket, error);
    finish(ctx, started, {
      ...outcome,
      decision: error.status === 407 || error.status === 403 || error.status === 429 ? 'denied' : 'error',
      code: error.code,
      reason: error.message,
      status: error.status,
    });
  };

  let host: string;
  let port: number;
  let caller: string;
  try {
    checkFraming(request);
    ({ host, port } = parseConnectTarget(request.url));
    outcome.target = `${host}:${port}`;
    const hostHeader = request.headers.host?.toLowerCase().replace(/\.(?=:|$)/, '');
    if (hostHeader !== undefined && hostHeader !== `${host}:${port}` && hostHeader !== host)
      throw new BrokerError(
        'TOOLYARD_BROKER_BAD_REQUEST',
        `the Host header (${JSON.stringify(request.headers.host)}) does not match the CONNECT target ${host}:${port}`,
      );
    const credentials = proxyCredentials(request.headers['proxy-authorization']);
    const identified = credentials && ctx.tokens.identify(credentials.token);
    // The user is the caller's name, and may carry the trace context of the call that opens the tunnel.
    const user = credentials && parseProxyUser(credentials.user);
    // Nothing of what the caller presented is repeated (its "user" may be a token put in the wrong place).
    if (!user || identified !== user.caller)
      throw new BrokerError(
        'TOOLYARD_BROKER_UNAUTHENTICATED',
        request.headers['proxy-authorization'] === undefined
          ? "no Proxy-Authorization: send Basic base64(<caller>:<broker token>) (the proxy URL's user info)"
          : "the Proxy-Authorization credential is not a caller's name with its broker token: send Basic base64(<caller>:<broker token>) (the proxy URL's user info)",
        407,
      );
    caller = identified;
    outcome.caller = caller;
    if (user.parent) outcome.parent = user.parent;
    const rule = allowingRule(ctx, caller, host, port);
    if (!rule)
      throw new BrokerError(
        'TOOLYARD_BROKER_HOST_NOT_ALLOWED',
        `caller "${caller}" may not reach ${host}:${port}; its list: ${describeList(ctx, caller)}`,
      );
    outcome.rule = rule;
  } catch (error) {
    refuse(error as BrokerError);
    return;
  }
  if (!acquire(ctx, caller, 'connect')) {
    refuse(
      new BrokerError(
        'TOOLYARD_BROKER_TOO_MANY_CONNECTIONS',
        `caller "${caller}" has ${ctx.config.limits.maxConnectionsPerCaller} requests and tunnels open already`,
      ),
    );
    return;
  }
  void open(ctx, socket, head, host, port, caller, started, outcome, refuse);
}

async function open(
  ctx: BrokerContext,
  socket: Socket,
  head: Buffer,
  host: string,
  port: number,
  caller: string,
  started: number,
  outcome: Outcome,
  refuse: (error: BrokerError) => void,
): Promise<void> {
  const deadline = started + ctx.config.limits.connectTimeoutMs;
  let upstream: Socket | undefined;
  try {
    const addresses = await resolveWithin(ctx, host, ctx.config.limits.connectTimeoutMs);
    if (addresses.length === 0)
      throw new BrokerError('TOOLYARD_BROKER_RESOLVE_FAILED', `${host} resolved to no address`);
    for (const { address } of addresses) {
      const ip = parseIp(address);
      const denied = ip ? deniedBy(ip, ctx.deniedCidrs) : undefined;
      if (!ip || denied)
        throw new BrokerError(
          'TOOLYARD_BROKER_ADDRESS_DENIED',
          `${host} resolves to ${address}, ${denied ? `in denied range ${denied.text}` : 'not an IP address'}; refused for every caller`,
        );
    }
    let lastError: unknown;
    for (const address of addresses) {
      if (socket.destroyed) break;
      const left = deadline - ctx.now();
      if (left <= 0) {
        lastError = new BrokerError(
          'TOOLYARD_BROKER_UPSTREAM_TIMEOUT',
          `no connection to ${host}:${port} within ${ctx.config.limits.connectTimeoutMs} ms`,
        );
        break;
      }
      try {
        upstream = await connectWithin(address, port, left);
        outcome.address = address.address;
        break;
      } catch (error) {
        lastError = error;
      }
    }
    if (!upstream)
      throw lastError ?? new BrokerError('TOOLYARD_BROKER_UPSTREAM_FAILED', 'the caller went away');
  } catch (error) {
    release(ctx, caller, 'connect');
    refuse(
      error instanceof BrokerError
        ? error
        : new BrokerError('TOOLYARD_BROKER_UPSTREAM_FAILED', `${host}:${port}: ${(error as Error).message}`),
    );
    return;
  }
  if (socket.destroyed) {
    upstream.destroy();
    release(ctx, caller, 'connect');
    finish(ctx, started, {
      ...outcome,
      decision: 'allowed',
      status: 0,
      reason: 'the caller went away while connecting',
    });
    return;
  }
  tunnel(ctx, socket, upstream, head, caller, started, outcome, host, port);
}
