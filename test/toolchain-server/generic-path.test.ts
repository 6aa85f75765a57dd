/**
 * The generic confined path through the real server (docs/confinement.md#commands-without-a-table): a listed
 * command without an argv table runs when Landlock is enforced — its path-like words still confined, the kernel
 * bounding what it reaches — and is refused with the reason when confinement is off.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildConfine } from '../../toolchain-server/scripts/build-confine.ts';
import { connectClient, makeWorkspace, type Workspace } from './helpers.ts';
import { type ServerProcess, startServerProcess } from './process-helpers.ts';

interface Result {
  structuredContent?: { exitCode: number | null; stdout: string; stderr: string };
  _meta?: Record<
    string,
    { code: string; rule: string | null; message: string; allowed: string | null } | undefined
  >;
}

for (const confinement of ['required', 'off'] as const) {
  describe(`a listed command without a table, limits.confinement: ${confinement}`, () => {
    let ws: Workspace;
    let server: ServerProcess;
    let client: Client;
    const call = async (command: string[]) =>
      (await client.callTool({ name: 'exec_allowed', arguments: { command } })) as Result;

    before(async () => {
      await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
      ws = makeWorkspace();
      writeFileSync(join(ws.root, 'lines.txt'), 'one\ntwo\n');
      writeFileSync(join(ws.outside, 'secret.txt'), 'outside secret\n');
      mkdirSync(join(ws.root, 'sub'));
      symlinkSync(ws.outside, join(ws.root, 'escape'));
      server = await startServerProcess({
        dir: ws.outside,
        config: {
          name: 'generic',
          listen: { host: '127.0.0.1', port: 0 },
          workspaceRoots: [ws.root],
          tools: { mode: 'exec', allowedCommands: ['tac', 'od'] },
          env: { passthrough: ['PATH'] },
          limits: { confinement },
        },
      });
      client = await connectClient(server.url);
    });
    after(async () => {
      await client?.close();
      server?.child.kill('SIGTERM');
      await server?.exited;
      ws?.cleanup();
    });

    if (confinement === 'required') {
      it('runs it as given, and the output is what it prints directly', async () => {
        const r = await call(['tac', 'lines.txt']);
        assert.equal(r.structuredContent?.stdout, 'two\none\n', JSON.stringify(r));
        const direct = spawnSync('tac', ['lines.txt'], { cwd: ws.root, encoding: 'utf8' });
        assert.equal(direct.stdout, r.structuredContent?.stdout);
      });

      it('refuses a path-like word outside the roots; the control reads it directly', async () => {
        for (const command of [
          ['tac', join(ws.outside, 'secret.txt')],
          ['tac', 'escape/secret.txt'],
          ['od', `--traditional=${join(ws.outside, 'secret.txt')}`],
        ]) {
          const r = await call(command);
          assert.equal(r._meta?.['dev.toolyard/error']?.rule, 'path-outside-roots', JSON.stringify(command));
        }
        const control = spawnSync('tac', ['escape/secret.txt'], { cwd: ws.root, encoding: 'utf8' });
        assert.equal(control.stdout, 'outside secret\n');
      });
    } else {
      it('refuses it, saying confinement is off and what has a table', async () => {
        const r = await call(['tac', 'lines.txt']);
        const error = r._meta?.['dev.toolyard/error'];
        assert.equal(error?.rule, 'no-argv-policy');
        assert.match(error?.message ?? '', /kernel confinement, which is off/);
        assert.match(error?.allowed ?? '', /commands with a policy: .*\bcat\b/);
      });
    }
  });
}
