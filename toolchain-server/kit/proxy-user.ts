/**
 * The user name in a broker proxy URL, which every tool sends as the user of `Proxy-Authorization: Basic`: the
 * caller's name, and for a traced call the call's trace context after a `~` (`toolchain-node~00-<trace>-<span>-01`).
 * Tools send no `traceparent` on a CONNECT, so this is how the broker's tunnel span joins the trace of the tool call
 * whose command opened it. The token alone identifies the caller; the context is only a parent for a span, which a
 * command could set anyway (it may send any `traceparent` to a route), so it is not a credential.
 */
import { formatTraceparent, parseTraceparent, type TraceContext } from './trace-context.ts';

/** Between the caller's name and the context: an unreserved URL character that no caller name (a DNS label) has. */
const SEPARATOR = '~';

/** The proxy user of a call traced with `context`. */
export function tracedProxyUser(caller: string, context: TraceContext): string {
  return `${caller}${SEPARATOR}${formatTraceparent(context)}`;
}

/**
 * The caller's name and, when the user carries a valid one, the trace context. An invalid context is dropped
 * (its span then starts a trace of its own), as an invalid `traceparent` header is.
 */
export function parseProxyUser(user: string): { readonly caller: string; readonly parent?: TraceContext } {
  const at = user.indexOf(SEPARATOR);
  if (at < 0) return { caller: user };
  const parent = parseTraceparent(user.slice(at + 1));
  return { caller: user.slice(0, at), ...(parent ? { parent } : {}) };
}
