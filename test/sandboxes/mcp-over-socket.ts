/**
 * A small MCP client for tests that reach a server through a Unix socket (`NodeNetwork.forwardFromAgent`):
 * initialize once, then tools/call over JSON-RPC with the session header and a bearer token, JSON or SSE answers.
 */
import { request } from 'node:http';

export interface ToolAnswer {
  readonly isError?: boolean;
  readonly content: readonly { readonly type: string; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
}

function post(
  socketPath: string,
  host: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; session: string | undefined; messages: unknown[] }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(payload.length),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const type = String(res.headers['content-type'] ?? '');
          const messages = text.trim()
            ? type.includes('text/event-stream')
              ? text
                  .split(/\n\n/)
                  .map((e) =>
                    e
                      .split('\n')
                      .filter((l) => l.startsWith('data:'))
                      .map((l) => l.slice(5))
                      .join(''),
                  )
                  .filter(Boolean)
                  .map((d) => JSON.parse(d) as unknown)
              : [JSON.parse(text) as unknown]
            : [];
          const session = res.headers['mcp-session-id'];
          resolve({
            status: res.statusCode ?? 0,
            session: typeof session === 'string' ? session : undefined,
            messages,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface SocketMcpClient {
  callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  listTools(): Promise<string[]>;
}

export async function socketMcpClient(
  socketPath: string,
  host: string,
  token: string,
): Promise<SocketMcpClient> {
  const auth = { authorization: `Bearer ${token}` };
  const init = await post(socketPath, host, auth, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'sandbox-e2e', version: '1' },
    },
  });
  if (init.status !== 200 || !init.session) throw new Error(`initialize: HTTP ${init.status}`);
  const session = { ...auth, 'mcp-session-id': init.session, 'mcp-protocol-version': '2025-06-18' };
  await post(socketPath, host, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 1;
  const call = async (method: string, params: unknown): Promise<unknown> => {
    const answer = await post(socketPath, host, session, { jsonrpc: '2.0', id: id++, method, params });
    const message = answer.messages[0] as { result?: unknown; error?: { message: string } } | undefined;
    if (answer.status !== 200 || !message) throw new Error(`${method}: HTTP ${answer.status}`);
    if (message.error) throw new Error(`${method}: ${message.error.message}`);
    return message.result;
  };
  return {
    callTool: async (name, args) => (await call('tools/call', { name, arguments: args })) as ToolAnswer,
    listTools: async () =>
      ((await call('tools/list', {})) as { tools: { name: string }[] }).tools.map((t) => t.name),
  };
}
