/**
 * One call that turns a `telemetry` config block into a Tracer and its exporter — what the toolchain server,
 * the broker and the sandbox manager do at start. No block: `Tracer.off` (context is still passed on, nothing
 * is recorded or sent).
 *
 *   const telemetry = startTelemetry(config.telemetry, { serviceName: 'toolyard-sandbox-manager', version });
 *   const span = telemetry.tracer.start('sandbox create', { kind: 'server', parent, class: 'external-authority' });
 *   …
 *   await telemetry.shutdown();   // on SIGTERM: sends what is queued
 */

import { httpTransport, OtlpExporter, type OtlpTransport } from './otlp-exporter.ts';
import type { SpanAttributeValue } from './span-attributes.ts';
import type { TelemetryConfig } from './telemetry-config.ts';
import { readTokenFile } from './token-file.ts';
import { Tracer } from './tracing.ts';

export interface Telemetry {
  readonly tracer: Tracer;
  readonly exporter: OtlpExporter | undefined;
  /** Sends what is queued; resolves when the requests in flight end. */
  shutdown(): Promise<void>;
}

export interface TelemetryIdentity {
  /** `service.name`: `toolyard-toolchain-server`, `toolyard-broker`, … */
  readonly serviceName: string;
  readonly version: string;
  /** Attributes this process adds to the config's resource (`toolyard.toolchain`, …). */
  readonly resource?: Readonly<Record<string, SpanAttributeValue>>;
  /** How spans leave; default: POST to the config's endpoint with its token. */
  readonly transport?: OtlpTransport;
}

export const NO_TELEMETRY: Telemetry = {
  tracer: Tracer.off,
  exporter: undefined,
  shutdown: () => Promise.resolve(),
};

export function startTelemetry(
  config:
    | TelemetryConfig
    | { readonly sampleRatio: number; readonly resource: Record<string, string> }
    | undefined,
  identity: TelemetryIdentity,
): Telemetry {
  if (!config) return NO_TELEMETRY;
  let transport = identity.transport;
  if (!transport) {
    if (!('endpoint' in config)) throw new Error('telemetry: an endpoint or a transport is required');
    const token = config.tokenFile ? readTokenFile(config.tokenFile, '/telemetry/tokenFile') : undefined;
    transport = httpTransport(config.endpoint, token ? { authorization: `Bearer ${token}` } : {});
  }
  const exporter = new OtlpExporter({
    transport,
    resource: {
      ...config.resource,
      ...identity.resource,
      'service.name': identity.serviceName,
      'service.version': identity.version,
    },
    scope: { name: 'toolyard', version: identity.version },
  });
  const tracer = new Tracer({ sink: exporter, sampleRatio: config.sampleRatio });
  return { tracer, exporter, shutdown: () => exporter.flush() };
}
