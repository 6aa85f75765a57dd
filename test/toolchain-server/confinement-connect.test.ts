/**
 * `limits.connect` and `limits.testPorts` through the real server on this kernel (docs/confinement.md#loopback):
 * with `egress` a confined command connects to a declared test port and to nothing else; with `pod` the connect
 * rule is dropped and a test suite's own loopback server is reachable. Each refusal has its control (the same
 * connect made directly succeeds).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildConfine } from '../../toolchain-server/scripts/build-confine.ts';
import { connectClient, makeWorkspace, type Workspace } from './helpers.ts';
import { type ServerProcess, startServerProcess } from './process-helpers.ts';

const PATH = process.env.PATH ?? '/usr/bin:/bin';

interface Exec {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

async function call(client: Client, command: string[]): Promise<Exec> {
  const result = await client.callTool({ name: 'exec_allowed', arguments: { command } });
  const s = result.structuredContent as Exec | undefined;
  assert.ok(s, `no structured result: ${JSON.stringify(result.content)}`);
  return s;
}

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

for (const connect of ['egress', 'pod'] as const) {
  describe(`limits.connect: ${connect}`, () => {
    let ws: Workspace;
    let server: ServerProcess;
    let client: Client;
    const listeners: Array<{ server: Server; port: number }> = [];

    before(async () => {
      await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
      ws = makeWorkspace();
      writeFileSync(join(ws.root, 'connect.sh'), 'exec 3<>"/dev/tcp/127.0.0.1/$1" && echo connected\n');
      listeners.push(await listen(), await listen());
      server = await startServerProcess({
        dir: ws.outside,
        config: {
          name: 'connect',
          listen: { host: '127.0.0.1', port: 0 },
          workspaceRoots: [ws.root],
          tools: { mode: 'exec', allowedCommands: ['bash'] },
          env: { passthrough: ['PATH'] },
          limits: { confinement: 'required', connect, testPorts: [listeners[0]!.port] },
        },
      });
      client = await connectClient(server.url);
    });
    after(async () => {
      await client?.close();
      server?.child.kill('SIGTERM');
      await server?.exited;
      for (const l of listeners) l.server.close();
      ws?.cleanup();
    });

    it('connects to a declared test port', async () => {
      const r = await call(client, ['bash', 'connect.sh', String(listeners[0]!.port)]);
      assert.equal(r.stdout, 'connected\n', r.stderr);
    });

    if (connect === 'egress')
      it('refuses any other port (a loopback listener outside the call); the control connects', async () => {
        const r = await call(client, ['bash', 'connect.sh', String(listeners[1]!.port)]);
        assert.notEqual(r.exitCode, 0);
        assert.match(r.stderr, /Permission denied/);
        const control = spawnSync('bash', ['connect.sh', String(listeners[1]!.port)], {
          cwd: ws.root,
          encoding: 'utf8',
          env: { PATH },
        });
        assert.equal(control.stdout, 'connected\n');
      });
    else
      it('connects to any port: the pod network, not Landlock, bounds where it goes', async () => {
        const r = await call(client, ['bash', 'connect.sh', String(listeners[1]!.port)]);
        assert.equal(r.stdout, 'connected\n', r.stderr);
      });
  });
}
