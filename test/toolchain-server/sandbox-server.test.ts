/**
 * A sandbox's server (`sandbox` in the config): unbound it serves nothing; one bind with the bootstrap token
 * gives it the per-sandbox token; a second bind, the bootstrap token on /mcp and a wrong token are refused. Its
 * file tools read, write and list inside the workspace only: traversal, absolute paths outside, symbolic links
 * that lead out (to the bootstrap token itself) and non-regular files are refused, sizes are capped, and every
 * call is an audit line. Controls: the same link read without the server reaches the token; a write through
 * `..` without the server lands outside.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { buildServer } from '../../toolchain-server/src/http.ts';
import { connectClient, listen, makeConfig, makeWorkspace, memoryLog, type Workspace } from './helpers.ts';

const BOOTSTRAP = 'bootstrap-token-of-every-sandbox-pod';
const SANDBOX_TOKEN = 'a'.repeat(64);

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
}

describe('a sandbox server: bound once by the manager, file tools confined to the workspace', () => {
  let ws: Workspace;
  let secrets: string;
  let url: string;
  let client: Client;
  const log = memoryLog();
  let app: ReturnType<typeof buildServer>;

  const bind = (token: string, body: unknown) =>
    fetch(`${url}/sandbox/bind`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

  before(async () => {
    ws = makeWorkspace();
    secrets = join(ws.outside, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'bootstrap'), `${BOOTSTRAP}\n`);
    writeFileSync(join(ws.root, '..', 'outside.txt'), 'outside the workspace\n');
    const config = makeConfig(ws, {
      listen: { host: '127.0.0.1', port: 0 },
      sandbox: { bootstrapTokenFile: join(secrets, 'bootstrap'), maxFileBytes: 1024 },
    });
    app = buildServer({ config, env: { PATH: process.env.PATH }, log: log.sink });
    url = await listen(app);
  });
  after(async () => {
    await client?.close();
    await app.close();
    ws.cleanup();
  });

  it('parses only without auth: the manager gives the token', () => {
    const withAuth = parseToolchainServerConfig({
      name: 't',
      listen: { host: '0.0.0.0', port: 1 },
      workspaceRoots: ['/w'],
      sandbox: { bootstrapTokenFile: '/b' },
      auth: { bearerTokenFile: '/a' },
    });
    assert.equal(withAuth.ok, false);
    const alone = parseToolchainServerConfig({
      name: 't',
      listen: { host: '0.0.0.0', port: 1 },
      workspaceRoots: ['/w'],
      sandbox: { bootstrapTokenFile: '/b' },
    });
    assert.equal(alone.ok, true, 'a sandbox server beyond loopback needs no auth of its own');
  });

  it('serves nothing before the bind, not even to the bootstrap token', async () => {
    for (const token of [BOOTSTRAP, SANDBOX_TOKEN, ''])
      assert.equal(
        (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status,
        401,
      );
  });

  it('refuses a bind without the bootstrap token, or with a bad body', async () => {
    assert.equal((await bind('wrong', { session: 's', token: SANDBOX_TOKEN })).status, 401);
    assert.equal((await bind(BOOTSTRAP, { session: 's', token: 'short' })).status, 400);
    assert.equal((await bind(BOOTSTRAP, { token: SANDBOX_TOKEN })).status, 400);
  });

  it('binds once; then only the per-sandbox token is accepted', async () => {
    const first = await bind(BOOTSTRAP, { session: 'conversation-1', token: SANDBOX_TOKEN });
    assert.equal(first.status, 200);
    const again = await bind(BOOTSTRAP, { session: 'attacker', token: 'b'.repeat(64) });
    assert.equal(again.status, 409);
    assert.equal(
      ((await again.json()) as { error: { code: string } }).error.code,
      'TOOLYARD_SANDBOX_ALREADY_BOUND',
    );
    assert.equal(
      (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BOOTSTRAP}` } })).status,
      401,
    );
    assert.equal(
      (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${'b'.repeat(64)}` } })).status,
      401,
    );
    assert.equal(
      (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${SANDBOX_TOKEN}` } })).status,
      200,
    );
    const bound = log.lines.find((l) => l.event === 'sandbox-bound');
    assert.ok(bound, 'the bind is logged');
    assert.doesNotMatch(
      JSON.stringify(log.lines),
      /conversation-1|a{64}/,
      'no session key or token in the log',
    );
    client = await connectClient(url, { authorization: `Bearer ${SANDBOX_TOKEN}` });
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const tool of ['read_file', 'write_file', 'list_files', 'exec_allowed'])
      assert.ok(names.includes(tool), tool);
  });

  it('writes, reads and lists files in the workspace', async () => {
    const written = await call('write_file', { path: 'outputs/report.md', content: '# done\n' });
    assert.equal(written.isError, undefined, written.content[0]?.text);
    assert.deepEqual(written.structuredContent, { path: 'outputs/report.md', size: 7 });
    assert.equal(readFileSync(join(ws.root, 'outputs/report.md'), 'utf8'), '# done\n');
    const read = await call('read_file', { path: 'outputs/report.md' });
    assert.equal(read.structuredContent?.text, '# done\n');
    assert.equal(read.structuredContent?.contentBase64, Buffer.from('# done\n').toString('base64'));
    const binary = await call('write_file', {
      path: 'data.bin',
      contentBase64: Buffer.from([0, 255, 1]).toString('base64'),
    });
    assert.equal(binary.isError, undefined);
    assert.equal((await call('read_file', { path: 'data.bin' })).structuredContent?.text, null);
    const listed = await call('list_files', { depth: 2 });
    const paths = ((listed.structuredContent?.entries ?? []) as { path: string }[]).map((e) => e.path);
    assert.ok(
      paths.includes('outputs') && paths.includes('outputs/report.md') && paths.includes('data.bin'),
      paths.join(),
    );
  });

  it('refuses paths that lead out of the workspace, with a control that shows where they lead', async () => {
    const leak = join(ws.root, 'leak');
    symlinkSync(join(secrets, 'bootstrap'), leak);
    // Control: the link itself reaches the bootstrap token.
    assert.equal(readFileSync(leak, 'utf8').trim(), BOOTSTRAP);
    for (const args of [{ path: 'leak' }, { path: '../outside.txt' }, { path: join(secrets, 'bootstrap') }]) {
      const result = await call('read_file', args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.doesNotMatch(JSON.stringify(result), new RegExp(BOOTSTRAP));
    }
    symlinkSync(secrets, join(ws.root, 'dirlink'));
    for (const args of [
      { path: '../escaped.txt', content: 'x' },
      { path: 'dirlink/planted', content: 'x' },
      { path: 'leak', content: 'overwritten' },
    ]) {
      const result = await call('write_file', args);
      assert.equal(result.isError, true, JSON.stringify(args));
    }
    assert.equal(
      readFileSync(join(secrets, 'bootstrap'), 'utf8').trim(),
      BOOTSTRAP,
      'the token is untouched',
    );
    assert.throws(() => readFileSync(join(secrets, 'planted')));
    assert.throws(() => readFileSync(join(ws.root, '..', 'escaped.txt')));
  });

  it('caps sizes and refuses what is not a regular file', async () => {
    const big = await call('write_file', { path: 'big.txt', content: 'x'.repeat(2000) });
    assert.equal(big.isError, true);
    assert.match(big.content[0]!.text, /TOOLYARD_FILE_TOO_LARGE/);
    writeFileSync(join(ws.root, 'large.txt'), 'y'.repeat(5000));
    assert.match(
      (await call('read_file', { path: 'large.txt' })).content[0]!.text,
      /TOOLYARD_FILE_TOO_LARGE/,
    );
    assert.equal((await call('read_file', { path: 'outputs' })).isError, true);
  });

  it('writes an audit line per file call', () => {
    const audits = log.lines.filter(
      (l) => l.event === 'audit' && ['read_file', 'write_file', 'list_files'].includes(String(l.tool)),
    );
    assert.ok(audits.length >= 8, `${audits.length} audit lines`);
    assert.ok(audits.some((l) => l.decision === 'denied' && l.code === 'TOOLYARD_CWD_OUTSIDE_ROOTS'));
  });
});
