/**
 * Issue 18's duplicate JSON-RPC id: a second request reusing the id of a call in flight must not take that call
 * out of reach of a disconnect. MCP says a request id MUST NOT be reused within a session, so the server refuses
 * the reuse (HTTP 400, JSON-RPC -32600) and runs nothing of that message; a disconnect still kills the first.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeWorkspace, pidAlive, type Workspace, waitFor } from './helpers.ts';
import { rawSession, readPid, type ServerProcess, startServerProcess } from './process-helpers.ts';

const call = (id: number | string, command: string[]) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'exec_allowed', arguments: { command } },
});

describe('request ids are unique per session', () => {
  let ws: Workspace;
  let server: ServerProcess;
  before(async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, 'spawn.sh'), 'sleep 60 & echo $! > "$1"; wait\n');
    server = await startServerProcess({
      dir: ws.outside,
      config: {
        name: 'ids',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['sh', 'true'] },
        env: { passthrough: ['PATH'] },
        limits: { defaultTimeoutSeconds: 60, maxTimeoutSeconds: 60 },
      },
    });
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    ws?.cleanup();
  });

  /** Starts `sh spawn.sh <pidFile>` under `id` and waits for its sleeper; returns the abort and the sleeper. */
  const startSleeper = async (post: Awaited<ReturnType<typeof rawSession>>, id: number, name: string) => {
    const pidFile = join(ws.root, name);
    const controller = new AbortController();
    const pending = post(call(id, ['sh', 'spawn.sh', pidFile]), { signal: controller.signal }).catch(
      (e: Error) => e,
    );
    await waitFor(() => readPid(pidFile) !== undefined, 5000, `${name} to start`);
    return { abort: () => controller.abort(), pending, pid: readPid(pidFile)! };
  };

  it('refuses a request reusing the id of a call in flight; a disconnect still kills the first call', async () => {
    const post = await rawSession(server.url);
    const first = await startSleeper(post, 7, 'first.pid');
    const dupFile = join(ws.root, 'duplicate.pid');
    const duplicate = await post(call(7, ['sh', 'spawn.sh', dupFile]));
    assert.equal(duplicate.status, 400);
    const body = (await duplicate.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /already used in this session/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(readPid(dupFile), undefined, 'nothing of the refused message ran');
    first.abort();
    assert.ok((await first.pending) instanceof Error);
    await waitFor(() => !pidAlive(first.pid), 5000, 'the first call to be killed by the disconnect');
  });

  it('control: with distinct ids both calls run, and a disconnect of each kills each', async () => {
    const post = await rawSession(server.url);
    const a = await startSleeper(post, 1, 'a.pid');
    const b = await startSleeper(post, 2, 'b.pid');
    a.abort();
    b.abort();
    for (const s of [a, b]) await waitFor(() => !pidAlive(s.pid), 5000, `pid ${s.pid} to die`);
  });

  it('refuses an id repeated within one batch, and an id used earlier in the session', async () => {
    const post = await rawSession(server.url);
    const batch = await post([call('x', ['true']), call('x', ['true'])]);
    assert.equal(batch.status, 400);
    assert.equal(((await batch.json()) as { error: { code: number } }).error.code, -32600);
    const once = await post(call(3, ['true']));
    assert.equal(once.status, 200);
    await once.text();
    const again = await post(call(3, ['true']));
    assert.equal(again.status, 400);
    await again.text();
    // Another session has its own ids.
    const other = await rawSession(server.url);
    const fresh = await other(call(3, ['true']));
    assert.equal(fresh.status, 200);
    await fresh.text();
  });
});
