/**
 * An open CONNECT tunnel: the client's first bytes are held until they name the CONNECT host, then bytes are
 * copied both ways and counted until either side closes or the tunnel idles out; the audit line is written
 * when both sides have closed.
 */
import type { Socket } from 'node:net';
import { type BrokerContext, finish, type Outcome, release } from './context.ts';
import type { BrokerErrorCode } from './errors.ts';
import { namesTarget, readFirstBytes } from './first-bytes.ts';

/**
 * Answers 200, then holds the client's first bytes until they show which site it asks for: a TLS ClientHello
 * must name the CONNECT host (SNI), a plain HTTP/1.x request (any method) must carry it as Host or in its target.
 * Only then does a byte go upstream; a mismatch closes both sides. Bytes that are neither are refused on HTTP
 * ports (fail closed) and pass unread elsewhere (SSH, a database).
 */
export function tunnel(
  ctx: BrokerContext,
  socket: Socket,
  upstream: Socket,
  head: Buffer,
  caller: string,
  started: number,
  outcome: Outcome,
  host: string,
  port: number,
): void {
  let held = head;
  let settled = false;
  const idle = ctx.config.limits.idleTimeoutMs;
  const refuse = (reason: string, code: BrokerErrorCode = 'TOOLYARD_BROKER_NAME_MISMATCH') => {
    if (settled) return;
    settled = true;
    socket.destroy();
    upstream.destroy();
    release(ctx, caller, 'connect');
    finish(ctx, started, {
      ...outcome,
      decision: 'denied',
      code,
      reason,
      status: 403,
      bytesIn: held.length,
    });
  };
  const check = (): boolean => {
    const first = readFirstBytes(held);
    if (first.kind === 'incomplete') return false;
    if (first.kind === 'invalid')
      refuse(`the tunnel's first bytes are ${first.reason}`, 'TOOLYARD_BROKER_UNREADABLE_TUNNEL');
    else if (first.kind === 'other' && ctx.config.httpPorts.includes(port))
      refuse(
        `the tunnel's first bytes to port ${port} are neither a TLS ClientHello nor an HTTP/1.x request: on an HTTP port the broker relays only what it can check`,
        'TOOLYARD_BROKER_UNREADABLE_TUNNEL',
      );
    else if (first.kind === 'tls' && first.serverName === undefined)
      refuse(`the TLS ClientHello names no server (SNI); it must name ${host}`);
    else if (first.kind === 'tls' && !namesTarget(first.serverName!, host, port))
      refuse(`the TLS ClientHello names ${JSON.stringify(first.serverName)}, not the CONNECT host ${host}`);
    else if (first.kind === 'http' && (first.host === undefined || !namesTarget(first.host, host, port)))
      refuse(`the HTTP request's Host is ${JSON.stringify(first.host ?? '')}, not the CONNECT host ${host}`);
    else {
      settled = true;
      socket.off('data', onData);
      socket.off('close', onEarlyClose);
      socket.off('end', onEarlyClose);
      socket.pause();
      relay(ctx, socket, upstream, held, caller, started, outcome);
    }
    return true;
  };
  const onData = (chunk: Buffer) => {
    held = Buffer.concat([held, chunk]);
    check();
  };
  const onEarlyClose = () => refuse('the caller closed the tunnel before sending a byte upstream');
  socket.setTimeout(idle, () => refuse(`idle for ${idle} ms before the first bytes`));
  upstream.on('error', () => {});
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (check()) return;
  socket.on('data', onData);
  // The server's sockets allow half-open connections: a client's FIN is 'end', not 'close'.
  socket.on('end', onEarlyClose);
  socket.on('close', onEarlyClose);
  socket.resume();
}

/** Copies bytes both ways once the first bytes passed, counting them; `held` goes upstream first. */
function relay(
  ctx: BrokerContext,
  socket: Socket,
  upstream: Socket,
  held: Buffer,
  caller: string,
  started: number,
  outcome: Outcome,
): void {
  let bytesIn = held.length;
  let bytesOut = 0;
  let closed = 0;
  let reason: string | null = null;
  const idle = ctx.config.limits.idleTimeoutMs;
  // Either side ending ends the other once its queued bytes are written; the line is written when both closed.
  const onClose = (other: Socket) => () => {
    other.end();
    if (++closed < 2) return;
    release(ctx, caller, 'connect');
    finish(ctx, started, { ...outcome, decision: 'allowed', status: 200, bytesIn, bytesOut, reason });
  };
  const abort = (why: string) => {
    reason ??= why;
    socket.destroy();
    upstream.destroy();
  };
  socket.on('data', (chunk: Buffer) => {
    bytesIn += chunk.length;
  });
  upstream.on('data', (chunk: Buffer) => {
    bytesOut += chunk.length;
  });
  socket.setTimeout(idle, () => abort(`idle for ${idle} ms`));
  upstream.setTimeout(idle, () => abort(`idle for ${idle} ms`));
  socket.on('close', onClose(upstream));
  upstream.on('close', onClose(socket));
  upstream.on('error', () => abort('the upstream connection failed'));
  if (held.length) upstream.write(held);
  socket.pipe(upstream);
  upstream.pipe(socket);
}
