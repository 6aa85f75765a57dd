/**
 * A small MCP client over Streamable HTTP for code mode's targets: one session per target for the server's life
 * (initialized on first use, again when the target forgets it), keep-alive connections, JSON or SSE answers, a cap on
 * what one answer may hold. The bearer token is set here, from memory; nothing of it reaches a program.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { SERVER_VERSION } from '../version.ts';

const PROTOCOL_VERSION = '2025-06-18';

/** The largest answer read from a target; beyond it the call fails (a program's reply is capped anyway). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A failure to reach or understand a target (not a tool's own `isError` result). */
export class McpClientError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'McpClientError';
    this.status = status;
  }
}

interface JsonRpcAnswer {
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export class McpHttpClient {
  private readonly url: URL;
  private readonly token: string | undefined;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly host: string | undefined;
  private readonly clientName: string;
  private session: Promise<string | undefined> | undefined;
  private nextId = 1;

  /**
   * `options.host`: the Host header to send instead of the URL's (a server reached by its pod IP that accepts
   * only its configured names); `options.clientName`: the clientInfo name in `initialize`.
   */
  constructor(url: string, token?: string, options: { host?: string; clientName?: string } = {}) {
    this.url = new URL(url);
    this.token = token;
    this.host = options.host;
    this.clientName = options.clientName ?? 'toolyard-code-mode';
    this.agent =
      this.url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 16 })
        : new HttpAgent({ keepAlive: true, maxSockets: 16 });
  }

  /** `tools/list`, every page. */
  async listTools(signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const tools: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = (await this.request('tools/list', cursor ? { cursor } : {}, signal)) as {
        tools?: Record<string, unknown>[];
        nextCursor?: string;
      };
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /**
   * `tools/call`: the tool's result as the target returned it (an `isError` result is a result). A trace
   * context goes in `params._meta` (the MCP convention) and in the `traceparent` header (for proxies).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    trace?: { readonly traceparent: string; readonly tracestate?: string | undefined },
  ): Promise<unknown> {
    const meta = trace
      ? {
          _meta: {
            traceparent: trace.traceparent,
            ...(trace.tracestate ? { tracestate: trace.tracestate } : {}),
          },
        }
      : {};
    return this.request('tools/call', { name, arguments: args, ...meta }, signal, trace?.traceparent);
  }

  close(): void {
    this.agent.destroy();
  }

  private async request(
    method: string,
    params: unknown,
    signal?: AbortSignal,
    traceparent?: string,
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.ensureSession(signal);
      const id = this.nextId++;
      const answer = await this.post({ jsonrpc: '2.0', id, method, params }, session, signal, traceparent);
      // The target restarted and forgot the session: one new session, then the same request again.
      if (answer.status === 404 && session !== undefined && attempt === 0) {
        this.session = undefined;
        continue;
      }
      if (answer.status < 200 || answer.status >= 300)
        throw new McpClientError(`${method}: HTTP ${answer.status} from ${this.url.host}`, answer.status);
      const message = answer.messages.find((m) => (m as { id?: unknown }).id === id) as
        | JsonRpcAnswer
        | undefined;
      if (!message) throw new McpClientError(`${method}: no answer from ${this.url.host}`);
      if (message.error) throw new McpClientError(`${method}: ${message.error.message}`);
      return message.result;
    }
  }

  private ensureSession(signal?: AbortSignal): Promise<string | undefined> {
    this.session ??= (async () => {
      const answer = await this.post(
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: { name: this.clientName, version: SERVER_VERSION },
          },
        },
        undefined,
        signal,
      );
      if (answer.status < 200 || answer.status >= 300)
        throw new McpClientError(`initialize: HTTP ${answer.status} from ${this.url.host}`, answer.status);
      const session = answer.sessionId;
      await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session, signal);
      return session;
    })().catch((error) => {
      this.session = undefined;
      throw error;
    });
    return this.session;
  }

  private post(
    body: unknown,
    session: string | undefined,
    signal?: AbortSignal,
    traceparent?: string,
  ): Promise<{ status: number; sessionId: string | undefined; messages: unknown[] }> {
    const payload = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(payload.length),
    };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (this.host !== undefined) headers.host = this.host;
    if (traceparent !== undefined) headers.traceparent = traceparent;
    if (session !== undefined) {
      headers['mcp-session-id'] = session;
      headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    }
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        this.url,
        { method: 'POST', headers, agent: this.agent, ...(signal ? { signal } : {}) },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              res.destroy();
              reject(
                new McpClientError(`the answer from ${this.url.host} exceeds ${MAX_ANSWER_BYTES} bytes`),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const sessionId = res.headers['mcp-session-id'];
            try {
              resolve({
                status: res.statusCode ?? 0,
                sessionId: typeof sessionId === 'string' ? sessionId : session,
                messages: parseMessages(text, String(res.headers['content-type'] ?? '')),
              });
            } catch (error) {
              reject(
                new McpClientError(`unreadable answer from ${this.url.host}: ${(error as Error).message}`),
              );
            }
          });
        },
      );
      req.on('error', (error) =>
        reject(
          signal?.aborted
            ? new McpClientError('the call was cancelled')
            : new McpClientError(`cannot reach ${this.url.host}: ${error.message}`),
        ),
      );
      req.end(payload);
    });
  }
}

/** JSON-RPC messages of an answer: one JSON body (or a batch), or the `data:` of each SSE event. */
function parseMessages(text: string, contentType: string): unknown[] {
  if (text.trim() === '') return [];
  if (contentType.includes('text/event-stream')) {
    const out: unknown[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) out.push(JSON.parse(data));
    }
    return out;
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}
