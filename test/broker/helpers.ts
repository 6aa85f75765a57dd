/**
 * Helpers for broker tests: a TLS upstream on 127.0.0.1 (certificate from the test CA), a broker built
 * in-process with token and key files in a temp directory, and raw-socket clients for requests the HTTP
 * client would refuse to send (smuggling, CONNECT).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BrokerConfig,
  type BrokerConfigInput,
  DEFAULT_DENIED_CIDRS,
  parseBrokerConfig,
} from '../../toolchain-server/broker/config.ts';
import type { Resolver } from '../../toolchain-server/broker/context.ts';
import { type Broker, buildBroker } from '../../toolchain-server/broker/server.ts';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import type { TestCa } from './tls-fixture.ts';

/**
 * The default denied ranges without loopback, for brokers whose route upstreams are this process's
 * fixtures on 127.0.0.1 (route upstreams are checked against deniedCidrs like CONNECT hosts).
 */
export const LOOPBACK_ALLOWED = DEFAULT_DENIED_CIDRS.filter((cidr) => cidr !== '127.0.0.0/8');

export interface Upstream {
  readonly server: HttpsServer;
  readonly port: number;
  readonly origin: string;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with a certificate from `ca` (for the name `localhost`). */
export async function startUpstream(
  ca: TestCa,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Upstream> {
  const server = createHttpsServer({ cert: ca.cert, key: ca.key }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    server,
    port,
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TestBroker {
  readonly broker: Broker;
  readonly config: BrokerConfig;
  readonly port: number;
  readonly healthPort: number;
  readonly url: string;
  readonly lines: Readonly<Record<string, unknown>>[];
  readonly dir: string;
  /** Audit lines only. */
  audits(): Record<string, unknown>[];
  close(): Promise<void>;
}

export interface StartBrokerOptions {
  /** Caller name → token, written to files; each caller in `config.callers` gets `tokenFile` set from it. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Route name → key, written to files and set as each route's `credential.file`. */
  readonly keys?: Readonly<Record<string, string>>;
  readonly resolve?: Resolver;
}

type CallerInput = Omit<BrokerConfigInput['callers'][number], 'tokenFile'>;
type RouteInput = Omit<NonNullable<BrokerConfigInput['routes']>[number], 'credential'> & {
  credential?: { header: string; prefix?: string };
};

export type TestBrokerConfig = Omit<
  BrokerConfigInput,
  'callers' | 'routes' | 'listen' | 'health' | 'agent'
> & {
  agent?: string;
  callers: CallerInput[];
  routes?: RouteInput[];
  listen?: Partial<BrokerConfigInput['listen']>;
};

/** Builds a broker from `input` (token and key files written for it) and listens on 127.0.0.1. */
export async function startBroker(input: TestBrokerConfig, options: StartBrokerOptions): Promise<TestBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-broker-test-'));
  const callers = input.callers.map((caller) => {
    const tokenFile = join(dir, `caller-${caller.name}`);
    writeFileSync(tokenFile, `${options.tokens[caller.name] ?? ''}\n`);
    return { ...caller, tokenFile };
  });
  const routes = (input.routes ?? []).map((route) => {
    if (!route.credential) return route;
    const file = join(dir, `key-${route.name}`);
    writeFileSync(file, `${options.keys?.[route.name] ?? ''}\n`);
    return { ...route, credential: { ...route.credential, file } };
  });
  const parsed = parseBrokerConfig({
    agent: 'reviewer',
    ...input,
    listen: { host: '127.0.0.1', port: 8480, ...input.listen },
    health: { host: '127.0.0.1', port: 9480 },
    callers,
    routes,
  });
  if (!parsed.ok) throw new Error(`bad test config: ${JSON.stringify(parsed.issues)}`);
  const sink = memorySink();
  const broker = buildBroker(parsed.config, {
    log: sink,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const listen = (server: Broker['proxy']) =>
    new Promise<number>((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  const port = await listen(broker.proxy);
  const healthPort = await listen(broker.health);
  return {
    broker,
    config: parsed.config,
    port,
    healthPort,
    url: `http://127.0.0.1:${port}`,
    lines: sink.lines,
    dir,
    audits: () => sink.lines.filter((l) => l.event === 'broker-audit') as Record<string, unknown>[],
    close: async () => {
      broker.proxy.closeAllConnections();
      await broker.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends raw bytes and collects everything until the server closes or `ms` pass. */
export function rawExchange(port: number, bytes: string | Buffer, ms = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`${Buffer.concat(chunks).toString('latin1')}<<timeout>>`);
    }, ms);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

export function basicAuth(user: string, token: string): string {
  return `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
}

/**
 * Sends `CONNECT target` and resolves with the status line and headers once the reply head has arrived; the
 * socket is then the tunnel (or closed by the broker).
 */
export function connectVia(
  port: number,
  target: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; head: string; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const head = buffer.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const rest = buffer.subarray(end + 4);
      if (status === 200) {
        if (rest.length) socket.unshift(rest);
        resolve({ status, head, body: '', socket });
        return;
      }
      const chunks: Buffer[] = [rest];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', () =>
        resolve({ status, head, body: Buffer.concat(chunks).toString('utf8'), socket }),
      );
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}
