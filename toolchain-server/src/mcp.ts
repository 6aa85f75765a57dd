/**
 * The MCP surface of a toolchain: one SDK `Server` per legacy client session or per 2026-07-28 request, all
 * delegating to the shared Toolchain. The low-level Server is used because the tool list and its JSON Schemas
 * are computed once at start; nothing is rebuilt per session or per call.
 */
import {
  type JsonSchemaValidator,
  type jsonSchemaValidator,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/server';
import type { LogSink } from '../kit/audit-sink.ts';
import { contextFromRequest } from '../kit/trace-context.ts';
import { type Toolchain, UnknownToolError } from './toolchain.ts';
import { SERVER_VERSION } from './version.ts';

/** This server never elicits, so it needs no JSON Schema engine; avoids building one per session. */
export const noElicitationValidator: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return () => ({ valid: false, data: undefined, errorMessage: 'elicitation is not used by this server' });
  },
};

export function createMcpServer(toolchain: Toolchain, log: LogSink): Server {
  const server = new Server(
    { name: `toolyard-toolchain-${toolchain.config.name}`, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions:
        `Toolchain "${toolchain.config.name}": runs builds, tests and linters on the shared workspace ` +
        `(${toolchain.config.workspaceRoots.join(', ')}). Call describe_toolchain first to see the tools, ` +
        'allowed commands and limits. Commands run as argv without a shell; refusals name the rule and what is allowed.',
      jsonSchemaValidator: noElicitationValidator,
    },
  );
  const tools = { tools: toolchain.listedTools as unknown as Tool[] };
  server.setRequestHandler('tools/list', () => tools);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const progressToken = request.params._meta?.progressToken;
    const sendProgress =
      progressToken === undefined
        ? undefined
        : (progress: number, message: string) => {
            const notification: ServerNotification = {
              method: 'notifications/progress',
              params: { progressToken, progress, message },
            };
            ctx.mcpReq.notify(notification).catch(() => {
              // the client went away; cancellation handles the rest
            });
          };
    try {
      return await toolchain.callTool(request.params.name, request.params.arguments, {
        signal: ctx.mcpReq.signal,
        sessionId: ctx.sessionId,
        sendProgress,
        // http.ts copies an HTTP traceparent header into _meta when the request has none there.
        trace: contextFromRequest(request.params._meta),
      });
    } catch (error) {
      // ProtocolError carries the bare message; the client adds its own "MCP error <code>:" prefix once.
      if (error instanceof UnknownToolError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      log({
        event: 'internal-error',
        tool: request.params.name,
        message: (error as Error)?.message ?? String(error),
      });
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'internal error while running the tool');
    }
  });
  return server;
}
