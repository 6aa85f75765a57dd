/** The broker's red-team corpus: one file per attack class (types.ts describes a case). */
import { ABSOLUTE_URI_CASES } from './absolute-uri.ts';
import { CREDENTIAL_OVERRIDE_CASES } from './credential-override.ts';
import { CROSS_CALLER_CASES } from './cross-caller.ts';
import { DNS_REBINDING_CASES } from './dns-rebinding.ts';
import { CREDENTIAL_ECHO_CASES, TUNNEL_METHOD_CASES, UNREADABLE_TUNNEL_CASES } from './fail-closed.ts';
import { HOST_SNI_CASES } from './host-sni-mismatch.ts';
import { IP_LITERAL_CASES } from './ip-literals.ts';
import { LIMITS_CASES } from './limits.ts';
import { LOOPBACK_CASES } from './loopback-resolution.ts';
import { PRIVATE_ADDRESS_CASES } from './private-addresses.ts';
import { PROXY_AUTH_CASES } from './proxy-auth.ts';
import { ROUTE_TRAVERSAL_CASES } from './route-traversal.ts';
import { SMUGGLING_CASES } from './smuggling.ts';
import type { RedteamCase } from './types.ts';
import { UNLISTED_HOST_CASES } from './unlisted-hosts.ts';
import { UPGRADE_CASES } from './upgrade.ts';
import { UPSTREAM_TLS_CASES } from './upstream-tls.ts';

export const CORPUS: readonly RedteamCase[] = [
  ...UNLISTED_HOST_CASES,
  ...IP_LITERAL_CASES,
  ...PRIVATE_ADDRESS_CASES,
  ...LOOPBACK_CASES,
  ...DNS_REBINDING_CASES,
  ...HOST_SNI_CASES,
  ...ABSOLUTE_URI_CASES,
  ...ROUTE_TRAVERSAL_CASES,
  ...SMUGGLING_CASES,
  ...CREDENTIAL_OVERRIDE_CASES,
  ...CROSS_CALLER_CASES,
  ...PROXY_AUTH_CASES,
  ...UPGRADE_CASES,
  ...LIMITS_CASES,
  ...UPSTREAM_TLS_CASES,
  ...TUNNEL_METHOD_CASES,
  ...UNREADABLE_TUNNEL_CASES,
  ...CREDENTIAL_ECHO_CASES,
];
