/**
 * Benchmark of toolyard-broker, measured in the same run against the direct path (client straight to the
 * upstream), everything on loopback:
 * - streamed SSE through a model route: time to first byte and per-chunk latency (p50/p95), broker vs direct,
 *   and what the broker adds;
 * - CONNECT throughput: MB/s of one bulk transfer through a tunnel vs a direct TCP connection;
 * - the broker process's RSS and CPU while 1,000 streams are open at once, and its RSS with 1,000 tunnels.
 *
 * The broker runs as in its pod: a separate process running the bundle (`toolchain-server/dist/toolyard-broker.mjs`,
 * built first; `--source` runs `toolchain-server/bin/toolyard-broker.js` instead) with `--config`,
 * its keys and caller tokens in files, verifying the upstream's certificate (a test CA, `extraCaFile`). The
 * upstream (TLS, SSE) and the CONNECT sink live in this process; each SSE event carries its send time, so
 * per-chunk latency needs no clock sync. Usage: npm run bench:broker [-- --json] [-- --source]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { createSecureServer } from 'node:http2';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createServer as createNetServer, connect as netConnect, type Socket } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTestCa } from '../test/broker/tls-fixture.ts';
import { freePort } from '../test/support/free-port.ts';
import { DEFAULT_DENIED_CIDRS } from '../toolchain-server/broker/config.ts';
import { bundleBroker } from '../toolchain-server/scripts/bundle.ts';
import { SERVER_NODE_FLAGS } from '../toolchain-server/src/launch.ts';

const SOURCE_ENTRY = fileURLToPath(new URL('../toolchain-server/bin/toolyard-broker.js', import.meta.url));
/** Resolves `*.bench.test` to 127.0.0.1 inside the broker process, and nothing else (no DNS is ever asked). */
const HOSTS = fileURLToPath(new URL('./broker-hosts.mjs', import.meta.url));
const WARMUP = 30;
const STREAM_SAMPLES = 300;
const EVENTS_PER_STREAM = 10;
const EVENT_GAP_MS = 2;
const BULK_BYTES = 256 * 1024 * 1024;
const CONCURRENT_STREAMS = 1000;
const HOLD_SECONDS = 5;
/** Fresh broker processes, each measuring the held streams and the SSE comparison; medians are reported. */
const ROUNDS = 3;
const OPEN_BATCH = 50;
const TOKEN = `tyb-bench-${process.pid}-0123456789abcdef`;
const KEY = `sk-bench-${process.pid}-fedcba9876543210`;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

function procStatus(pid: number): { rss: number; cpuTicks: number } {
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rss, cpuTicks: Number(fields[11]) + Number(fields[12]) };
}
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * The fake model API: `/v1/stream` sends EVENTS_PER_STREAM events, `/v1/hold` one event a second. Like the
 * providers' APIs it offers HTTP/2 and HTTP/1.1 (ALPN): the broker speaks HTTP/2 to it, the direct client
 * HTTP/1.1 (as the CLIs' own HTTP clients do).
 */
function startUpstream(cert: string, key: string) {
  const open = new Set<() => void>();
  const sessions = new Set<{ destroy(): void }>();
  const server = createSecureServer({ cert, key, allowHTTP1: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (req.url?.endsWith('/hold')) {
        res.write(`data: {"t":${performance.now()}}\n\n`);
        const timer = setInterval(() => res.write(`data: {"t":${performance.now()}}\n\n`), 1000);
        const stop = () => {
          clearInterval(timer);
          res.end();
        };
        open.add(stop);
        res.on('close', () => {
          clearInterval(timer);
          open.delete(stop);
        });
        return;
      }
      let sent = 0;
      const send = () => {
        sent += 1;
        const event = `event: delta\ndata: {"t":${performance.now()}}\n\n`;
        if (sent === EVENTS_PER_STREAM) res.end(event);
        else {
          res.write(event);
          setTimeout(send, EVENT_GAP_MS);
        }
      };
      send();
    });
  });
  server.on('secureConnection', (socket) => {
    // As node:https servers do (an HTTP/2 server's HTTP/1.1 fallback leaves Nagle on: 40 ms chunk stalls).
    socket.setNoDelay(true);
    sessions.add(socket);
    socket.on('close', () => sessions.delete(socket));
  });
  const endAll = () => {
    for (const stop of [...open]) stop();
  };
  const closeAll = () => {
    for (const session of sessions) session.destroy();
  };
  return { server, endAll, closeAll };
}

/** A TCP sink: counts bytes, answers "ok" and closes once it has `BULK_BYTES`. */
function startSink() {
  return createNetServer((socket) => {
    let got = 0;
    socket.on('data', (chunk: Buffer) => {
      got += chunk.length;
      if (got >= BULK_BYTES) socket.end('ok');
    });
    socket.on('error', () => {});
  });
}

function listen(server: {
  listen: (port: number, host: string, cb: () => void) => unknown;
  address: () => unknown;
}) {
  return new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

interface Broker {
  readonly child: ChildProcess;
  readonly port: number;
  readonly auditLines: () => number;
}

async function startBroker(entry: string, configFile: string): Promise<Broker> {
  // The image's V8 flags (brokerCommand), then the resolver preload.
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, '--import', HOSTS, entry, '--config', configFile],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    },
  );
  let lines = 0;
  let buffer = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`broker exited (${code}) before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines += 1;
        if (line.includes('"event":"listening"')) resolve((JSON.parse(line) as { port: number }).port);
        nl = buffer.indexOf('\n');
      }
    });
  });
  return { child, port, auditLines: () => lines };
}

interface StreamTiming {
  ttfbMs: number;
  chunkMs: number[];
}

/** One SSE request; per-chunk latency is receive time minus the send time each event carries. */
function stream(
  send: (onResponse: (res: NodeJS.ReadableStream) => void) => { end(): void },
): Promise<StreamTiming> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = -1;
    const chunkMs: number[] = [];
    let text = '';
    const req = send((res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        if (ttfbMs < 0) ttfbMs = now - started;
        text += chunk;
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          const t = /"t":([0-9.]+)/.exec(text.slice(0, end));
          if (t) chunkMs.push(now - Number(t[1]));
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
        }
      });
      res.on('end', () => resolve({ ttfbMs, chunkMs }));
      res.on('error', reject);
    });
    req.end();
  });
}

async function sseComparison(brokerPort: number, upstreamPort: number, caPem: string) {
  const brokerAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const directAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: caPem });
  const viaBroker = () =>
    stream((onResponse) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: brokerPort,
          path: '/model/v1/stream',
          method: 'POST',
          agent: brokerAgent,
          headers: { 'x-api-key': TOKEN, 'content-type': 'application/json', 'content-length': 2 },
        },
        onResponse,
      );
      req.write('{}');
      return req;
    });
  const direct = () =>
    stream((onResponse) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port: upstreamPort,
          path: '/v1/stream',
          method: 'POST',
          agent: directAgent,
          headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'content-length': 2 },
        },
        onResponse,
      );
      req.write('{}');
      return req;
    });
  const broker: StreamTiming[] = [];
  const straight: StreamTiming[] = [];
  for (let i = 0; i < WARMUP + STREAM_SAMPLES; i++) {
    // Alternate the order so that load changes hit both paths alike.
    let b: StreamTiming;
    let d: StreamTiming;
    if (i % 2 === 0) {
      b = await viaBroker();
      d = await direct();
    } else {
      d = await direct();
      b = await viaBroker();
    }
    if (i >= WARMUP) {
      broker.push(b);
      straight.push(d);
    }
  }
  brokerAgent.destroy();
  directAgent.destroy();
  const summary = (timings: StreamTiming[]) => {
    const ttfb = timings.map((t) => t.ttfbMs).sort((a, b) => a - b);
    const chunks = timings.flatMap((t) => t.chunkMs).sort((a, b) => a - b);
    return {
      ttfbP50: percentile(ttfb, 50),
      ttfbP95: percentile(ttfb, 95),
      chunkP50: percentile(chunks, 50),
      chunkP95: percentile(chunks, 95),
      chunks: chunks.length,
    };
  };
  return { broker: summary(broker), direct: summary(straight) };
}

/** Sends BULK_BYTES over `socket` and waits for the sink's "ok"; MB/s. */
function bulk(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const started = performance.now();
    let sent = 0;
    const pump = () => {
      while (sent < BULK_BYTES) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.once('data', () => {
      const seconds = (performance.now() - started) / 1000;
      socket.destroy();
      resolve(BULK_BYTES / 1024 / 1024 / seconds);
    });
    socket.once('error', reject);
    pump();
  });
}

function tunnel(brokerPort: number, sinkPort: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(brokerPort, '127.0.0.1', () => {
      const auth = Buffer.from(`bench:${TOKEN}`).toString('base64');
      socket.write(
        `CONNECT sink.bench.test:${sinkPort} HTTP/1.1\r\nHost: sink.bench.test:${sinkPort}\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`,
      );
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 200')) reject(new Error(`CONNECT refused: ${head.split('\r\n')[0]}`));
      else resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function throughput(brokerPort: number, sinkPort: number) {
  const direct: number[] = [];
  const tunnelled: number[] = [];
  for (let i = 0; i < 3; i++) {
    direct.push(
      await bulk(
        await new Promise<Socket>((resolve) => {
          const s = netConnect(sinkPort, '127.0.0.1', () => resolve(s));
        }),
      ),
    );
    tunnelled.push(await bulk(await tunnel(brokerPort, sinkPort)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  return { direct: median(direct), tunnel: median(tunnelled) };
}

/** Opens CONCURRENT_STREAMS held streams through the broker and samples its RSS and CPU while they last. */
/** Holds CONCURRENT_STREAMS tunnels open through the broker (a byte sent on each) and reads its RSS. */
async function heldTunnels(broker: Broker, holdPort: number) {
  const pid = broker.child.pid!;
  const before = procStatus(pid).rss;
  const sockets: Socket[] = [];
  for (let i = 0; i < CONCURRENT_STREAMS; i += OPEN_BATCH)
    await Promise.all(
      Array.from({ length: Math.min(OPEN_BATCH, CONCURRENT_STREAMS - i) }, async () => {
        const socket = await tunnel(broker.port, holdPort);
        socket.write('x');
        sockets.push(socket);
      }),
    );
  await new Promise((r) => setTimeout(r, 1000));
  const rss = procStatus(pid).rss;
  for (const socket of sockets) socket.destroy();
  return { before, rss };
}

async function concurrent(broker: Broker, endAll: () => void) {
  const pid = broker.child.pid!;
  const idle = procStatus(pid);
  const agent = new HttpAgent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const requests: { destroy(): void }[] = [];
  const openOne = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: broker.port,
          path: '/model/v1/hold',
          method: 'POST',
          agent,
          headers: { 'x-api-key': TOKEN, 'content-length': 0 },
        },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`stream ${i}: status ${res.statusCode}`));
          res.once('data', () => resolve());
          res.resume();
        },
      );
      req.on('error', reject);
      req.end();
      requests.push(req);
    });
  const opening = performance.now();
  // In batches: this process also terminates the upstream's TLS, and a thousand handshakes at once on a
  // loaded machine would leave some clients slower than the broker's headers timeout.
  for (let i = 0; i < CONCURRENT_STREAMS; i += OPEN_BATCH)
    await Promise.all(
      Array.from({ length: Math.min(OPEN_BATCH, CONCURRENT_STREAMS - i) }, (_, j) => openOne(i + j)),
    );
  const openMs = performance.now() - opening;
  const before = procStatus(pid);
  const startedAt = performance.now();
  let peakRss = before.rss;
  for (let s = 0; s < HOLD_SECONDS * 4; s++) {
    await new Promise((r) => setTimeout(r, 250));
    peakRss = Math.max(peakRss, procStatus(pid).rss);
  }
  const after = procStatus(pid);
  const seconds = (performance.now() - startedAt) / 1000;
  endAll();
  for (const req of requests) req.destroy();
  agent.destroy();
  return {
    idleRss: idle.rss,
    rssAtOpen: before.rss,
    peakRss,
    openMs,
    cpuPercentHeld: ((after.cpuTicks - before.cpuTicks) / USER_HZ / seconds) * 100,
  };
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-bench-broker-'));
  const ca = makeTestCa(['model.bench.test', 'localhost']);
  const upstream = startUpstream(ca.cert, ca.key);
  const upstreamPort = await listen(upstream.server);
  const sink = startSink();
  const sinkPort = await listen(sink);
  const holdSockets = new Set<Socket>();
  const hold = createNetServer((socket) => {
    holdSockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => holdSockets.delete(socket));
  });
  const holdPort = await listen(hold);
  mkdirSync(join(dir, 'keys'));
  writeFileSync(join(dir, 'keys', 'model'), `${KEY}\n`);
  writeFileSync(join(dir, 'bench-token'), `${TOKEN}\n`);
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      agent: 'bench',
      listen: { host: '127.0.0.1', port: await freePort(), allowedHosts: [] },
      health: { host: '127.0.0.1', port: await freePort() },
      routes: [
        {
          name: 'model',
          kind: 'model',
          upstream: `https://model.bench.test:${upstreamPort}`,
          credential: { file: join(dir, 'keys', 'model'), header: 'x-api-key' },
        },
      ],
      // Loopback is not denied here (bench only): model.bench.test and sink.bench.test resolve to 127.0.0.1.
      callers: [
        {
          name: 'bench',
          tokenFile: join(dir, 'bench-token'),
          routes: ['model'],
          egress: [{ host: 'sink.bench.test', ports: [sinkPort, holdPort] }],
        },
      ],
      deniedCidrs: DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'),
      extraCaFile: ca.caFile,
      limits: { maxConnections: 4096, maxConnectionsPerCaller: 2048 },
    }),
  );
  // As the image runs it: the single-file bundle (built now), unless --source asks for the TypeScript entry.
  const entry = process.argv.includes('--source') ? SOURCE_ENTRY : await bundleBroker();
  let broker: Broker | undefined;
  const stop = async () => {
    if (!broker) return;
    const child = broker.child;
    broker = undefined;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    // Each phase that reads RSS starts from a fresh broker process: RSS keeps its high-water mark, so a
    // phase run after another would carry the earlier one's memory.
    broker = await startBroker(entry, configFile);
    const rssAfter: Record<string, number> = { start: procStatus(broker.child.pid!).rss };
    const tunnels = await heldTunnels(broker, holdPort);
    await stop();
    const rounds: {
      held: Awaited<ReturnType<typeof concurrent>>;
      sse: Awaited<ReturnType<typeof sseComparison>>;
    }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      broker = await startBroker(entry, configFile);
      const held = await concurrent(broker, upstream.endAll);
      await new Promise((r) => setTimeout(r, 1000));
      rssAfter[`streams#${round + 1}`] = procStatus(broker.child.pid!).rss;
      const sse = await sseComparison(broker.port, upstreamPort, ca.ca);
      rounds.push({ held, sse });
      if (round < ROUNDS - 1) await stop();
    }
    const bulkRates = await throughput(broker!.port, sinkPort);
    rssAfter.bulk = procStatus(broker!.child.pid!).rss;
    const auditLines = broker!.auditLines();
    await stop();
    const median = (pick: (r: (typeof rounds)[number]) => number) =>
      [...rounds.map(pick)].sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
    const sse = {
      broker: {
        ttfbP50: median((r) => r.sse.broker.ttfbP50),
        ttfbP95: median((r) => r.sse.broker.ttfbP95),
        chunkP50: median((r) => r.sse.broker.chunkP50),
        chunkP95: median((r) => r.sse.broker.chunkP95),
      },
      direct: {
        ttfbP50: median((r) => r.sse.direct.ttfbP50),
        ttfbP95: median((r) => r.sse.direct.ttfbP95),
        chunkP50: median((r) => r.sse.direct.chunkP50),
        chunkP95: median((r) => r.sse.direct.chunkP95),
      },
    };
    const addedTtfbP50 = rounds.map((r) => r.sse.broker.ttfbP50 - r.sse.direct.ttfbP50);
    const held = {
      idleRss: median((r) => r.held.idleRss),
      rssAtOpen: median((r) => r.held.rssAtOpen),
      peakRss: median((r) => r.held.peakRss),
      openMs: median((r) => r.held.openMs),
      cpuPercentHeld: median((r) => r.held.cpuPercentHeld),
    };
    const loadAfter = loadavg();
    const result = {
      sse,
      rounds,
      added: {
        // Median over rounds of (broker - direct) measured in the same round.
        ttfbP50: [...addedTtfbP50].sort((a, b) => a - b)[Math.floor(addedTtfbP50.length / 2)]!,
        ttfbP95: sse.broker.ttfbP95 - sse.direct.ttfbP95,
        chunkP50: sse.broker.chunkP50 - sse.direct.chunkP50,
        chunkP95: sse.broker.chunkP95 - sse.direct.chunkP95,
      },
      connect: bulkRates,
      concurrent: held,
      tunnels,
      load: { before: loadBefore, after: loadAfter },
      auditLines,
      rssAfter,
    };
    if (json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const rows: [string, string, string, string][] = [
      [
        'SSE time to first byte p50 (ms)',
        fmt(sse.direct.ttfbP50),
        fmt(sse.broker.ttfbP50),
        fmt(result.added.ttfbP50),
      ],
      [
        'SSE time to first byte p95 (ms)',
        fmt(sse.direct.ttfbP95),
        fmt(sse.broker.ttfbP95),
        fmt(result.added.ttfbP95),
      ],
      [
        'SSE per-chunk latency p50 (ms)',
        fmt(sse.direct.chunkP50),
        fmt(sse.broker.chunkP50),
        fmt(result.added.chunkP50),
      ],
      [
        'SSE per-chunk latency p95 (ms)',
        fmt(sse.direct.chunkP95),
        fmt(sse.broker.chunkP95),
        fmt(result.added.chunkP95),
      ],
      [
        'CONNECT bulk throughput (MB/s)',
        fmt(bulkRates.direct, 0),
        fmt(bulkRates.tunnel, 0),
        `${fmt((bulkRates.tunnel / bulkRates.direct) * 100, 0)} %`,
      ],
    ];
    const widths = [34, 10, 10, 10];
    const line = (cells: readonly string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    process.stdout.write(
      [
        `toolyard-broker bench, ${entry.endsWith('.mjs') ? 'bundle' : 'source entry'}, node ${SERVER_NODE_FLAGS.join(' ')} (${STREAM_SAMPLES} streams x ${EVENTS_PER_STREAM} events, ${mb(BULK_BYTES)} MB bulk, ${CONCURRENT_STREAMS} held streams)`,
        line(['', 'direct', 'broker', 'added']),
        ...rows.map(line),
        `broker RSS after each phase (MB): ${Object.entries(rssAfter)
          .map(([k, v]) => `${k} ${mb(v)}`)
          .join(', ')}`,
        `added time to first byte p50 per round (ms): ${addedTtfbP50.map((v) => fmt(v)).join(', ')} (median ${fmt(result.added.ttfbP50)})`,
        `broker RSS with ${CONCURRENT_STREAMS} streams open, fresh broker per round (MB): ${rounds.map((r) => `${mb(r.held.idleRss)} -> ${mb(r.held.rssAtOpen)} (peak ${mb(r.held.peakRss)})`).join('; ')}`,
        `median of ${ROUNDS}: idle ${mb(held.idleRss)} MB; with ${CONCURRENT_STREAMS} streams open ${mb(held.rssAtOpen)} MB, peak ${mb(held.peakRss)} MB over ${HOLD_SECONDS} s`,
        `broker RSS with ${CONCURRENT_STREAMS} CONNECT tunnels open (plain TCP both sides): ${mb(tunnels.before)} -> ${mb(tunnels.rss)} MB`,
        `broker CPU with ${CONCURRENT_STREAMS} streams open (1 event/s each): ${fmt(held.cpuPercentHeld, 1)} % of one core; opening them took ${fmt(held.openMs, 0)} ms`,
        `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')} (${availableParallelism()} cores)`,
        '',
      ].join('\n'),
    );
  } finally {
    await stop();
    upstream.server.close();
    upstream.closeAll();
    sink.close();
    for (const socket of holdSockets) socket.destroy();
    hold.close();
    ca.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

function fmt(n: number, digits = 3): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

await main();
