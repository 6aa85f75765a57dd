/** Small builders for the corpus's request templates (types.ts explains the `{{…}}` placeholders). */
import type { BrokerName, CallerName, Check, EndpointName, Expect } from './types.ts';

/** An HTTP/1.1 request head (and body) with CRLF line ends; `Host: {{HOST}}` unless headers bring one. */
export function request(
  method: string,
  target: string,
  headers: readonly string[] = [],
  body = '',
  options: { host?: string | null; close?: boolean } = {},
): string {
  const host =
    options.host === undefined ? ['Host: {{HOST}}'] : options.host === null ? [] : [`Host: ${options.host}`];
  const close = options.close === false ? [] : ['Connection: close'];
  const length =
    body === '' || headers.some((h) => /^(content-length|transfer-encoding)\s*:/i.test(h))
      ? []
      : [`Content-Length: ${body.length}`];
  return `${method} ${target} HTTP/1.1\r\n${[...host, ...headers, ...length, ...close].map((h) => `${h}\r\n`).join('')}\r\n${body}`;
}

/** A caller's token the way its CLI sends it on a route. */
export const BEARER = (caller: CallerName) => `Authorization: Bearer {{T:${caller}}}`;
export const API_KEY = (caller: CallerName) => `x-api-key: {{T:${caller}}}`;
export const PROXY = (caller: CallerName) => `Basic {{BASIC:${caller}}}`;

/** A CONNECT through `via` as `caller`, expecting `status` and `reached`. */
export function tunnel(
  via: BrokerName,
  caller: CallerName | undefined,
  authority: string,
  expect: Expect,
  extra: { dns?: Readonly<Record<string, readonly (readonly string[])[]>> } = {},
): Check {
  return {
    step: { kind: 'connect', via, authority, ...(caller ? { auth: PROXY(caller) } : {}), ...extra },
    expect,
  };
}

/** A route request through the lab broker that must succeed and reach `at`. */
export function routeOk(target: string, headers: readonly string[], at: EndpointName): Check {
  return {
    step: { kind: 'raw', to: 'lab', bytes: request('GET', target, headers) },
    expect: { status: [200], reached: [at] },
  };
}

/** Status sets. */
export const REFUSED_CONNECT = [403] as const;
export const BAD_REQUEST = [400] as const;
export const UNAUTHORISED = [401, 403] as const;
