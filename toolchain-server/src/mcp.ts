/**
 * The MCP surface of a toolchain: one SDK `Server` per client session, all delegating to the shared Toolchain.
 * The low-level Server is used because the tool list and its JSON Schemas are computed once at start; nothing
 * is rebuilt per session or per call.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { LogSink } from './audit.ts';
import { type Toolchain, UnknownToolError } from './toolchain.ts';
import { SERVER_VERSION } from './version.ts';

/** This server never elicits, so it needs no JSON Schema engine; avoids building one per session. */
const noElicitationValidator: jsonSchemaValidator = {
  getValidator() {
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
  const tools = { tools: toolchain.listedTools as never[] };
  server.setRequestHandler(ListToolsRequestSchema, () => tools);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const sendProgress =
      progressToken === undefined
        ? undefined
        : (progress: number, message: string) => {
            const notification: ServerNotification = {
              method: 'notifications/progress',
              params: { progressToken, progress, message },
            };
            extra.sendNotification(notification).catch(() => {
              // the client went away; cancellation handles the rest
            });
          };
    try {
      return await toolchain.callTool(request.params.name, request.params.arguments, {
        signal: extra.signal,
        sessionId: extra.sessionId,
        sendProgress,
      });
    } catch (error) {
      if (error instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, error.message);
      log({
        event: 'internal-error',
        tool: request.params.name,
        message: (error as Error)?.message ?? String(error),
      });
      throw new McpError(ErrorCode.InternalError, 'internal error while running the tool');
    }
  });
  return server;
}
