/**
 * Fault tests against the real server process: a client that disconnects mid-call, SIGTERM with calls in
 * flight, and a flood of 1,000 calls over the queue bound.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeWorkspace, pidAlive, type Workspace, waitFor } from './helpers.ts';
import { rawSession, readPid, startServerProcess } from './process-helpers.ts';

function config(ws: Workspace, limits: Record<string, number> = {}): Record<string, unknown> {
  return {
    name: 'faults',
    listen: { host: '127.0.0.1', port: 0 },
    workspaceRoots: [ws.root],
    tools: { mode: 'exec', allowedCommands: ['true', 'sh', 'sleep'] },
    env: { passthrough: ['PATH'] },
    limits: {
      defaultTimeoutSeconds: 60,
      maxTimeoutSeconds: 60,
      maxOutputBytes: 65536,
      maxConcurrency: 2,
      maxQueue: 16,
      ...limits,
    },
  };
}

const call = (id: number, command: string[]) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'exec_allowed', arguments: { command } },
});

describe('faults', () => {
  let ws: Workspace;
  before(() => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, 'spawn.sh'), 'sleep 60 & echo $! > "$1"; wait\n');
  });
  after(() => ws.cleanup());

  it('kills the child when the client disconnects mid-call', async () => {
    const server = await startServerProcess({ config: config(ws), dir: ws.outside });
    try {
      const post = await rawSession(server.url);
      const pidFile = join(ws.root, 'disconnect.pid');
      const controller = new AbortController();
      const pending = post(call(1, ['sh', 'spawn.sh', pidFile]), { signal: controller.signal }).catch(
        (e: Error) => e,
      );
      await waitFor(() => readPid(pidFile) !== undefined, 5000, 'child to start');
      const grandchild = readPid(pidFile)!;
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await waitFor(() => !pidAlive(grandchild), 5000, 'child of the disconnected call to die');
      await waitFor(
        () =>
          server.lines.some(
            (l) => l.event === 'audit' && l.cancelled === true && l.code === 'TOOLYARD_CANCELLED',
          ),
        5000,
        'audit line for the cancelled call',
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('on SIGTERM lets short calls finish, kills long ones after the grace period, orphans nothing', async () => {
    const server = await startServerProcess({
      config: config(ws),
      dir: ws.outside,
      args: ['--shutdown-grace-seconds', '1'],
    });
    const post = await rawSession(server.url);
    const pidFile = join(ws.root, 'sigterm.pid');
    const short = post(call(1, ['sleep', '0.3'])).then((r) => r.json());
    const long = post(call(2, ['sh', 'spawn.sh', pidFile])).then(
      (r) => r.json(),
      (e: Error) => e,
    );
    await waitFor(() => readPid(pidFile) !== undefined, 5000, 'long call to start');
    const grandchild = readPid(pidFile)!;
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const shortResult = (await short) as { result: { structuredContent: { exitCode: number } } };
    assert.equal(shortResult.result.structuredContent.exitCode, 0, 'the short call finished normally');
    const exit = await server.exited;
    const took = Date.now() - signalled;
    assert.equal(exit.code, 0);
    assert.ok(took < 5000, `shutdown took ${took} ms`);
    const longResult = (await long) as {
      result?: { structuredContent?: { exitCode: number | null; signal: string | null } };
    };
    if (!(longResult instanceof Error)) {
      assert.equal(longResult.result?.structuredContent?.exitCode, null, 'the long call was killed');
    }
    await waitFor(() => !pidAlive(grandchild), 3000, 'grandchild of the killed call to die');
    assert.ok(server.lines.some((l) => l.event === 'stopped' && l.killedProcessGroups === 1));
  });

  it('answers every one of 1,000 concurrent calls over the queue bound, with bounded memory', async () => {
    const server = await startServerProcess({
      config: config(ws, { maxConcurrency: 2, maxQueue: 16 }),
      dir: ws.outside,
    });
    try {
      const post = await rawSession(server.url);
      // Warm up so the baseline includes a used session and spawned children.
      for (let i = 0; i < 20; i++) await post(call(i, ['true'])).then((r) => r.json());
      const baseline = server.rss();
      let peak = baseline;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, server.rss());
        } catch {
          // process gone
        }
      }, 10);
      const outcomes = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          post(call(100 + i, ['true'])).then(async (r) => {
            const body = (await r.json()) as {
              id: number;
              result?: { isError?: boolean; _meta?: Record<string, { code: string }> };
            };
            assert.equal(body.id, 100 + i);
            if (!body.result) return 'protocol-error';
            if (!body.result.isError) return 'ok';
            return body.result._meta?.['dev.toolyard/error']?.code ?? 'error';
          }),
        ),
      );
      clearInterval(sampler);
      const counts = outcomes.reduce<Record<string, number>>((acc, o) => {
        acc[o] = (acc[o] ?? 0) + 1;
        return acc;
      }, {});
      assert.equal(outcomes.length, 1000);
      assert.deepEqual(Object.keys(counts).sort(), ['TOOLYARD_BUSY', 'ok'], JSON.stringify(counts));
      assert.ok(counts.ok! >= 18, `at least the slots and the queue ran: ${JSON.stringify(counts)}`);
      const growthMb = (peak - baseline) / 1024 / 1024;
      assert.ok(growthMb < 64, `server RSS grew ${growthMb.toFixed(1)} MB during the flood`);
      const audits = server.lines.filter((l) => l.event === 'audit');
      await waitFor(
        () => server.lines.filter((l) => l.event === 'audit').length >= 1020,
        5000,
        'an audit line per call',
      );
      assert.ok(audits.length <= 1020);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
