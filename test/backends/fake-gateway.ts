/**
 * A small MCP server standing in for a gateway: streamable HTTP on 127.0.0.1 behind a bearer token, both
 * protocol eras (the SDK's stateless serving), one tool that answers with a nonce. It records every request,
 * so the same class also serves as a canary for servers that must never be contacted.
 */
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { createMcpHandler, type McpHttpHandler, Server } from '@modelcontextprotocol/server';

export interface FakeGateway {
  readonly port: number;
  /** Every request: whether it carried the token, and the JSON-RPC method. */
  readonly requests: {
    readonly authorized: boolean;
    readonly method: string | undefined;
    /** The `traceparent` header and `params._meta.traceparent` the request carried (trace propagation). */
    readonly traceparent?: string | undefined;
    readonly metaTraceparent?: string | undefined;
  }[];
  /** Arguments of every tool call that got through. */
  readonly calls: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface FakeGatewayOptions {
  readonly token?: string;
  readonly toolName: string;
  /** What the tool answers; the test checks it comes back through the CLI. */
  readonly answer: string;
  /** Listen on this port (the one the spec renders into the gateway URL); 0 picks one. */
  readonly port?: number;
  /** Serve HTTPS on this already listening socket (another network namespace's address) instead. */
  readonly listener?: {
    readonly socket: NetServer;
    readonly tls: { readonly key: string; readonly cert: string };
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeGateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  const requests: FakeGateway['requests'] = [];
  const calls: Record<string, unknown>[] = [];
  const handler: McpHttpHandler = createMcpHandler(() => {
    const server = new Server({ name: 'fake-gateway', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({
      tools: [
        {
          name: options.toolName,
          description: 'Looks up a ticket by id.',
          inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      ],
    }));
    server.setRequestHandler('tools/call', (request) => {
      calls.push({ name: request.params.name, ...request.params.arguments });
      return { content: [{ type: 'text', text: options.answer }] };
    });
    return server;
  });
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const text = request.method === 'POST' ? await readBody(request) : '';
    let method: string | undefined;
    let metaTraceparent: string | undefined;
    try {
      const message = JSON.parse(text) as { method?: string; params?: { _meta?: { traceparent?: string } } };
      method = message.method;
      metaTraceparent = message.params?._meta?.traceparent;
    } catch {
      method = undefined;
    }
    const authorized =
      options.token === undefined || request.headers.authorization === `Bearer ${options.token}`;
    const traceparent =
      typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined;
    requests.push({ authorized, method, traceparent, metaTraceparent });
    if (!authorized) {
      response.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }),
      );
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === 'string') headers.set(name, value);
    const web = new Request(`http://127.0.0.1${request.url}`, {
      method: request.method ?? 'GET',
      headers,
      ...(request.method === 'POST' ? { body: text } : {}),
    });
    const answer = await handler.fetch(web);
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      out[name] = value;
    });
    response.writeHead(answer.status, out);
    response.end(Buffer.from(await answer.arrayBuffer()));
  };
  const listener = options.listener;
  const http: HttpServer = listener ? createHttpsServer(listener.tls, serve) : createServer(serve);
  if (listener) listener.socket.on('connection', (socket) => http.emit('connection', socket));
  else await new Promise<void>((done) => http.listen(options.port ?? 0, '127.0.0.1', done));
  return {
    port: listener ? 443 : (http.address() as AddressInfo).port,
    requests,
    calls,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      if (listener) await new Promise<void>((done) => listener.socket.close(() => done()));
      else await new Promise<void>((done) => http.close(() => done()));
    },
  };
}
