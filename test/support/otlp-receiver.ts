/**
 * A stand-in OTLP/HTTP receiver for unit tests (the end-to-end tests use a real Jaeger): it accepts
 * `POST /…/v1/traces` as OTLP JSON, keeps every span flattened with its resource, and records each request's
 * path and `Authorization`, so tests can check what a component exported and with which credential.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly resource: Readonly<Record<string, string | number | boolean>>;
  readonly status: { readonly code?: number; readonly message?: string };
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly requests: {
    readonly path: string;
    readonly authorization: string | undefined;
    readonly body: string;
  }[];
  /** Resolves once `predicate` holds for the spans received (polling), or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** An OTLP/JSON attribute value. */
export type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.doubleValue ?? '';
}

/** OTLP/JSON attributes (a key/value list) as a plain record; an integer's string form read as a number. */
export function attributes(
  list: { key: string; value: AnyValue }[] | undefined,
): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
      try {
        const parsed = JSON.parse(body) as {
          resourceSpans?: {
            resource?: { attributes?: { key: string; value: AnyValue }[] };
            scopeSpans?: { spans?: Record<string, unknown>[] }[];
          }[];
        };
        for (const rs of parsed.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                name: String(s.name),
                kind: Number(s.kind),
                traceId: String(s.traceId),
                spanId: String(s.spanId),
                parentSpanId: (s.parentSpanId as string | undefined) || undefined,
                attributes: attributes(s.attributes as { key: string; value: AnyValue }[]),
                resource,
                status: (s.status as ReceivedSpan['status']) ?? {},
              });
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      } catch {
        response.writeHead(400);
        response.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    requests,
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans received: ${JSON.stringify(spans.map((s) => s.name))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
