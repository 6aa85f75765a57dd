/**
 * Runs one step of a case over raw sockets (node:net / node:tls), so that malformed requests reach the broker
 * byte for byte, and returns what came back.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import type { BrokerName, Step } from './types.ts';
import { fill, type World } from './world.ts';

export interface Outcome {
  /** Status of the first response; 0 when there was none. */
  status: number;
  /** Everything received: response heads, bodies and tunnelled bytes (latin1). */
  text: string;
  /** Milliseconds from the first byte sent to the response head or the close; Infinity when neither came. */
  doneMs: number;
  flood?: { granted: number; refused: number; total: number; otherOk: boolean };
}

export interface BrokerAddress {
  readonly host: string;
  readonly port: number;
}

const SILENCE_MS = 4000;

function statusOf(text: string): number {
  const match = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(text);
  return match ? Number(match[1]) : 0;
}

/** Whether `text` holds a complete first response (head + a body framed by length or chunks). */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end).toLowerCase();
  const body = text.slice(end + 4);
  const status = statusOf(text);
  if (status === 101 || status === 204 || status === 304 || (status >= 100 && status < 200)) return true;
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) return body.length >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return body.includes('0\r\n\r\n');
  return false;
}

/** Reads from `socket` until a complete response, the close, or `silenceMs` without a byte. */
function readResponse(socket: Socket, started: number, silenceMs = SILENCE_MS): Promise<Outcome> {
  return new Promise((resolve) => {
    let text = '';
    let doneMs = -1;
    let timer: NodeJS.Timeout;
    const finish = () => {
      clearTimeout(timer);
      socket.removeListener('data', onData);
      // Neither a response head nor a close: the broker kept the connection open and silent.
      resolve({ status: statusOf(text), text, doneMs: doneMs < 0 ? Number.POSITIVE_INFINITY : doneMs });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, silenceMs);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (doneMs < 0 && text.includes('\r\n\r\n')) doneMs = performance.now() - started;
      if (complete(text)) finish();
      else arm();
    };
    socket.on('data', onData);
    socket.once('close', () => {
      if (doneMs < 0) doneMs = performance.now() - started;
      finish();
    });
    socket.on('error', () => {});
    arm();
  });
}

function open(address: BrokerAddress | { host: string; port: number }): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address.host, port: address.port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads a CONNECT response head, leaving the socket with the bytes after it unread. */
function readHead(socket: Socket): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => done(), SILENCE_MS);
    const done = () => {
      clearTimeout(timer);
      socket.removeListener('data', onData);
      const end = buffer.indexOf('\r\n\r\n');
      resolve({
        head: buffer.subarray(0, end < 0 ? buffer.length : end + 4).toString('latin1'),
        rest: end < 0 ? Buffer.alloc(0) : buffer.subarray(end + 4),
      });
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.includes('\r\n\r\n')) done();
    };
    socket.on('data', onData);
    socket.once('close', done);
    socket.on('error', () => {});
  });
}

/** After a tunnel or a direct connection opens: TLS with a server name and/or bytes, then what comes back. */
async function converse(
  socket: Socket,
  options: { tls?: { servername: string }; send?: string },
  started: number,
): Promise<string> {
  let stream: Socket = socket;
  if (options.tls) {
    const servername = options.tls.servername;
    stream = await new Promise<Socket>((resolve) => {
      const secure = tlsConnect({ socket, servername, rejectUnauthorized: false });
      const timer = setTimeout(() => resolve(secure), SILENCE_MS);
      const done = () => {
        clearTimeout(timer);
        resolve(secure);
      };
      secure.once('secureConnect', done);
      secure.once('error', done);
      secure.once('close', done);
    });
  }
  if (options.send === undefined) return '';
  stream.write(options.send);
  const reply = await readResponse(stream, started, 1500);
  return reply.text;
}

async function connectVia(
  world: World,
  broker: BrokerAddress,
  step: Extract<Step, { kind: 'connect' }>,
  brokerHost: string,
): Promise<Outcome> {
  const t = (s: string) => fill(world, s, brokerHost);
  const authority = t(step.authority);
  const socket = await open(broker);
  const started = performance.now();
  const auth = step.auth === undefined ? '' : `Proxy-Authorization: ${t(step.auth)}\r\n`;
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${t(step.hostHeader ?? authority)}\r\n${auth}${t(step.extraHeaders ?? '')}\r\n`,
  );
  const { head, rest } = await readHead(socket);
  const doneMs = performance.now() - started;
  const status = statusOf(head);
  let text = head + rest.toString('latin1');
  if (status === 200) {
    const send = step.send === undefined ? undefined : t(step.send);
    text += await converse(socket, { tls: step.tls, send }, started);
  }
  socket.destroy();
  return { status, text, doneMs };
}

export async function runStep(
  world: World,
  brokers: Readonly<Record<BrokerName, BrokerAddress>>,
  step: Step,
): Promise<Outcome> {
  world.resolver.setOverride('dns' in step ? step.dns : undefined);
  switch (step.kind) {
    case 'raw': {
      const broker = brokers[step.to];
      const brokerHost = `${broker.host}:${broker.port}`;
      const bytes = fill(world, step.bytes, brokerHost);
      const n = step.pieces ?? 1;
      const pieces = Array.from({ length: n }, (_, i) =>
        bytes.slice(Math.floor((i * bytes.length) / n), Math.floor(((i + 1) * bytes.length) / n)),
      );
      const socket = await open(broker);
      const started = performance.now();
      const reading = readResponse(socket, started, SILENCE_MS + 2000 + pieces.length * (step.gapMs ?? 0));
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && step.gapMs) await sleep(step.gapMs);
        if (socket.destroyed) break;
        socket.write(piece, 'latin1');
      }
      const outcome = await reading;
      socket.destroy();
      return outcome;
    }
    case 'direct': {
      const endpoint = world.endpoints[step.to];
      const socket = await open({ host: endpoint.address, port: endpoint.port });
      const started = performance.now();
      const reading = readResponse(socket, started, 1000);
      socket.write(fill(world, step.bytes, `${endpoint.address}:${endpoint.port}`), 'latin1');
      const outcome = await reading;
      socket.destroy();
      return outcome;
    }
    case 'connect': {
      const broker = brokers[step.via];
      return connectVia(world, broker, step, `${broker.host}:${broker.port}`);
    }
    case 'os-connect': {
      const port = Number(fill(world, step.port, ''));
      const started = performance.now();
      const socket = await open({ host: step.host, port });
      const text = await converse(
        socket,
        { tls: step.tls, send: step.send === undefined ? undefined : fill(world, step.send, step.host) },
        started,
      );
      socket.destroy();
      return { status: 0, text, doneMs: performance.now() - started };
    }
    case 'naive-resolve-twice': {
      const started = performance.now();
      await world.resolver.resolve(step.name); // the check a naive proxy makes
      const [second] = await world.resolver.resolve(step.name); // …and the lookup its connect makes
      const socket = await open({ host: second!.address, port: Number(fill(world, step.port, '')) });
      socket.destroy();
      return { status: 0, text: '', doneMs: performance.now() - started };
    }
    case 'flood': {
      const broker = brokers[step.via];
      const brokerHost = `${broker.host}:${broker.port}`;
      const tunnel = async (caller: string, authority: string) => {
        const socket = await open(broker);
        socket.write(
          fill(
            world,
            `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: Basic {{BASIC:${caller}}}\r\n\r\n`,
            brokerHost,
          ),
        );
        const { head } = await readHead(socket);
        return { socket, head };
      };
      const started = performance.now();
      const floods = await Promise.all(
        Array.from({ length: step.count }, () => tunnel(step.caller, step.authority)),
      );
      const other = await tunnel(step.other.caller, step.other.authority);
      const granted = floods.filter((f) => statusOf(f.head) === 200).length;
      const refused = floods.filter((f) => statusOf(f.head) >= 400).length;
      const text = [...floods, other].map((f) => f.head).join('');
      for (const f of [...floods, other]) f.socket.destroy();
      await sleep(50); // let the broker see the closes before the next case
      return {
        status: statusOf(other.head),
        text,
        doneMs: performance.now() - started,
        flood: { granted, refused, total: step.count, otherOk: statusOf(other.head) === 200 },
      };
    }
    case 'route-flood': {
      const broker = brokers[step.via];
      const brokerHost = `${broker.host}:${broker.port}`;
      const send = async (bytes: string) => {
        const socket = await open(broker);
        socket.write(fill(world, bytes, brokerHost), 'latin1');
        const { head } = await readHead(socket);
        return { socket, head };
      };
      const started = performance.now();
      const floods = await Promise.all(Array.from({ length: step.count }, () => send(step.bytes)));
      const other = await send(step.other);
      const granted = floods.filter((f) => statusOf(f.head) === 200).length;
      const refused = floods.filter((f) => statusOf(f.head) >= 400).length;
      const text = [...floods, other].map((f) => f.head).join('');
      for (const f of [...floods, other]) f.socket.destroy();
      await sleep(50);
      return {
        status: statusOf(other.head),
        text,
        doneMs: performance.now() - started,
        flood: { granted, refused, total: step.count, otherOk: statusOf(other.head) === 200 },
      };
    }
    case 'big-body': {
      const broker = brokers[step.to];
      const brokerHost = `${broker.host}:${broker.port}`;
      const socket = await open(broker);
      const started = performance.now();
      const reading = readResponse(socket, started, 5000);
      socket.write(fill(world, step.head, brokerHost));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      while (sent < step.bytes && !socket.destroyed) {
        const size = Math.min(chunk.length, step.bytes - sent);
        const ok = socket.write(`${size.toString(16)}\r\n`) && socket.write(chunk.subarray(0, size));
        socket.write('\r\n');
        sent += size;
        if (!ok)
          await Promise.race([
            new Promise((resolve) => socket.once('drain', resolve)),
            new Promise((resolve) => socket.once('close', resolve)),
          ]);
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
      const outcome = await reading;
      socket.destroy();
      return outcome;
    }
  }
}
