/**
 * A lean Streamable HTTP server transport for one MCP session, written against the SDK's `Transport`
 * interface and plain Node request/response objects (no Web Request conversion on the hot path).
 *
 * Per POST: requests without a progress token are answered with a single JSON body; requests with one get an
 * SSE stream carrying progress notifications and then the response. When the HTTP client disconnects before
 * its answer, each pending request is cancelled exactly as if the client had sent notifications/cancelled,
 * which aborts the tool call and kills its process group.
 */
import type { ServerResponse } from 'node:http';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';

class PendingPost {
  readonly ids = new Set<RequestId>();
  private readonly responses: JSONRPCMessage[] = [];
  private readonly res: ServerResponse;
  private readonly sse: boolean;
  private readonly headers: Record<string, string>;
  private readonly batch: boolean;
  private started = false;
  done = false;

  constructor(res: ServerResponse, sse: boolean, headers: Record<string, string>, batch: boolean) {
    this.res = res;
    this.sse = sse;
    this.headers = headers;
    this.batch = batch;
  }

  private startSse(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      ...this.headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    this.res.flushHeaders();
  }

  notify(message: JSONRPCMessage): void {
    if (this.done || !this.sse) return; // a JSON response cannot carry notifications
    this.startSse();
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  respond(id: RequestId, message: JSONRPCMessage): void {
    if (this.done || !this.ids.delete(id)) return;
    if (this.sse) {
      this.startSse();
      this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    } else {
      this.responses.push(message);
    }
    if (this.ids.size === 0) this.finish();
  }

  /** A request that will get no response (cancelled): forget it. */
  drop(id: RequestId): void {
    if (this.ids.delete(id) && this.ids.size === 0) this.finish();
  }

  finish(): void {
    if (this.done) return;
    this.done = true;
    if (this.sse) {
      if (!this.started) {
        this.res.writeHead(202, this.headers).end();
        return;
      }
      this.res.end();
      return;
    }
    if (this.responses.length === 0) {
      this.res.writeHead(202, this.headers).end();
      return;
    }
    const body = JSON.stringify(this.batch ? this.responses : this.responses[0]);
    // A length instead of chunked framing: one write, and nothing for the client to reassemble.
    this.res
      .writeHead(200, {
        ...this.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      })
      .end(body);
  }
}

/**
 * How many request ids a session remembers. A cancelled call's handler may still be stopping after its id left
 * the pending set, so ids are remembered beyond their response; a call cannot stay alive across this many
 * later requests (at most maxConcurrency + maxQueue run or wait at once).
 */
const REMEMBERED_IDS = 10_000;

/** The request ids a session has used, most recent last, bounded. */
class UsedIds {
  private readonly ids = new Set<RequestId>();

  has(id: RequestId): boolean {
    return this.ids.has(id);
  }

  add(id: RequestId): void {
    this.ids.add(id);
    if (this.ids.size > REMEMBERED_IDS) this.ids.delete(this.ids.values().next().value as RequestId);
  }

  /** The first id of `requests` used before in the session or repeated within them. */
  firstReused(requests: readonly { id: RequestId }[]): RequestId | undefined {
    const seen = new Set<RequestId>();
    for (const { id } of requests) {
      if (this.ids.has(id) || seen.has(id)) return id;
      seen.add(id);
    }
    return undefined;
  }
}

export class SessionTransport implements Transport {
  readonly sessionId: string;
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** Pending request id → the POST waiting for its response. */
  private readonly pending = new Map<RequestId, PendingPost>();
  private readonly usedIds = new UsedIds();
  private closed = false;
  lastActivity = Date.now();

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  async start(): Promise<void> {}

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Handles one validated POST body. The response is written when every request in it is answered. */
  handlePost(messages: readonly JSONRPCMessage[], batch: boolean, res: ServerResponse): void {
    this.lastActivity = Date.now();
    const headers = { 'mcp-session-id': this.sessionId };
    const requests = messages.filter(isJSONRPCRequest);
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
      for (const message of messages) this.receive(message);
      return;
    }
    const reused = this.usedIds.firstReused(requests);
    if (reused !== undefined) {
      // MCP: a request id MUST NOT be reused within a session. Accepting one while the first runs (or is still
      // stopping after a cancel) would tie both calls to one id: a disconnect would stop only one of them.
      res.writeHead(400, { ...headers, 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: reused,
          error: {
            code: -32600,
            message: `Invalid Request: id ${JSON.stringify(reused)} was already used in this session (MCP request ids must be unique per session); nothing in this message was run`,
          },
        }),
      );
      return;
    }
    const wantsStream = requests.some((r) => r.params?._meta?.progressToken !== undefined);
    const post = new PendingPost(res, wantsStream, headers, batch);
    for (const request of requests) {
      // initialize runs nothing and opens the session: clients (and tests) often number from it again.
      if (request.method !== 'initialize') this.usedIds.add(request.id);
      post.ids.add(request.id);
      this.pending.set(request.id, post);
    }
    res.on('close', () => {
      if (post.done) return;
      // The client went away before its answer: cancel what it was waiting for.
      post.done = true;
      for (const id of post.ids) {
        this.pending.delete(id);
        this.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'client disconnected' },
        });
      }
      post.ids.clear();
    });
    for (const message of messages) this.receive(message);
  }

  private receive(message: JSONRPCMessage): void {
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      this.onmessage?.(message);
      if (id !== undefined) {
        const post = this.pending.get(id);
        this.pending.delete(id);
        post?.drop(id);
      }
      return;
    }
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id as RequestId;
      const post = this.pending.get(id);
      if (!post) return;
      this.pending.delete(id);
      this.lastActivity = Date.now();
      post.respond(id, message);
      return;
    }
    const related = options?.relatedRequestId;
    if (related !== undefined) this.pending.get(related)?.notify(message);
    // Messages unrelated to a request would need a standalone GET stream, which this server does not offer.
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, post] of this.pending) {
      this.pending.delete(id);
      post.drop(id);
    }
    this.onclose?.();
  }
}
