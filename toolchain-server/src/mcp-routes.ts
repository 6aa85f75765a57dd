/**
 * The MCP Streamable HTTP endpoint (`/mcp`), as the toolchain server and the sandbox manager both serve it: the
 * 2026-07-28 stateless requests through the SDK's handler, and the 2025 session path — `initialize` alone opens a
 * session (never by evicting a live one: a full server answers 503 with Retry-After), later POSTs name it by
 * `Mcp-Session-Id` and a supported `MCP-Protocol-Version`, batches of JSON-RPC 2.0 messages, no standalone SSE
 * stream (GET is 405), DELETE ends a session. Authentication, Host and Origin checks stay with each server
 * (its `onRequest` hook); content negotiation, where a server wants it, is its `precheck`.
 */
import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type McpHttpHandler,
  parseJSONRPCMessage,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isModernRequest, serveModern } from './modern.ts';
import type { Session, SessionRegistry } from './sessions.ts';
import { carryHeaderTraceContext } from './trace-headers.ts';
import { SessionTransport } from './transport.ts';

/** A JSON-RPC error with no id, as the transport answers what it cannot route. */
export function jsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export interface McpRoutesOptions {
  readonly sessions: SessionRegistry;
  /** The 2026-07-28 stateless handler (modern.ts). */
  readonly modern: McpHttpHandler;
  /** A new MCP server for a new session. */
  readonly createServer: () => Server;
  /** Checks a POST before its body is read as MCP; a reply it sent ends the request. */
  readonly precheck?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

export function registerMcpRoutes(app: FastifyInstance, options: McpRoutesOptions): void {
  const { sessions, modern, createServer, precheck } = options;

  app.post('/mcp', async (request, reply) => {
    const refused = precheck?.(request, reply);
    if (refused) return refused;
    const body = request.body;
    carryHeaderTraceContext(body, request.headers);
    if (isModernRequest(request.headers, body)) {
      reply.hijack();
      await serveModern(modern, request.headers, request.url, body, reply.raw);
      return;
    }
    const batch = Array.isArray(body);
    const raw: unknown[] = batch ? body : [body];
    if (raw.length === 0) return jsonRpcError(reply, 400, -32600, 'Invalid Request: empty batch');
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      try {
        messages.push(parseJSONRPCMessage(item));
      } catch {
        return jsonRpcError(reply, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      }
    }
    let session: Session | undefined;
    if (messages.some(isInitializeRequest)) {
      if (messages.length > 1)
        return jsonRpcError(reply, 400, -32600, 'Invalid Request: initialize must be sent on its own');
      // Live sessions are never evicted to make room: the new client waits instead.
      if (sessions.full) {
        reply.header('retry-after', String(sessions.retryAfterSeconds()));
        return jsonRpcError(
          reply,
          503,
          -32000,
          `Service Unavailable: all ${sessions.max} MCP sessions are in use; retry later`,
        );
      }
      const id = randomUUID();
      const transport = new SessionTransport(id);
      const server = createServer();
      transport.onclose = () => sessions.forget(id);
      await server.connect(transport);
      session = { server, transport };
      sessions.add(id, session);
    } else {
      const id = request.headers['mcp-session-id'];
      if (typeof id !== 'string' || id === '')
        return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      session = sessions.get(id);
      if (!session) return jsonRpcError(reply, 404, -32001, 'Session not found');
      const version = request.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return jsonRpcError(reply, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version}`);
    }
    reply.hijack();
    session.transport.handlePost(messages, batch && messages.some(isJSONRPCRequest), reply.raw);
  });

  app.get('/mcp', async (_request, reply) => {
    // No server-initiated messages exist outside requests, so there is no standalone SSE stream.
    reply.header('allow', 'POST, DELETE');
    return jsonRpcError(
      reply,
      405,
      -32000,
      'Method Not Allowed: this server offers no standalone SSE stream',
    );
  });

  app.delete('/mcp', async (request, reply) => {
    const id = request.headers['mcp-session-id'];
    if (typeof id !== 'string' || !sessions.get(id))
      return jsonRpcError(reply, 404, -32001, 'Session not found');
    await sessions.close(id);
    return reply.code(200).send();
  });
}
