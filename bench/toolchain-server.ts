/**
 * Benchmark of the toolchain server, run against the shipped single-file bundle. Prints, from one run:
 * p50/p99 of exec_allowed ["true"] over MCP HTTP vs a bare spawn("true") and their ratio, with confinement
 * (best-effort), with confinement but without the second wall (issue 32: the helper's `--no-wall`) and `off` —
 * the four sampled in rotating blocks; the resident spawner alone with each wall (namespaces, seccomp, none) and
 * without Landlock; calls/s at concurrency 1, 8 and 32; idle RSS; start-to-ready time; peak RSS while a child prints 200 MB with a 1 MB cap.
 *
 * The server runs as in a pod: a bearer token from a file (every call authenticated), and an environment with
 * more than the passthrough names, so it re-executes itself with a scrubbed one before it listens (that
 * restart is part of start-to-ready). The client speaks raw JSON-RPC over a keep-alive agent so that the
 * figures measure the server, not a client library. Then the most-used exec MCP servers from npm run side by
 * side with it (bench/exec-mcp-peers.ts; `--no-peers` skips them). Usage: npm run bench:toolchain-server
 * [-- --json] [-- --no-peers]
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildConfine, hostConfinePath } from '../toolchain-server/scripts/build-confine.ts';
import { BUNDLE_PATH, bundle } from '../toolchain-server/scripts/bundle.ts';
import { listeningPort } from '../toolchain-server/scripts/listening-port.ts';
import { toolchainServerConfigSchema } from '../toolchain-server/src/config.ts';
import { helperArgs, staticPolicy } from '../toolchain-server/src/confinement/policy.ts';
import { ConfineSpawner } from '../toolchain-server/src/confinement/spawner.ts';
import { SERVER_NODE_FLAGS } from '../toolchain-server/src/launch.ts';
import { comparePeers, peerTable } from './exec-mcp-peers.ts';
import { formatTracingCost, measureTracingCost } from './tracing.ts';

const SPAWN_SAMPLES = 500;
const MCP_SAMPLES = 500;
const SAMPLE_BLOCK = 25;
/** Each server's calls in the sampled phase: the samples and one settling call per block. */
const CALLS_PER_SERVER = MCP_SAMPLES + MCP_SAMPLES / SAMPLE_BLOCK;
const THROUGHPUT_CALLS = 800;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function rssOf(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb * 1024;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * CPU time of a process and its reaped children (utime + stime + cutime + cstime), in ms: what a call costs
 * regardless of how long it waited for a core on a busy machine. Clock ticks are 10 ms; divided over hundreds
 * of calls.
 */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime..cstime are fields 14..17.
  const own = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
  // Live children count too: the resident spawner reaps the calls' processes, so their time is in its cutime.
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(' ')
    .filter(Boolean);
  return (
    own +
    children.reduce((sum, child) => {
      try {
        return sum + cpuMsOf(Number(child));
      } catch {
        return sum; // ended between the listing and the read
      }
    }, 0)
  );
}

/** One bare spawn("true") from this process, in ms. */
async function bareSpawnOnce(): Promise<number> {
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  return performance.now() - t;
}

/** The spawner's variants, by their helper flags: each wall, none, and neither wall nor Landlock. */
const SPAWNER_VARIANTS = {
  namespaces: [],
  seccomp: ['--simulate-no-userns'],
  noWall: ['--no-wall'],
  noLandlock: ['--simulate-no-landlock', '--no-wall'],
} as const satisfies Record<string, readonly string[]>;
type SpawnerVariant = keyof typeof SPAWNER_VARIANTS;

/**
 * The resident spawner alone, outside the server: `true` through ConfineSpawner with the bench server's own policy
 * (same ruleset, scratch directory made and removed by the helper), in turn with the second wall as this node
 * gives it (namespaces here), its seccomp form, no wall (`--no-wall`: the helper before issue 32) and neither wall
 * nor Landlock (`--simulate-no-landlock --no-wall`: same processes, no ruleset). The differences are what each
 * wall and Landlock itself cost.
 */
async function spawnerAlone(
  policyArgs: (scratch: string) => readonly string[],
  scratchBase: string,
  cwd: string,
): Promise<Record<SpawnerVariant, number[]>> {
  const samples: Record<SpawnerVariant, number[]> = {
    namespaces: [],
    seccomp: [],
    noWall: [],
    noLandlock: [],
  };
  const spawner = new ConfineSpawner(hostConfinePath());
  let n = 0;
  const once = async (extra: readonly string[]) => {
    const t = performance.now();
    const r = await spawner.run({
      file: '/usr/bin/true',
      argv0: 'true',
      args: [],
      cwd,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 60_000,
      maxOutputBytes: 1024,
      killGraceMs: 2000,
      helperArgs: [...extra, ...policyArgs(join(scratchBase, `s${n++}`))],
    });
    if (r.exitCode !== 0) throw new Error(`true through the spawner failed: ${r.confineReport}`);
    return performance.now() - t;
  };
  try {
    for (let i = 0; i < SPAWN_SAMPLES + 50; i++)
      for (const [variant, flags] of Object.entries(SPAWNER_VARIANTS) as [
        SpawnerVariant,
        readonly string[],
      ][]) {
        const ms = await once(flags);
        if (i >= 50) samples[variant].push(ms);
      }
  } finally {
    spawner.close();
  }
  for (const list of Object.values(samples)) list.sort((x, y) => x - y);
  return samples;
}

/** exec_allowed ["true"] through `client`; throws when it did not run. */
async function execTrue(client: ReturnType<typeof makeClient>): Promise<void> {
  const r = await client.exec(['true']);
  if (r.isError) throw new Error('true failed');
}

interface Server {
  child: ChildProcess;
  port: number;
  readyMs: number;
}

async function startServer(configPath: string): Promise<Server> {
  const started = performance.now();
  // Started as the image starts it: the same V8 flags, the bundle, no node_modules.
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, BUNDLE_PATH, '--config', configPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      // What a container adds: the server keeps none of it, so it re-executes with only PATH.
      HOME: '/home/toolyard',
      TMPDIR: '/tmp',
      HOSTNAME: 'reviewer-6f7c9d-abcde',
      CARGO_HOME: '/home/toolyard/.cargo',
      SOME_CREDENTIAL: 'not-for-children',
    },
  });
  const port = await listeningPort(child);
  // Ready means /readyz answers 200.
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await res.text();
    if (res.status === 200) break;
  }
  return { child, port, readyMs: performance.now() - started };
}

const TOKEN = 'bench-token-0123456789abcdef';

function makeClient(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let session = '';
  const post = (body: unknown): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(Buffer.byteLength(payload)),
        authorization: `Bearer ${TOKEN}`,
      };
      if (session) headers['mcp-session-id'] = session;
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            data += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  let id = 1;
  return {
    agent,
    async initialize() {
      const res = await post({
        jsonrpc: '2.0',
        id: id++,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      });
      session = String(res.headers['mcp-session-id']);
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
    async exec(
      command: string[],
    ): Promise<{ isError: boolean; structuredContent?: Record<string, unknown> }> {
      const res = await post({
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: { name: 'exec_allowed', arguments: { command } },
      });
      const parsed = JSON.parse(res.body) as {
        result?: { isError: boolean; structuredContent?: Record<string, unknown> };
      };
      if (!parsed.result) throw new Error(`unexpected response: ${res.body}`);
      return parsed.result;
    },
  };
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  if (!existsSync(BUNDLE_PATH)) await bundle();
  if (!existsSync(hostConfinePath())) await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-bench-'));
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'flood.sh'), `head -c ${200 * 1024 * 1024} /dev/zero\n`);
  const configPath = join(dir, 'config.json');
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, TOKEN);
  const config = (confinement: string) =>
    JSON.stringify({
      name: 'bench',
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [workspace],
      tools: { mode: 'exec', allowedCommands: ['true', 'sh', 'echo', 'sleep'] },
      env: { passthrough: ['PATH'] },
      auth: { bearerTokenFile: tokenFile },
      limits: {
        defaultTimeoutSeconds: 60,
        maxTimeoutSeconds: 60,
        maxOutputBytes: 1048576,
        maxConcurrency: 32,
        // Room for the peers' flood of 100 (the default 2 + 16 would answer TOOLYARD_BUSY to 82 of them: the bound is
        // tested in test/toolchain-server/limiter.test.ts; here the flood measures speed).
        maxQueue: 128,
        confinement,
      },
    });
  // The default (best-effort: confined where the kernel has Landlock) and, for the confinement cost, `off`; for
  // the second wall's cost, the default with the helper's --no-wall (a wrapper beside the config, which no call
  // may read).
  writeFileSync(configPath, config('best-effort'));
  const offConfigPath = join(dir, 'config-off.json');
  writeFileSync(offConfigPath, config('off'));
  const noWallHelper = join(dir, 'no-wall', 'toolyard-confine');
  mkdirSync(dirname(noWallHelper));
  writeFileSync(noWallHelper, `#!/bin/sh\nexec ${hostConfinePath()} --no-wall "$@"\n`, { mode: 0o755 });
  const noWallConfigPath = join(dir, 'config-no-wall.json');
  writeFileSync(
    noWallConfigPath,
    JSON.stringify({ ...JSON.parse(config('best-effort')), confinementHelper: noWallHelper }),
  );

  // Start-to-ready: median of five cold starts.
  const readyTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = await startServer(configPath);
    readyTimes.push(s.readyMs);
    s.child.kill('SIGKILL');
    await new Promise((r) => s.child.once('exit', r));
  }
  readyTimes.sort((a, b) => a - b);

  const server = await startServer(configPath);
  const pid = server.child.pid!;
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = rssOf(pid);

  const client = makeClient(server.port);
  await client.initialize();
  // The output flood runs first, from the idle state, so its RSS growth is not mixed with garbage left by the
  // latency and throughput phases.
  const floodBaseline = rssOf(pid);
  let floodPeak = floodBaseline;
  const sampler = setInterval(() => {
    floodPeak = Math.max(floodPeak, rssOf(pid));
  }, 5);
  const floodStart = performance.now();
  // A script in the workspace (the policy confines head's operands to the roots; /dev/zero is not in them).
  const flood = await client.exec(['sh', 'flood.sh']);
  const floodMs = performance.now() - floodStart;
  clearInterval(sampler);
  const floodBytes = (flood.structuredContent?.stdoutBytes as number) ?? 0;
  if (floodBytes !== 200 * 1024 * 1024 || flood.structuredContent?.truncated !== true)
    throw new Error('flood did not run');

  for (let i = 0; i < 100; i++) await client.exec(['true']);

  const policy = staticPolicy({
    config: toolchainServerConfigSchema.parse(JSON.parse(readFileSync(configPath, 'utf8'))),
    ownFiles: [configPath, dirname(BUNDLE_PATH)],
    scratchBase: join(dir, 'calls'),
  });
  mkdirSync(join(dir, 'calls'));
  const helper = await spawnerAlone(
    (scratch) => helperArgs(policy, 'best-effort', scratch, 60_000, 2000),
    join(dir, 'calls'),
    workspace,
  );
  // A bare spawn, the confined server and the unconfined one sampled in turn, so drift on a shared machine hits
  // all three alike (the ratio compares like with like).
  const offServer = await startServer(offConfigPath);
  const offClient = makeClient(offServer.port);
  await offClient.initialize();
  for (let i = 0; i < 100; i++) await offClient.exec(['true']);
  const noWallServer = await startServer(noWallConfigPath);
  const noWallClient = makeClient(noWallServer.port);
  await noWallClient.initialize();
  for (let i = 0; i < 100; i++) await noWallClient.exec(['true']);
  const mcp: number[] = [];
  const mcpOff: number[] = [];
  const mcpNoWall: number[] = [];
  for (let i = 0; i < 50; i++) await bareSpawnOnce();
  const bare: number[] = [];
  const cpuBefore = {
    on: cpuMsOf(pid),
    off: cpuMsOf(offServer.child.pid!),
    noWall: cpuMsOf(noWallServer.child.pid!),
  };
  // Rotating blocks of SAMPLE_BLOCK: each sample follows one of its own kind (a sample right after another
  // subject's would pay for that subject's trailing work), and the rotation spreads drift over all four.
  const subjects: readonly [() => Promise<unknown>, number[]][] = [
    [() => bareSpawnOnce(), bare],
    [() => execTrue(client), mcp],
    [() => execTrue(noWallClient), mcpNoWall],
    [() => execTrue(offClient), mcpOff],
  ];
  for (let round = 0; round < MCP_SAMPLES / SAMPLE_BLOCK; round++)
    for (const [run, samples] of subjects) {
      await run(); // settles the switch from the previous subject
      for (let i = 0; i < SAMPLE_BLOCK; i++) {
        const t = performance.now();
        await run();
        samples.push(performance.now() - t);
      }
    }
  const cpuPerCall = {
    on: (cpuMsOf(pid) - cpuBefore.on) / CALLS_PER_SERVER,
    off: (cpuMsOf(offServer.child.pid!) - cpuBefore.off) / CALLS_PER_SERVER,
    noWall: (cpuMsOf(noWallServer.child.pid!) - cpuBefore.noWall) / CALLS_PER_SERVER,
  };
  mcp.sort((a, b) => a - b);
  mcpOff.sort((a, b) => a - b);
  mcpNoWall.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  const ready = (await (await fetch(`http://127.0.0.1:${server.port}/readyz`)).json()) as {
    confinement: { abi: number; wall: string };
  };
  const { abi, wall } = ready.confinement;
  offServer.child.kill('SIGTERM');
  offClient.agent.destroy();
  noWallServer.child.kill('SIGTERM');
  noWallClient.agent.destroy();

  const throughput: Record<string, number> = {};
  for (const concurrency of [1, 8, 32]) {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < THROUGHPUT_CALLS) {
          next++;
          const r = await client.exec(['true']);
          if (r.isError) throw new Error(`call failed at concurrency ${concurrency}: ${JSON.stringify(r)}`);
        }
      }),
    );
    throughput[`c${concurrency}`] = Math.round(THROUGHPUT_CALLS / ((performance.now() - t) / 1000));
  }

  server.child.kill('SIGTERM');
  client.agent.destroy();

  // The most-used exec MCP servers from npm, side by side with a fresh server of ours (installed on first use):
  // every subject starts from the same state, so idle and peak memory compare like with like.
  let peers: Awaited<ReturnType<typeof comparePeers>> | undefined;
  if (!process.argv.includes('--no-peers')) {
    const fresh = await startServer(configPath);
    try {
      peers = await comparePeers({ port: fresh.port, pid: fresh.child.pid!, token: TOKEN });
    } finally {
      fresh.child.kill('SIGTERM');
    }
  }
  rmSync(dir, { recursive: true, force: true });

  const bareP50 = percentile(bare, 50);
  const mcpP50 = percentile(mcp, 50);
  const results = {
    node: process.version,
    bareSpawnTrue: { p50Ms: round(bareP50), p99Ms: round(percentile(bare, 99)) },
    mcpExecAllowedTrue: { p50Ms: round(mcpP50), p99Ms: round(percentile(mcp, 99)) },
    confinement: {
      abi,
      unconfinedP50Ms: round(percentile(mcpOff, 50)),
      unconfinedP99Ms: round(percentile(mcpOff, 99)),
      addedP50Ms: round(mcpP50 - percentile(mcpOff, 50)),
      cpuMsPerCall: round(cpuPerCall.on),
      unconfinedCpuMsPerCall: round(cpuPerCall.off),
      addedCpuMsPerCall: round(cpuPerCall.on - cpuPerCall.off),
      spawnerAlone: {
        rules: policy.readOnly.length + policy.readWrite.length + 1,
        noLandlockP50Ms: round(percentile(helper.noLandlock, 50)),
        confinedP50Ms: round(percentile(helper.noWall, 50)),
        addedP50Ms: round(percentile(helper.noWall, 50) - percentile(helper.noLandlock, 50)),
      },
    },
    // The second wall (issue 32): what it adds to a confined call, over MCP and in the spawner alone.
    wall: {
      mechanism: wall,
      noWallP50Ms: round(percentile(mcpNoWall, 50)),
      noWallP99Ms: round(percentile(mcpNoWall, 99)),
      addedP50Ms: round(mcpP50 - percentile(mcpNoWall, 50)),
      addedP99Ms: round(percentile(mcp, 99) - percentile(mcpNoWall, 99)),
      noWallCpuMsPerCall: round(cpuPerCall.noWall),
      addedCpuMsPerCall: round(cpuPerCall.on - cpuPerCall.noWall),
      spawnerAlone: {
        noWallP50Ms: round(percentile(helper.noWall, 50)),
        namespacesP50Ms: round(percentile(helper.namespaces, 50)),
        seccompP50Ms: round(percentile(helper.seccomp, 50)),
        namespacesAddedP50Ms: round(percentile(helper.namespaces, 50) - percentile(helper.noWall, 50)),
        seccompAddedP50Ms: round(percentile(helper.seccomp, 50) - percentile(helper.noWall, 50)),
      },
    },
    ratioP50: round(mcpP50 / bareP50),
    ratioP99: round(percentile(mcp, 99) / percentile(bare, 99)),
    callsPerSecond: throughput,
    idleRssMb: mb(idleRss),
    startToReadyMs: {
      median: Math.round(readyTimes[2]!),
      min: Math.round(readyTimes[0]!),
      max: Math.round(readyTimes[4]!),
    },
    peers,
    output200MbCap1Mb: {
      baselineRssMb: mb(floodBaseline),
      peakRssMb: mb(floodPeak),
      growthMb: mb(floodPeak - floodBaseline),
      durationMs: Math.round(floodMs),
    },
  };
  // Tracing on vs off per call, in process (bench/tracing.ts): no spawn noise around a few microseconds.
  const tracing = await measureTracingCost();
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...results, tracing }, null, 2)}\n`);
    return;
  }
  const lines = [
    `toolchain-server benchmark (node ${results.node}, bundle ${BUNDLE_PATH})`,
    `bare spawn("true")          p50 ${results.bareSpawnTrue.p50Ms} ms   p99 ${results.bareSpawnTrue.p99Ms} ms`,
    `exec_allowed ["true"] (MCP) p50 ${results.mcpExecAllowedTrue.p50Ms} ms   p99 ${results.mcpExecAllowedTrue.p99Ms} ms`,
    `unconfined (confinement off) p50 ${results.confinement.unconfinedP50Ms} ms   p99 ${results.confinement.unconfinedP99Ms} ms`,
    `confinement cost (ABI ${abi})   p50 +${results.confinement.addedP50Ms} ms   (aim <= 0.5 ms)   CPU per call ${results.confinement.cpuMsPerCall} vs ${results.confinement.unconfinedCpuMsPerCall} ms (+${results.confinement.addedCpuMsPerCall})`,
    `spawner alone (${results.confinement.spawnerAlone.rules} rules)  "true" p50 ${results.confinement.spawnerAlone.confinedP50Ms} ms, Landlock simulated away ${results.confinement.spawnerAlone.noLandlockP50Ms} ms (Landlock +${results.confinement.spawnerAlone.addedP50Ms})`,
    `second wall (${results.wall.mechanism})  MCP p50 +${results.wall.addedP50Ms} ms   p99 +${results.wall.addedP99Ms} ms over --no-wall (${results.wall.noWallP50Ms} ms)   (aim <= 0.3 ms)   CPU per call +${results.wall.addedCpuMsPerCall} ms`,
    `second wall, spawner alone  namespaces +${results.wall.spawnerAlone.namespacesAddedP50Ms} ms, seccomp +${results.wall.spawnerAlone.seccompAddedP50Ms} ms over no wall (${results.wall.spawnerAlone.noWallP50Ms} ms)`,
    `ratio                       p50 ${results.ratioP50}x   p99 ${results.ratioP99}x   (aim <= 1.3x at p50)`,
    `calls/s                     c1 ${throughput.c1}   c8 ${throughput.c8}   c32 ${throughput.c32}`,
    `idle RSS                    ${results.idleRssMb} MB   (aim < 80 MB)`,
    `start-to-ready              median ${results.startToReadyMs.median} ms (min ${results.startToReadyMs.min}, max ${results.startToReadyMs.max})   (aim < 300 ms)`,
    `200 MB output, 1 MB cap     RSS ${results.output200MbCap1Mb.baselineRssMb} -> peak ${results.output200MbCap1Mb.peakRssMb} MB, growth ${results.output200MbCap1Mb.growthMb} MB in ${results.output200MbCap1Mb.durationMs} ms   (aim < 32 MB)`,
  ];
  if (peers)
    lines.push(
      '',
      'exec MCP servers side by side (same run, latency in rotating blocks; `true` per call):',
      peerTable(peers),
    );
  lines.push('', ...formatTracingCost(tracing));
  process.stdout.write(`${lines.join('\n')}\n`);
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

await main();
