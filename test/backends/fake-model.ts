/**
 * A scripted model behind a fake provider API on 127.0.0.1. Each turn it looks at the tools the CLI offers and
 * the tool results already in the conversation: it calls the next planned tool (found by a name pattern among
 * the offered tools), and once every planned call has a result, it answers in text. It records what it saw so
 * a test can assert that each result carried its nonce. The wire formats live in one adapter per provider.
 */
import { appendFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server as NetServer } from 'node:net';

/** One tool call the model makes, matched against the offered tool names. */
export interface PlannedCall {
  /** Which offered tool to call, e.g. /toolchain-node.*exec_allowed$/. */
  readonly tool: RegExp;
  readonly args: Readonly<Record<string, unknown>>;
  /** Text the tool result must contain (for a withheld tool: must not contain). */
  readonly expect: string;
  /**
   * A tool the CLI must not run without an approval: it may be missing from the offered tools (then the script
   * moves on), and if the model calls it, its result must not carry `expect`.
   */
  readonly withheld?: boolean;
}

/** A tool result as the provider format returns it to the model. */
export interface SeenResult {
  readonly callId: string;
  /** The tool's name, for formats whose results may not echo the call id. */
  readonly tool?: string;
  readonly text: string;
}

/** What the adapter extracts from one model request. */
export interface TurnInput {
  readonly offeredTools: readonly string[];
  readonly results: readonly SeenResult[];
}

/** What the model decides for one turn. */
export type TurnOutput =
  | {
      readonly kind: 'call';
      readonly callId: string;
      readonly tool: string;
      readonly args: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'text'; readonly text: string };

export interface CallRecord {
  readonly callId: string;
  readonly planned: PlannedCall;
  /** The offered tool name the model called, or undefined when no offered tool matched. */
  readonly tool: string | undefined;
  result?: string;
}

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The request's headers as they arrived (a test behind a proxy checks which credential came). */
  readonly headers: IncomingHttpHeaders;
}

/** The scripted conversation and everything observed during it. */
export class ModelScript {
  plan: readonly PlannedCall[];
  calls: CallRecord[] = [];
  /** The tool names offered on the first turn that listed tools. */
  offeredTools: readonly string[] = [];
  turns = 0;
  /** Withheld planned calls whose tool was not offered at all. */
  skipped = 0;
  finalText: string;

  constructor(plan: readonly PlannedCall[], finalText = 'All planned tool calls returned.') {
    this.plan = plan;
    this.finalText = finalText;
  }

  /** Starts a new conversation with another plan (the fake API keeps serving this script). */
  restart(plan: readonly PlannedCall[]): void {
    this.plan = plan;
    this.calls = [];
    this.offeredTools = [];
    this.turns = 0;
    this.skipped = 0;
  }

  /**
   * Decides one turn from the conversation the CLI sent, not from server state: the results it carries say how
   * far the script is. A request that offers no tools is a side request (titles, summaries): plain text.
   */
  turn(input: TurnInput): TurnOutput {
    if (input.offeredTools.length === 0) return { kind: 'text', text: 'ok' };
    this.turns++;
    if (this.offeredTools.length === 0) this.offeredTools = [...input.offeredTools];
    let answered = 0;
    for (const call of this.calls) {
      const result =
        input.results.find((r) => r.callId === call.callId) ??
        input.results.find((r) => r.callId === '' && r.tool !== undefined && r.tool === call.tool);
      if (!result) break;
      call.result ??= result.text;
      answered++;
    }
    if (answered < this.calls.length) return { kind: 'text', text: 'The last tool result is missing.' };
    let index = answered + this.skipped;
    let next = this.plan[index];
    let tool = next && input.offeredTools.find((name) => next?.tool.test(name));
    while (next?.withheld && tool === undefined) {
      this.skipped++;
      index++;
      next = this.plan[index];
      tool = next && input.offeredTools.find((name) => next?.tool.test(name));
    }
    if (next === undefined) return { kind: 'text', text: this.finalText };
    const callId = `toolu_${answered + 1}${Math.random().toString(36).slice(2, 12)}`;
    this.calls.push({ callId, planned: next, tool });
    if (tool === undefined)
      return {
        kind: 'text',
        text: `No offered tool matches ${next.tool}; offered: ${input.offeredTools.join(', ')}`,
      };
    return { kind: 'call', callId, tool, args: next.args };
  }

  /** Problems with the run, empty when every planned call reached its tool and returned its nonce. */
  problems(): string[] {
    const out: string[] = [];
    if (this.offeredTools.length === 0) out.push('the CLI offered the model no tools at all');
    this.plan.forEach((planned, index) => {
      const call = this.calls.find((c) => c.planned === planned);
      if (planned.withheld) {
        if (call?.result?.includes(planned.expect))
          out.push(`${call.tool}: ran without an approval: ${call.result.slice(0, 200)}`);
        return;
      }
      if (!call) out.push(`planned call ${index + 1} (${planned.tool}) was never made`);
      else if (call.tool === undefined)
        out.push(`no offered tool matches ${planned.tool}; offered: ${this.offeredTools.join(', ')}`);
      else if (call.result === undefined) out.push(`${call.tool}: no result came back`);
      else if (!call.result.includes(planned.expect))
        out.push(
          `${call.tool}: result lacks ${JSON.stringify(planned.expect)}: ${call.result.slice(0, 400)}`,
        );
    });
    return out;
  }
}

export type RouteHandler = (request: IncomingMessage, body: unknown, response: ServerResponse) => boolean;

export interface FakeApi {
  readonly url: string;
  readonly requests: RequestRecord[];
  close(): Promise<void>;
}

/**
 * Where a fake API serves, when not on plain HTTP at 127.0.0.1: HTTPS with the given certificate, on a socket
 * already listening elsewhere (another network namespace's address), known to callers as `url`.
 */
export interface FakeApiListener {
  readonly socket: NetServer;
  readonly url: string;
  readonly tls: { readonly key: string; readonly cert: string };
  /** The provider's credential: a request without exactly this header value is answered 401, as upstream would. */
  readonly credential?: { readonly header: string; readonly value: string };
  /** Awaited before each request is answered (a test inspects the client while it waits for the answer). */
  readonly gate?: () => Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (or on `listener`) that hands JSON bodies to `route`; anything unrouted
 * is a recorded 404.
 */
export async function startFakeApi(route: RouteHandler, listener?: FakeApiListener): Promise<FakeApi> {
  const requests: RequestRecord[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      if (process.env.TOOLYARD_FAKE_API_LOG)
        appendFileSync(
          process.env.TOOLYARD_FAKE_API_LOG,
          `${JSON.stringify({ url: request.url, headers: request.headers, body })}\n`,
        );
      void respond(request, body, response);
    });
  };
  const respond = async (request: IncomingMessage, body: unknown, response: ServerResponse) => {
    await listener?.gate?.();
    let handled = false;
    const credential = listener?.credential;
    try {
      if (credential && request.headers[credential.header] !== credential.value) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: { type: 'authentication_error', message: `fake API: wrong ${credential.header}` },
          }),
        );
        handled = true;
      } else handled = route(request, body, response);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String((error as Error).stack ?? error) } }));
      handled = true;
    }
    if (!handled) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { type: 'not_found', message: `fake API: no route ${request.url}` } }),
      );
    }
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      status: response.statusCode,
      headers: request.headers,
    });
  };
  const server: Server = listener
    ? createHttpsServer({ key: listener.tls.key, cert: listener.tls.cert }, handler)
    : createServer(handler);
  // WebSocket upgrades (Codex tries the Responses API over a WebSocket first) are declined, so clients fall
  // back to plain HTTP streaming.
  server.on('upgrade', (request, socket) => {
    requests.push({
      method: `${request.method} (upgrade)`,
      path: request.url ?? '',
      status: 404,
      headers: request.headers,
    });
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  let url: string;
  if (listener) {
    listener.socket.on('connection', (socket) => server.emit('connection', socket));
    url = listener.url;
  } else {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        if (!listener) server.close(() => done());
        else listener.socket.close(() => done());
      }),
  };
}

/** Writes one server-sent event. */
export function sse(response: ServerResponse, event: string | undefined, data: unknown): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** Flattens MCP-ish tool result content (strings, text blocks, nested arrays) to one string. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (content && typeof content === 'object') {
    const record = content as Record<string, unknown>;
    if (typeof record.text === 'string') return record.text;
    return JSON.stringify(content);
  }
  return String(content ?? '');
}
