/**
 * toolyard's toolchain server side by side with the most-used exec MCP servers from npm, in the same run and
 * driven the same way (the MCP client SDK, one client per server; latency in rotating blocks of 25 calls so load
 * drift hits all alike, while no call pays for another server's trailing work):
 * - `@wonderwhy-er/desktop-commander` (`start_process`, stdio; the most downloaded exec server),
 * - `mcp-server-commands` (`run_command`, stdio).
 * Each runs twice: over stdio, as on a laptop, and behind supergateway over streamable HTTP, as a sidecar must
 * run it (another container cannot reach a stdio server), so one pair of rows compares the same transport and
 * client. Each is installed on demand, pinned, into ~/.cache/toolyard/bench-mcp (`npm install --ignore-scripts`:
 * a dependency of desktop-commander downloads a browser otherwise). toolyard is reached as in a pod: streamable
 * HTTP with its bearer token. Memory counts every process a subject runs (bridge, server, toolyard's spawner). Measured per server: latency of one `true` (p50/p95), calls/s at concurrency 8,
 * RSS idle and peak, a flood of FLOOD calls at once (wall time, failures), and a `sleep` past a 1 s timeout
 * (when the call returns, and whether the command still runs afterwards).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../test/support/free-port.ts';

export const PEER_PACKAGES = {
  '@wonderwhy-er/desktop-commander': '0.2.52',
  'mcp-server-commands': '0.5.0',
  /** Not a peer: the most-used bridge from stdio to streamable HTTP, which a stdio server needs as a sidecar. */
  supergateway: '4.0.0',
} as const;

/** The exec servers compared, as their tools are called. */
const PEERS: readonly { name: string; entry: string; tool: PeerTool }[] = [
  {
    name: 'desktop-commander',
    entry: '@wonderwhy-er/desktop-commander/dist/index.js',
    tool: {
      name: 'start_process',
      args: (command, timeoutMs) => ({ command, timeout_ms: timeoutMs ?? 30_000 }),
      hasTimeout: true,
    },
  },
  {
    name: 'mcp-server-commands',
    entry: 'mcp-server-commands/build/index.js',
    tool: { name: 'run_command', args: (command) => ({ command }), hasTimeout: false },
  },
];

const CACHE = join(homedir(), '.cache', 'toolyard', 'bench-mcp');
const LATENCY_SAMPLES = 200;
const LATENCY_BLOCK = 25;
const THROUGHPUT_CALLS = 200;
const THROUGHPUT_CONCURRENCY = 8;
const FLOOD = 100;

interface Subject {
  readonly name: string;
  /** How the client reaches it. */
  readonly transport: string;
  readonly client: Client;
  readonly pid: () => number | undefined;
  /** Runs `true`; resolves when the call returns. */
  runTrue(): Promise<void>;
  runEcho(text: string): Promise<void>;
  /** `sleep <seconds>` with a 1 s timeout where the tool has one (else the client gives up after 1 s). */
  sleepPastTimeout(seconds: string): Promise<string>;
  close(): Promise<void>;
}

export interface PeerRow {
  readonly name: string;
  readonly transport: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly callsPerSecond: number;
  readonly idleRssMb: number;
  readonly peakRssMb: number;
  readonly floodMs: number;
  readonly floodFailed: number;
  readonly timeoutReturnedMs: number;
  readonly timeoutOutcome: string;
  readonly sleepSurvived: boolean;
}

/** Installs the pinned peers into the cache (network on first use only). */
export function installPeers(): string {
  mkdirSync(CACHE, { recursive: true });
  const wanted = Object.entries(PEER_PACKAGES);
  const missing = wanted.filter(([name, version]) => {
    const manifest = join(CACHE, 'node_modules', name, 'package.json');
    return (
      !existsSync(manifest) ||
      (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version !== version
    );
  });
  if (missing.length > 0) {
    if (!existsSync(join(CACHE, 'package.json')))
      writeFileSync(join(CACHE, 'package.json'), '{"name":"toolyard-bench-mcp","private":true}\n');
    process.stderr.write(`installing ${missing.map(([n, v]) => `${n}@${v}`).join(', ')} into ${CACHE}\n`);
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...wanted.map(([n, v]) => `${n}@${v}`)],
      {
        cwd: CACHE,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
      },
    );
  }
  return join(CACHE, 'node_modules');
}

/** `root` and every process below it (Linux: /proc/<pid>/task/<tid>/children). */
function processTree(root: number): number[] {
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    try {
      for (const task of readdirSync(`/proc/${pid}/task`))
        for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
          if (child.trim()) queue.push(Number(child));
    } catch {}
  }
  return tree;
}

/** Resident memory of a server and everything it runs (a bridge and its stdio server; toolyard's spawner). */
function rssMb(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  let kb = 0;
  for (const member of processTree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0);
    } catch {}
  }
  return Math.round((kb / 1024) * 10) / 10;
}

/** Whether a process whose command line is exactly `sleep <seconds>` is running. */
function sleepRunning(seconds: string): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv.at(-1) === seconds && argv.some((a) => a.endsWith('sleep'))) return true;
    } catch {}
  }
  return false;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

/** How a peer's tool is called: its name, its arguments, and whether it has a timeout parameter. */
interface PeerTool {
  readonly name: string;
  readonly args: (command: string, timeoutMs?: number) => Record<string, unknown>;
  readonly hasTimeout: boolean;
}

/** A peer behind a connected client. */
function peerSubject(
  name: string,
  transport: string,
  client: Client,
  pid: () => number | undefined,
  tool: PeerTool,
  close: () => Promise<void>,
): Subject {
  const call = async (command: string, timeoutMs?: number, clientTimeoutMs = 60_000) => {
    const result = await client.callTool(
      { name: tool.name, arguments: tool.args(command, timeoutMs) },
      undefined,
      { timeout: clientTimeoutMs },
    );
    if (result.isError) throw new Error(`${name}: ${command}: ${textOf(result).slice(0, 200)}`);
    return textOf(result);
  };
  return {
    name,
    transport,
    client,
    pid,
    runTrue: async () => void (await call('true', 30_000)),
    runEcho: async (text) => void (await call(`echo ${text}`, 30_000)),
    sleepPastTimeout: async (seconds) => {
      if (tool.hasTimeout) {
        const text = await call(`sleep ${seconds}`, 1000);
        return /running|timeout|timed out|still/i.test(text) ? 'returned, command left running' : 'returned';
      }
      try {
        await call(`sleep ${seconds}`, undefined, 1000);
        return 'completed';
      } catch {
        return 'no timeout parameter: the client gave up at 1 s';
      }
    },
    close,
  };
}

/** A peer as its users run it: a stdio child of the client. */
async function stdioSubject(
  name: string,
  entry: string,
  env: Record<string, string>,
  cwd: string,
  tool: PeerTool,
): Promise<Subject> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env,
    cwd,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'toolyard-bench', version: '1' });
  await client.connect(transport);
  return peerSubject(
    name,
    'stdio',
    client,
    () => transport.pid ?? undefined,
    tool,
    () => client.close(),
  );
}

/** Makes the bridge listen on 127.0.0.1 only (it binds every interface and has no option for it). */
const BIND_LOOPBACK = fileURLToPath(new URL('./bind-loopback.mjs', import.meta.url));

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
async function acceptsConnections(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the bridge exited with ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on ${port} within 20 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A peer as a sidecar would have to run it: a stdio server cannot be reached from another container, so it sits
 * behind supergateway (stateful streamable HTTP, one stdio child per session) and the client speaks streamable
 * HTTP to the bridge — the same transport and client as toolyard's. Its memory is the bridge's plus the server's.
 */
async function bridgedSubject(
  name: string,
  modules: string,
  entry: string,
  env: Record<string, string>,
  cwd: string,
  tool: PeerTool,
): Promise<Subject> {
  const port = await freePort();
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const bridge = spawn(
    process.execPath,
    [
      '--import',
      BIND_LOOPBACK,
      join(modules, 'supergateway', 'dist', 'index.js'),
      '--stdio',
      `${quote(process.execPath)} ${quote(entry)}`,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ],
    { env, cwd, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    await acceptsConnections(port, bridge);
  } catch (error) {
    bridge.kill('SIGKILL');
    throw error;
  }
  const client = new Client({ name: 'toolyard-bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return peerSubject(
    `${name} (bridged)`,
    'HTTP via supergateway',
    client,
    () => bridge.pid,
    tool,
    async () => {
      await client.close().catch(() => {});
      const exited = new Promise((r) => bridge.once('exit', r));
      for (const pid of processTree(bridge.pid!).reverse())
        try {
          process.kill(pid, 'SIGTERM');
        } catch {}
      await exited;
    },
  );
}

async function toolyardSubject(port: number, token: string, pid: number): Promise<Subject> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'toolyard-bench', version: '1' });
  await client.connect(transport);
  const exec = async (command: string[], timeoutSeconds?: number) => {
    const result = await client.callTool({
      name: 'exec_allowed',
      arguments: { command, ...(timeoutSeconds ? { timeoutSeconds } : {}) },
    });
    return result;
  };
  return {
    name: 'toolyard',
    transport: 'HTTP',
    client,
    pid: () => pid,
    runTrue: async () => {
      const r = await exec(['true']);
      if (r.isError) throw new Error(`toolyard: true: ${textOf(r).slice(0, 200)}`);
    },
    runEcho: async (text) => {
      const r = await exec(['echo', text]);
      if (r.isError) throw new Error(`toolyard: echo: ${textOf(r).slice(0, 200)}`);
    },
    sleepPastTimeout: async (seconds) => {
      const r = await exec(['sleep', seconds], 1);
      const structured = r.structuredContent as { timedOut?: boolean } | undefined;
      return structured?.timedOut ? 'timed out, command killed' : textOf(r).slice(0, 80);
    },
    close: () => client.close(),
  };
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * Runs the comparison against a toolyard server already listening on `port` (pid `toolyardPid`), whose
 * allowedCommands include true, echo and sleep.
 */
export async function comparePeers(toolyard: {
  port: number;
  pid: number;
  token: string;
}): Promise<PeerRow[]> {
  const modules = installPeers();
  const home = mkdtempSync(join(tmpdir(), 'toolyard-bench-peers-'));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1',
  };
  const subjects: Subject[] = [
    await toolyardSubject(toolyard.port, toolyard.token, toolyard.pid),
    ...(await Promise.all(
      PEERS.map(({ name, entry, tool }) => stdioSubject(name, join(modules, entry), env, home, tool)),
    )),
    // The same servers as a sidecar would run them: over streamable HTTP, like toolyard's.
    ...(await Promise.all(
      PEERS.map(({ name, entry, tool }) =>
        bridgedSubject(name, modules, join(modules, entry), env, home, tool),
      ),
    )),
  ];
  try {
    for (const s of subjects) for (let i = 0; i < 20; i++) await s.runTrue();
    await new Promise((r) => setTimeout(r, 500));
    const idle = subjects.map((s) => rssMb(s.pid()));
    const peak = [...idle];
    const sampler = setInterval(() => {
      subjects.forEach((s, i) => {
        peak[i] = Math.max(peak[i]!, rssMb(s.pid()));
      });
    }, 20);
    const latency: number[][] = subjects.map(() => []);
    // Rotating blocks: each subject's calls back to back (a call right after another server's would pay for that
    // server's trailing work: desktop-commander keeps working after it answers), subjects alternating every
    // block so drift in the machine's load reaches all of them alike.
    for (let round = 0; round < LATENCY_SAMPLES / LATENCY_BLOCK; round++)
      for (const [k, s] of subjects.entries()) {
        await s.runTrue(); // the first call of a block settles the switch from the previous subject
        for (let i = 0; i < LATENCY_BLOCK; i++) {
          const t = performance.now();
          await s.runTrue();
          latency[k]!.push(performance.now() - t);
        }
      }
    const throughput: number[] = [];
    for (const s of subjects) {
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: THROUGHPUT_CONCURRENCY }, async () => {
          while (next < THROUGHPUT_CALLS) {
            next++;
            await s.runTrue();
          }
        }),
      );
      throughput.push(THROUGHPUT_CALLS / ((performance.now() - t) / 1000));
    }
    const flood: { ms: number; failed: number }[] = [];
    for (const s of subjects) {
      const t = performance.now();
      const results = await Promise.allSettled(
        Array.from({ length: FLOOD }, (_, i) => s.runEcho(`flood-${i}`)),
      );
      flood.push({
        ms: performance.now() - t,
        failed: results.filter((r) => r.status === 'rejected').length,
      });
    }
    clearInterval(sampler);
    const timeouts: { ms: number; outcome: string; survived: boolean }[] = [];
    for (const [k, s] of subjects.entries()) {
      const seconds = `7.${k + 1}${process.pid % 100}`;
      const t = performance.now();
      const outcome = await s.sleepPastTimeout(seconds);
      const ms = performance.now() - t;
      await new Promise((r) => setTimeout(r, 500));
      timeouts.push({ ms, outcome, survived: sleepRunning(seconds) });
    }
    return subjects.map((s, k) => {
      const sorted = [...latency[k]!].sort((a, b) => a - b);
      return {
        name: s.name,
        transport: s.transport,
        p50Ms: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
        callsPerSecond: throughput[k]!,
        idleRssMb: idle[k]!,
        peakRssMb: peak[k]!,
        floodMs: flood[k]!.ms,
        floodFailed: flood[k]!.failed,
        timeoutReturnedMs: timeouts[k]!.ms,
        timeoutOutcome: timeouts[k]!.outcome,
        sleepSurvived: timeouts[k]!.survived,
      };
    });
  } finally {
    for (const s of subjects) await s.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
}

export function peerTable(rows: readonly PeerRow[]): string {
  const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  const header = [
    'server',
    'transport',
    'p50 ms',
    'p95 ms',
    `calls/s c${THROUGHPUT_CONCURRENCY}`,
    'RSS idle MB',
    'RSS peak MB',
    `flood ${FLOOD} ms`,
    'flood failed',
    'sleep past 1 s timeout',
  ];
  const body = rows.map((r) => [
    r.name,
    r.transport,
    f(r.p50Ms),
    f(r.p95Ms),
    f(r.callsPerSecond, 0),
    f(r.idleRssMb, 1),
    f(r.peakRssMb, 1),
    f(r.floodMs, 0),
    String(r.floodFailed),
    `${r.timeoutOutcome} after ${f(r.timeoutReturnedMs / 1000, 2)} s; sleep ${r.sleepSurvived ? 'still running' : 'gone'}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i <= 1 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ');
  return [line(header), ...body.map(line)].join('\n');
}
