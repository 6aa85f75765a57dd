/**
 * One JSON audit line per proxied request or CONNECT tunnel, written when it ends. The field table is exported
 * so docs/broker.md can be checked against it. No field ever holds a token, a key, a query string or a body.
 */
import { type LogSink, writeAudit } from '../kit/audit-sink.ts';
import type { BrokerErrorCode } from './errors.ts';
import type { TokenUsage } from './usage.ts';

export const BROKER_AUDIT_FIELDS = {
  event: 'Always "broker-audit".',
  time: 'ISO-8601 time the request or tunnel ended.',
  agent: 'The agent this broker serves.',
  caller: 'The authenticated caller (container name), or null when no valid token was presented.',
  kind: '"route" (a model or gateway route) or "connect" (a CONNECT tunnel).',
  route: 'The route name (kind "route"), or null.',
  target:
    'Where it went: the upstream origin of the route, or host:port of the tunnel (null when the request was refused before a target was known).',
  rule: 'The egress entry or route that allowed it (`*.crates.io:443`, `open:443`, `route:anthropic`), or null.',
  method: 'The HTTP method (CONNECT for tunnels).',
  path: 'The path sent upstream, without the query string (kind "route"), or null.',
  address:
    "The IP address the tunnel or the route's upstream connection went to, after the deniedCidrs check, or null.",
  decision: '"allowed", "denied" (a policy refused it) or "error" (malformed request, upstream failure).',
  code: 'The TOOLYARD_BROKER_* code of a refusal or failure, or null.',
  reason: 'Why it was refused or failed, in words (never a token or key), or null.',
  status: "The HTTP status the caller got (the upstream's for a proxied response; 200 for an open tunnel).",
  bytesIn: 'Bytes the caller sent (request body, or tunnel bytes towards the upstream).',
  bytesOut: 'Bytes the caller received (response body as sent upstream, or tunnel bytes from it).',
  durationMs: 'From the request to the end of the response or tunnel.',
  usage:
    "The provider's token usage where the response reports it — {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens} — or null.",
} as const;

export type BrokerAuditField = keyof typeof BROKER_AUDIT_FIELDS;

export interface BrokerAuditRecord {
  readonly event: 'broker-audit';
  readonly time: string;
  readonly agent: string;
  readonly caller: string | null;
  readonly kind: 'route' | 'connect';
  readonly route: string | null;
  readonly target: string | null;
  readonly rule: string | null;
  readonly method: string;
  readonly path: string | null;
  readonly address: string | null;
  readonly decision: 'allowed' | 'denied' | 'error';
  readonly code: BrokerErrorCode | null;
  readonly reason: string | null;
  readonly status: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly durationMs: number;
  readonly usage: TokenUsage | null;
}

// Compile-time check that the record and the table name the same fields.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : false;
const sameFields: SameKeys<BrokerAuditRecord, typeof BROKER_AUDIT_FIELDS> = true;
void sameFields;

export function writeBrokerAudit(sink: LogSink, record: BrokerAuditRecord): void {
  writeAudit(sink, BROKER_AUDIT_FIELDS, record);
}
