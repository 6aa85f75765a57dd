/**
 * Which request headers go upstream and which response headers come back: caller credentials (every header a
 * CLI may put an API key in, and the `key` query parameter), cookies, forwarding and hop-by-hop headers never
 * cross the broker.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Where CLIs put their API key; each is read as a broker token and every one is dropped before forwarding. */
export const CALLER_CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;

/** Never forwarded upstream, whatever their casing: credentials, cookies, hop-by-hop and forwarding headers. */
const DROPPED_REQUEST_HEADERS = new Set([
  ...CALLER_CREDENTIAL_HEADERS,
  'proxy-authorization',
  'cookie',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  // Node's server has already answered 100 Continue; the upstream gets the body without waiting.
  'expect',
  'forwarded',
  'via',
  'x-real-ip',
]);

const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'set-cookie',
]);

function bearer(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(value);
  return match ? match[1] : value.trim() || undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The raw query without any `key` parameter (Gemini's API key), other parameters kept byte for byte. */
export function splitKeyParam(query: string): { keys: string[]; rest: string } {
  if (!query) return { keys: [], rest: '' };
  const keys: string[] = [];
  const kept: string[] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const name = safeDecode(eq >= 0 ? part.slice(0, eq) : part)
      .trim()
      .toLowerCase();
    if (name === 'key') keys.push(safeDecode(eq >= 0 ? part.slice(eq + 1) : ''));
    else kept.push(part);
  }
  return { keys, rest: kept.join('&') };
}

/** Every token the request presents, from each credential header and `key` parameter. */
export function presentedTokens(headers: IncomingHttpHeaders, keys: readonly string[]): string[] {
  const tokens: string[] = [];
  for (const name of CALLER_CREDENTIAL_HEADERS) {
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    const token = name === 'authorization' ? bearer(text) : text?.trim();
    if (token) tokens.push(token);
  }
  for (const key of keys) if (key) tokens.push(key);
  return tokens;
}

export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const connectionListed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (DROPPED_REQUEST_HEADERS.has(name) || connectionListed.has(name) || name.startsWith('x-forwarded-'))
      continue;
    out[name] = value;
  }
  return out;
}

export function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const connectionListed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name) || connectionListed.has(name)) continue;
    out[name] = value;
  }
  return out;
}
