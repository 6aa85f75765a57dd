/**
 * How the broker sends its own spans: through its telemetry route, exactly as a caller's export would go — the
 * route's upstream (`<upstream>/v1/traces`), its vetted lookup (deniedCidrs for an external endpoint), TLS
 * verified for its name, HTTP/2 when offered, and the route's credential, which only the broker holds.
 */
import type { OtlpTransport } from '../kit/otlp-exporter.ts';
import type { BrokerContext } from './context.ts';
import { UpstreamCall, type UpstreamResponse } from './upstream-call.ts';

const EXPORT_TIMEOUT_MS = 10_000;

export function telemetryTransport(ctx: BrokerContext, route: string): OtlpTransport {
  return (body) =>
    new Promise((resolve) => {
      const upstream = ctx.upstreams.get(route);
      const config = ctx.routes.get(route);
      if (!upstream || !config || upstream.deniedLiteral !== undefined) return resolve(0);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      };
      const credential = ctx.credentials.get(route);
      if (config.credential && credential !== undefined) headers[config.credential.header] = credential;
      const call = new UpstreamCall(ctx, route, upstream, {
        method: 'POST',
        path: `${upstream.basePath}/v1/traces`,
        headers,
      });
      let settled = false;
      const done = (status: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(status);
      };
      const timer = setTimeout(() => {
        call.destroy();
        done(0);
      }, EXPORT_TIMEOUT_MS);
      timer.unref();
      call.on('error', () => done(0));
      call.on('response', (response: UpstreamResponse) => {
        response.body.resume();
        response.body.on('end', () => done(response.statusCode));
        response.body.on('error', () => done(0));
      });
      call.body.end(body);
    });
}
