/**
 * The stateless leg of `/mcp`: MCP revision 2026-07-28 and later (`server/discover`, a per-request `_meta`
 * envelope, no sessions), served by the SDK's own HTTP entry from a per-request `Server`. 2025-era traffic
 * (`initialize` and sessions) stays on the session transport; `isModernRequest` routes between the two exactly
 * as the SDK's own classifier does, without building a Web Request for legacy traffic.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpHttpHandler,
  PROTOCOL_VERSION_META_KEY,
  type Server,
} from '@modelcontextprotocol/server';

/** The first revision of the stateless era; revisions are ISO dates, so they order as strings. */
const FIRST_MODERN_REVISION = '2026-07-28';

function hasEnvelopeClaim(message: unknown): boolean {
  const params = (message as { params?: unknown } | null)?.params;
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * True when the request belongs to the modern path, as the SDK's `isLegacyRequest` decides: it claims the
 * per-request envelope or names a modern revision in `MCP-Protocol-Version` (the modern path also answers such
 * requests when they are malformed). Everything else, including bodies that are not JSON-RPC at all, stays
 * with the session transport.
 */
export function isModernRequest(headers: IncomingHttpHeaders, body: unknown): boolean {
  const versionHeader = header(headers, 'mcp-protocol-version');
  // The SDK's classifier looks further only when one of these is present; skip it on the legacy hot path.
  const claims =
    (versionHeader !== undefined && versionHeader.trim() >= FIRST_MODERN_REVISION) ||
    (Array.isArray(body) ? body.some(hasEnvelopeClaim) : hasEnvelopeClaim(body));
  if (!claims) return false;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: versionHeader,
    mcpMethodHeader: header(headers, 'mcp-method'),
    mcpNameHeader: header(headers, 'mcp-name'),
    body,
  });
  return outcome.kind !== 'legacy';
}

export function createModernHandler(factory: () => Server, onerror: (error: Error) => void): McpHttpHandler {
  return createMcpHandler(factory, { legacy: 'reject', onerror });
}

/**
 * Serves one modern POST whose body fastify already parsed. A client that disconnects before its answer aborts
 * the request, which cancels the tool call and kills its process group, as on the session transport.
 */
export async function serveModern(
  handler: McpHttpHandler,
  headers: IncomingHttpHeaders,
  url: string,
  body: unknown,
  res: ServerResponse,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const webHeaders = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') webHeaders.set(name, value);
    else if (Array.isArray(value)) for (const item of value) webHeaders.append(name, item);
  }
  const request = new Request(`http://${header(headers, 'host') ?? '127.0.0.1'}${url}`, {
    method: 'POST',
    headers: webHeaders,
    signal: abort.signal,
  });
  const response = await handler.fetch(request, { parsedBody: body });
  if (abort.signal.aborted) {
    await response.body?.cancel();
    return;
  }
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  res.writeHead(response.status, responseHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  const stream = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
