/** The per-call Landlock policy as data: the walk that grants `/` minus the server's own files, and the flags. */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { toolchainServerConfigSchema } from '../../toolchain-server/src/config.ts';
import { helperArgs, readOnlyGrants, staticPolicy } from '../../toolchain-server/src/confinement/policy.ts';
import {
  cargoConfigFiles,
  createCallScratch,
  PinnedFiles,
} from '../../toolchain-server/src/confinement/scratch.ts';

describe('confinement policy', () => {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-policy-')));
  after(() => rmSync(top, { recursive: true, force: true }));
  for (const dir of ['usr/bin', 'etc/ssl', 'etc/toolyard', 'opt/toolyard/bin', 'opt/other'])
    mkdirSync(join(top, dir), { recursive: true });
  writeFileSync(join(top, 'etc', 'hosts'), '');
  writeFileSync(join(top, 'etc', 'toolyard', 'config.json'), '{}');
  symlinkSync(join(top, 'etc', 'toolyard', 'config.json'), join(top, 'etc', 'config-link'));
  symlinkSync('usr/bin', join(top, 'bin'));

  it('refuses to start when a token or the config file lies inside a workspace root or a declared cache', () => {
    const ws = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-policy-ws-'))), 'ws');
    mkdirSync(join(ws, '.toolyard'), { recursive: true });
    writeFileSync(join(ws, '.toolyard', 'token'), 'secret\n');
    writeFileSync(join(ws, 'toolyard.json'), '{}');
    const config = (extra: Record<string, unknown>) =>
      toolchainServerConfigSchema.parse({
        name: 't',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws],
        tools: { mode: 'exec', allowedCommands: ['true'] },
        ...extra,
      });
    assert.throws(
      () =>
        staticPolicy({
          config: config({ auth: { bearerTokenFile: join(ws, '.toolyard', 'token') } }),
          ownFiles: [],
          scratchBase: '/tmp/calls',
        }),
      /auth\.bearerTokenFile .*\/ws\/\.toolyard\/token lies inside .*\/ws, which every confined call may read/,
    );
    assert.throws(
      () =>
        staticPolicy({
          config: config({}),
          ownFiles: [join(ws, 'toolyard.json')],
          scratchBase: '/tmp/calls',
        }),
      /the config file .* lies inside/,
    );
    // The bundle directory (a checkout used as the workspace) is not a secret file: no refusal.
    assert.doesNotThrow(() =>
      staticPolicy({ config: config({}), ownFiles: [join(ws, '.toolyard')], scratchBase: '/tmp/calls' }),
    );
    rmSync(dirname(ws), { recursive: true, force: true });
  });

  it('grants every entry but the denied ones, opening only the directories that hold them; never a symlink', () => {
    const grants = readOnlyGrants([join(top, 'etc', 'toolyard'), join(top, 'opt', 'toolyard')], top);
    assert.deepEqual(grants.map((g) => g.slice(top.length)).sort(), [
      '/etc/hosts',
      '/etc/ssl',
      '/opt/other',
      '/usr',
    ]);
  });

  it('denies the config, tokens, their mount directories, secrets mounts and TMPDIR; writes roots, caches, scratch', () => {
    const config = toolchainServerConfigSchema.parse({
      name: 'p',
      listen: { port: 0 },
      workspaceRoots: ['/src'],
      auth: { bearerTokenFile: '/var/run/toolyard/token' },
      env: { set: { CARGO_HOME: join(top, 'cache', 'cargo'), HOME: '/home/x' } },
      egressProxy: {
        url: 'http://agent-broker.ns.svc:8480',
        user: 'rust',
        tokenFile: '/var/run/broker/token',
      },
    });
    const policy = staticPolicy({
      config,
      ownFiles: ['/etc/toolyard/config.json'],
      scratchBase: '/tmp/calls',
    });
    for (const denied of [
      '/etc/toolyard/config.json',
      '/var/run/toolyard/token',
      '/var/run/toolyard',
      '/var/run/broker',
      '/run/secrets',
      tmpdir(),
    ])
      assert.ok(policy.denied.includes(denied), denied);
    assert.ok(policy.readOnly.every((p) => !p.startsWith(tmpdir())));
    assert.deepEqual(policy.readWrite.slice(0, 2), ['/src', join(top, 'cache', 'cargo')]);
    assert.deepEqual(policy.connectPorts, [8480]);
    const args = helperArgs(policy, 'required', '/tmp/calls/call-1', 5000, 100);
    assert.deepEqual(args.slice(0, 7), [
      '--mode',
      'required',
      '--scope-signals',
      '--scope-abstract',
      '--no-connect',
      '--connect',
      '8480',
    ]);
    assert.deepEqual(args.slice(-8), [
      '--rw',
      '/tmp/calls/call-1',
      '--scratch',
      '/tmp/calls/call-1',
      '--timeout-ms',
      '5000',
      '--grace-ms',
      '100',
    ]);
  });
});

describe('per-call scratch and pinned files', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-scratch-')));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('gives each call its own HOME and TMPDIR (and CARGO_HOME unless declared)', () => {
    const a = createCallScratch(base, {});
    const b = createCallScratch(base, { CARGO_HOME: '/cache/cargo' });
    assert.notEqual(a.env.HOME, b.env.HOME);
    assert.ok(a.env.HOME!.startsWith(a.dir) && a.env.TMPDIR!.startsWith(a.dir));
    assert.equal(a.env.CARGO_HOME, join(a.dir, '.cargo'));
    assert.equal(b.env.CARGO_HOME, undefined);
    a.remove();
    b.remove();
  });

  it("restores cargo's user config in a declared CARGO_HOME after a call changed, created or removed it", () => {
    const cargo = join(base, 'cargo');
    mkdirSync(cargo);
    writeFileSync(join(cargo, 'config.toml'), '[net]\noffline = true\n');
    const pinned = new PinnedFiles(cargoConfigFiles({ CARGO_HOME: cargo }));
    assert.deepEqual(pinned.restore(), []);
    writeFileSync(join(cargo, 'config.toml'), '[build]\nrustc-wrapper = "/tmp/evil"\n');
    writeFileSync(join(cargo, 'config'), '[alias]\nb = "run"\n');
    assert.deepEqual(pinned.restore().sort(), [join(cargo, 'config'), join(cargo, 'config.toml')]);
    assert.equal(readFileSync(join(cargo, 'config.toml'), 'utf8'), '[net]\noffline = true\n');
    assert.equal(existsSync(join(cargo, 'config')), false);
    rmSync(join(cargo, 'config.toml'));
    pinned.restore();
    assert.equal(readFileSync(join(cargo, 'config.toml'), 'utf8'), '[net]\noffline = true\n');
  });
});
