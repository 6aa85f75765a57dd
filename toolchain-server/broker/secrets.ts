/**
 * The broker's secrets: caller tokens and route keys, read from the files the config names (mounted Secrets)
 * at start and on SIGHUP, and applied to the running broker all at once or not at all.
 */
import { readTokenFile, TokenSet } from '../kit/token-file.ts';
import type { BrokerConfig } from './config.ts';
import type { BrokerContext } from './context.ts';

export interface BrokerSecrets {
  /** Caller name → broker token. */
  readonly callerTokens: Readonly<Record<string, string>>;
  /** Route name → the route's key (without the credential prefix). */
  readonly routeKeys: Readonly<Record<string, string>>;
}

/** Reads every caller token and route key the config names; errors name the config field and the file. */
export function readSecrets(config: BrokerConfig): BrokerSecrets {
  const callerTokens: Record<string, string> = {};
  config.callers.forEach((caller, i) => {
    callerTokens[caller.name] = readTokenFile(caller.tokenFile, `/callers/${i}/tokenFile`);
  });
  const routeKeys: Record<string, string> = {};
  config.routes.forEach((route, i) => {
    if (route.credential)
      routeKeys[route.name] = readTokenFile(route.credential.file, `/routes/${i}/credential/file`);
  });
  const seen = new Map<string, string>();
  for (const [name, token] of Object.entries(callerTokens)) {
    const other = seen.get(token);
    if (other)
      throw new Error(`callers "${other}" and "${name}" have the same broker token; each needs its own`);
    seen.set(token, name);
  }
  return { callerTokens, routeKeys };
}

export function applySecrets(ctx: BrokerContext, secrets: BrokerSecrets): void {
  const tokens = new TokenSet();
  for (const caller of ctx.config.callers) {
    const token = secrets.callerTokens[caller.name];
    if (!token) throw new Error(`caller "${caller.name}": no broker token`);
    tokens.add(caller.name, token);
  }
  const credentials = new Map<string, string>();
  for (const route of ctx.config.routes) {
    if (!route.credential) continue;
    const key = secrets.routeKeys[route.name];
    if (!key) throw new Error(`route "${route.name}": no key`);
    if (/[\r\n]/.test(key)) throw new Error(`route "${route.name}": the key holds a line break`);
    credentials.set(route.name, `${route.credential.prefix}${key}`);
  }
  ctx.tokens = tokens;
  ctx.credentials = credentials;
}
