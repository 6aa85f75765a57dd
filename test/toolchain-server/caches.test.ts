/**
 * Caches and the fetch phase on this machine's kernel (Landlock), through the in-process toolchain: a
 * `read-only` cache refuses writes in every call, a `download` cache under `egressProxy.phase: fetch` refuses
 * writes from every call but a fetch tool's, a `build` cache stays writable; non-fetch calls get no proxy
 * variables, no TCP connect to the proxy port and the offline variables. Each refusal has its control: the same
 * script succeeds where the policy allows it (phase `always`, a read-write cache).
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  parseToolchainServerConfig,
  type ToolchainServerConfigInput,
} from '../../toolchain-server/src/config.ts';
import { probeConfinement } from '../../toolchain-server/src/confinement/helper.ts';
import {
  callPolicy,
  type StaticPolicy,
  staticPolicy,
} from '../../toolchain-server/src/confinement/policy.ts';
import { ToolError } from '../../toolchain-server/src/errors.ts';
import { WorkspaceRoots } from '../../toolchain-server/src/policy/cwd.ts';
import { PROXY_ENV_NAMES } from '../../toolchain-server/src/policy/proxy-env.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { assertPinnedRequirements, FETCH_TOOLS } from '../../toolchain-server/src/tools/fetch-tools.ts';
import type { PlanContext } from '../../toolchain-server/src/tools/types.ts';
import { makeConfig, makeWorkspace, type Workspace } from './helpers.ts';

const TOKEN = 'caches-test-broker-token-0123456789';

interface Exec {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

async function call(toolchain: Toolchain, name: string, args: Record<string, unknown>): Promise<Exec> {
  const result = await toolchain.callTool(name, args);
  const s = result.structuredContent as Exec | undefined;
  assert.ok(s, `no structured result: ${JSON.stringify(result.content)}`);
  return s;
}

const exec = (toolchain: Toolchain, command: string[]) => call(toolchain, 'exec_allowed', { command });

describe('caches config', () => {
  const base = {
    name: 't',
    listen: { port: 1 },
    workspaceRoots: ['/workspace'],
  } satisfies ToolchainServerConfigInput;

  it("defaults keep today's behaviour: no caches, phase always, no offline variables", () => {
    const r = parseToolchainServerConfig({
      ...base,
      egressProxy: { url: 'http://b:8480', user: 'toolchain-x', tokenFile: '/t' },
    });
    assert.ok(r.ok);
    assert.deepEqual(r.config.caches, []);
    assert.deepEqual(r.config.offlineEnv, {});
    assert.equal(r.config.egressProxy?.phase, 'always');
  });

  it('refuses overlapping caches, a cache in the workspace, a proxy variable in offlineEnv', () => {
    const r = parseToolchainServerConfig({
      ...base,
      caches: [
        { name: 'go', ecosystem: 'go', path: '/var/cache/toolyard/go', kind: 'download' },
        { name: 'go', ecosystem: 'go-build', path: '/var/cache/toolyard/go/build', kind: 'build' },
        { name: 'npm', ecosystem: 'npm', path: '/workspace/.npm', kind: 'download' },
      ],
      offlineEnv: { HTTPS_PROXY: '' },
    });
    assert.ok(!r.ok);
    const paths = r.issues.map((i) => `${i.path}: ${i.message}`).join('\n');
    assert.match(paths, /\/caches\/1\/name: duplicate cache name go/);
    assert.match(paths, /\/caches\/0\/path: .*overlaps caches\[1\]/);
    assert.match(paths, /\/caches\/2\/path: .*overlaps the workspace root \/workspace/);
    assert.match(paths, /\/offlineEnv\/HTTPS_PROXY: .*proxy variable/);
  });
});

describe('callPolicy', () => {
  const policy: StaticPolicy = {
    readOnly: ['/usr'],
    readWrite: ['/workspace'],
    connectPorts: [8480, 3000],
    proxyPort: 8480,
    denied: [],
    phase: 'fetch',
    caches: [
      { name: 'dl', ecosystem: 'go', path: '/c/dl', access: 'read-write', kind: 'download' },
      { name: 'bd', ecosystem: 'go-build', path: '/c/bd', access: 'read-write', kind: 'build' },
      { name: 'ro', ecosystem: 'npm', path: '/c/ro', access: 'read-only', kind: 'download' },
    ],
  };

  it('phase fetch: a fetch call writes download caches and connects; others read them and connect nowhere', () => {
    const fetch = callPolicy(policy, { fetch: true });
    assert.deepEqual(fetch.readWrite, ['/workspace', '/c/dl', '/c/bd']);
    assert.deepEqual(fetch.readOnly, ['/usr', '/c/ro']);
    assert.deepEqual(fetch.connectPorts, [8480, 3000]);
    const other = callPolicy(policy, { fetch: false });
    assert.deepEqual(other.readWrite, ['/workspace', '/c/bd']);
    assert.deepEqual(other.readOnly, ['/usr', '/c/dl', '/c/ro']);
    // Only the proxy's port goes; a connect rule that is not about egress stays.
    assert.deepEqual(other.connectPorts, [3000]);
  });

  it('phase always: every call as a fetch call; read-only stays read-only', () => {
    const other = callPolicy({ ...policy, phase: 'always' }, { fetch: false });
    assert.deepEqual(other.readWrite, ['/workspace', '/c/dl', '/c/bd']);
    assert.deepEqual(other.readOnly, ['/usr', '/c/ro']);
    assert.deepEqual(other.connectPorts, [8480, 3000]);
  });
});

describe('cache variables in env.set and declared caches', () => {
  // staticPolicy creates cache directories that do not exist yet: everything lives under one temp directory.
  let base: string;
  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-cache-vars-')));
  });
  after(() => rmSync(base, { recursive: true, force: true }));
  const policy = (set: Record<string, string>) => {
    const r = parseToolchainServerConfig({
      name: 't',
      listen: { port: 1 },
      workspaceRoots: [join(base, 'workspace')],
      caches: [
        {
          name: 'go',
          ecosystem: 'go',
          path: join(base, 'cache', 'go'),
          access: 'read-only',
          kind: 'download',
        },
      ],
      env: { set },
    });
    assert.ok(r.ok);
    return staticPolicy({ config: r.config, ownFiles: [], scratchBase: join(base, 'scratch') });
  };

  it('a variable inside a declared cache gets the cache access, not the blanket read-write grant', () => {
    const cache = join(base, 'cache', 'go');
    const p = policy({ GOMODCACHE: cache, GOCACHE: join(base, 'other', 'go-build') });
    assert.ok(!p.readWrite.includes(cache), 'a read-only cache became writable');
    assert.ok(
      p.readWrite.includes(join(base, 'other', 'go-build')),
      'control: an undeclared cache stays writable',
    );
    assert.ok(callPolicy(p, { fetch: true }).readOnly.includes(cache));
  });

  it('refuses to start when a variable holds a declared cache (it would widen it)', () => {
    assert.throws(
      () => policy({ XDG_CACHE_HOME: join(base, 'cache') }),
      /env\.set\.XDG_CACHE_HOME \(.*\) holds the cache go/,
    );
  });
});

describe('pip_download requirements', () => {
  it('takes pinned lines with extras, markers, hashes and comments', () => {
    assertPinnedRequirements(
      '# pinned\nrequests[socks]==2.31.0 ; python_version >= "3.8" \\\n    --hash=sha256:00ff\n\nidna==3.4  # via requests\n',
      'requirements.txt',
    );
  });

  for (const line of [
    '--no-binary=:all:',
    '-e .',
    './local-package',
    'requests>=2',
    'pkg @ https://example.com/pkg.tar.gz',
    '-r other.txt',
    'git+https://example.com/repo',
  ])
    it(`refuses ${JSON.stringify(line)}`, () => {
      assert.throws(
        () => assertPinnedRequirements(`idna==3.4\n${line}\n`, 'requirements.txt'),
        /line 2 is not a pinned requirement/,
      );
    });
});

describe('uv_sync_fetch: what it runs', () => {
  const tool = FETCH_TOOLS.python!.find((t) => t.name === 'uv_sync_fetch')!;
  let ws: Workspace;
  const uvCache = {
    name: 'uv',
    ecosystem: 'uv',
    path: '/var/cache/toolyard/uv',
    access: 'read-write',
    kind: 'download',
  } as const;
  const ctx = (
    caches: PlanContext['caches'] = [uvCache],
    python: string | null = '/usr/bin/python3',
  ): PlanContext => ({
    cwd: ws.root,
    roots: new WorkspaceRoots([ws.root]),
    has: () => true,
    pathOf: (binary) => (binary === 'python3' ? (python ?? undefined) : `/usr/bin/${binary}`),
    caches,
  });
  const plan = (c = ctx()) => tool.plan({}, c);
  const refusal = (c = ctx()) => {
    try {
      plan(c);
    } catch (error) {
      if (error instanceof ToolError) return error;
      throw error;
    }
    assert.fail('expected a refusal');
  };

  before(() => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, 'pyproject.toml'), '[project]\nname = "p"\nversion = "0.1.0"\n');
  });
  after(() => ws.cleanup());

  it('is a fetch tool of the python preset that needs uv and python3 only when it runs', () => {
    assert.equal(tool.fetch, true);
    assert.deepEqual(tool.binaries, []);
    assert.deepEqual(tool.optionalBinaries, ['uv', 'python3']);
  });

  it('without uv.lock: resolves without building, installs no project code, the image interpreter, a throwaway environment', () => {
    rmSync(join(ws.root, 'uv.lock'), { force: true });
    const p = plan();
    assert.equal(p.command, 'uv');
    assert.deepEqual(p.args, [
      'sync',
      '--no-install-project',
      '--no-install-workspace',
      '--no-install-local',
      '--no-build',
      '--no-python-downloads',
      '--keyring-provider',
      'disabled',
      '--no-progress',
      '--color',
      'never',
    ]);
    assert.deepEqual(p.env, { UV_PYTHON: '/usr/bin/python3' });
    assert.deepEqual(p.scratchEnv, { UV_PROJECT_ENVIRONMENT: 'uv-fetch-venv' });
  });

  it('with uv.lock: exactly the lockfile (--frozen)', () => {
    writeFileSync(
      join(ws.root, 'uv.lock'),
      'version = 1\n\n[[package]]\nname = "six"\nversion = "1.16.0"\nsource = { registry = "https://pypi.org/simple" }\n',
    );
    assert.deepEqual(plan().args.slice(0, 2), ['sync', '--frozen']);
  });

  it('refuses a uv.lock with a git source (fetch-runs-no-code)', () => {
    writeFileSync(
      join(ws.root, 'uv.lock'),
      'version = 1\n\n[[package]]\nname = "evil"\nversion = "1.0"\nsource = { git = "https://example.com/evil.git#abc" }\n',
    );
    const error = refusal();
    assert.equal(error.rule, 'fetch-runs-no-code');
    rmSync(join(ws.root, 'uv.lock'));
  });

  it('needs a uv cache, a pyproject.toml and python3', () => {
    assert.match(refusal(ctx([])).message, /needs a uv cache/);
    assert.equal(refusal(ctx(undefined, null)).code, 'TOOLYARD_COMMAND_UNAVAILABLE');
    rmSync(join(ws.root, 'pyproject.toml'));
    assert.match(refusal().message, /needs a pyproject\.toml/);
    writeFileSync(join(ws.root, 'pyproject.toml'), '[project]\nname = "p"\nversion = "0.1.0"\n');
  });
});

describe('caches and the fetch phase under Landlock (in-process toolchain)', () => {
  const skip =
    probeConfinement('best-effort', undefined).abi < 4
      ? 'needs Landlock ABI 4+ (network rules) and the helper (npm run build:server)'
      : undefined;
  let ws: Workspace;
  let proxy: Server;
  let proxyPort: number;
  let tokenFile: string;
  const caches = (dir: string) => ({
    dl: join(dir, 'cache-dl'),
    bd: join(dir, 'cache-bd'),
    ro: join(dir, 'cache-ro'),
  });

  before(async () => {
    if (skip) return;
    ws = makeWorkspace();
    tokenFile = join(ws.outside, 'secret', 'token');
    mkdirSync(join(ws.outside, 'secret'));
    writeFileSync(tokenFile, TOKEN);
    for (const path of Object.values(caches(ws.outside))) mkdirSync(path);
    writeFileSync(join(ws.root, 'plant.sh'), 'echo planted > "$1/planted-$2" && echo wrote\n');
    writeFileSync(join(ws.root, 'read.sh'), 'cat "$1"\n');
    writeFileSync(join(ws.root, 'connect.sh'), 'exec 3<>"/dev/tcp/127.0.0.1/$1" && echo connected\n');
    // The project's own install script: npm ci --ignore-scripts must not run it.
    writeFileSync(
      join(ws.root, 'package.json'),
      JSON.stringify({
        name: 'p',
        version: '1.0.0',
        scripts: { preinstall: 'sh plant.sh . preinstall', prepare: 'sh plant.sh . prepare' },
      }),
    );
    writeFileSync(
      join(ws.root, 'package-lock.json'),
      JSON.stringify({
        name: 'p',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'p', version: '1.0.0' } },
      }),
    );
    proxy = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as { port: number }).port;
  });

  after(() => {
    proxy?.close();
    ws?.cleanup();
  });

  const toolchain = (
    phase: 'always' | 'fetch',
    access: 'read-write' | 'read-only' = 'read-write',
    log: (line: Readonly<Record<string, unknown>>) => void = () => {},
  ) => {
    const c = caches(ws.outside);
    return new Toolchain({
      config: makeConfig(ws, {
        tools: {
          mode: 'exec',
          presets: ['node'],
          allowedCommands: ['sh', 'bash', 'printenv'],
        },
        env: {
          passthrough: ['PATH'],
          set: { npm_config_cache: c.dl, npm_config_update_notifier: 'false' },
        },
        limits: { confinement: 'required' },
        egressProxy: { url: `http://127.0.0.1:${proxyPort}`, user: 'toolchain-x', tokenFile, phase },
        caches: [
          { name: 'dl', ecosystem: 'npm', path: c.dl, access, kind: 'download' },
          { name: 'bd', ecosystem: 'go-build', path: c.bd, access, kind: 'build' },
          { name: 'ro', ecosystem: 'pip', path: c.ro, access: 'read-only', kind: 'download' },
        ],
        offlineEnv: { npm_config_offline: 'true', GOPROXY: 'off' },
      }),
      env: { PATH: process.env.PATH },
      log,
      probeVersions: false,
    });
  };

  it('phase fetch: a non-fetch call has no proxy variable and no token, and has the offline variables', async (t) => {
    if (skip) return t.skip(skip);
    const r = await exec(toolchain('fetch'), ['printenv']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.ok(!r.stdout.includes(TOKEN), 'the broker token reached a non-fetch call');
    for (const name of PROXY_ENV_NAMES) assert.doesNotMatch(r.stdout, new RegExp(`^${name}=`, 'm'));
    assert.match(r.stdout, /^npm_config_offline=true$/m);
    assert.match(r.stdout, /^GOPROXY=off$/m);
    // Control: phase always gives every call the proxy (with the token) and no offline variables.
    const control = await exec(toolchain('always'), ['printenv']);
    assert.ok(control.stdout.includes(encodeURIComponent(TOKEN)), 'control: no token under phase always');
    assert.doesNotMatch(control.stdout, /npm_config_offline/);
  });

  it('phase fetch: a non-fetch call cannot connect to the proxy port; the control (phase always) can', async (t) => {
    if (skip) return t.skip(skip);
    const r = await exec(toolchain('fetch'), ['bash', 'connect.sh', String(proxyPort)]);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stderr, /Permission denied/);
    const control = await exec(toolchain('always'), ['bash', 'connect.sh', String(proxyPort)]);
    assert.equal(control.stdout, 'connected\n', control.stderr);
  });

  it('phase fetch: project code cannot plant a file in a read-write download cache; the control (phase always) can', async (t) => {
    if (skip) return t.skip(skip);
    const { dl } = caches(ws.outside);
    const r = await exec(toolchain('fetch'), ['sh', 'plant.sh', dl, 'fetch-phase']);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stderr, /Permission denied/);
    assert.ok(!existsSync(join(dl, 'planted-fetch-phase')));
    const control = await exec(toolchain('always'), ['sh', 'plant.sh', dl, 'always']);
    assert.equal(control.stdout, 'wrote\n', control.stderr);
    assert.ok(existsSync(join(dl, 'planted-always')));
  });

  it('a build cache of a read-write consumer stays writable in non-fetch calls under phase fetch', async (t) => {
    if (skip) return t.skip(skip);
    const { bd } = caches(ws.outside);
    const r = await exec(toolchain('fetch'), ['sh', 'plant.sh', bd, 'build']);
    assert.equal(r.stdout, 'wrote\n', r.stderr);
  });

  it('a read-only consumer cannot write any cache, in any phase; the control (read-write) can', async (t) => {
    if (skip) return t.skip(skip);
    const { bd, dl } = caches(ws.outside);
    for (const dir of [bd, dl]) {
      const r = await exec(toolchain('always', 'read-only'), ['sh', 'plant.sh', dir, 'ro-marker']);
      assert.notEqual(r.exitCode, 0, `${dir}: ${r.stdout}`);
      assert.match(r.stderr, /Permission denied/);
      assert.ok(!existsSync(join(dir, 'planted-ro-marker')));
      const control = await exec(toolchain('always', 'read-write'), ['sh', 'plant.sh', dir, 'rw-marker']);
      assert.equal(control.stdout, 'wrote\n', control.stderr);
    }
    // Reading stays allowed: what the read-write control wrote is readable by the read-only consumer.
    const read = await exec(toolchain('always', 'read-only'), [
      'sh',
      'read.sh',
      join(dl, 'planted-rw-marker'),
    ]);
    assert.equal(read.stdout, 'planted\n', read.stderr);
  });

  it('npm_ci_fetch under phase fetch writes the download cache and runs none of the project scripts', async (t) => {
    if (skip) return t.skip(skip);
    const { dl } = caches(ws.outside);
    const tc = toolchain('fetch');
    assert.ok(tc.listedTools.some((tool) => tool.name === 'npm_ci_fetch'));
    const r = await call(tc, 'npm_ci_fetch', {});
    assert.equal(r.exitCode, 0, r.stderr);
    // npm wrote its cache (logs and index live there) in the fetch call.
    assert.ok(existsSync(join(dl, '_logs')), 'npm wrote nothing into its cache');
    assert.ok(!existsSync(join(ws.root, 'planted-preinstall')), 'npm ci ran the preinstall script');
    assert.ok(!existsSync(join(ws.root, 'planted-prepare')), 'npm ci ran the prepare script');
    // Control: the scripts do run when npm is allowed to (npm run preinstall through the same server).
    const control = await call(tc, 'npm_run', { script: 'preinstall' });
    assert.equal(control.exitCode, 0, control.stderr);
    assert.equal(readFileSync(join(ws.root, 'planted-preinstall'), 'utf8'), 'planted\n');
  });

  it('the audit line says which calls had the proxy: fetch calls under phase fetch, every call under phase always', async (t) => {
    if (skip) return t.skip(skip);
    const lines: Array<Readonly<Record<string, unknown>>> = [];
    const fetchPhase = toolchain('fetch', 'read-write', (line) => lines.push(line));
    await exec(fetchPhase, ['printenv']);
    await call(fetchPhase, 'npm_ci_fetch', {});
    await exec(
      toolchain('always', 'read-write', (line) => lines.push(line)),
      ['printenv'],
    );
    assert.deepEqual(
      lines.filter((l) => l.event === 'audit').map((l) => [l.tool, l.egress]),
      [
        ['exec_allowed', false],
        ['npm_ci_fetch', true],
        ['exec_allowed', true],
      ],
    );
  });

  it('describe_toolchain tells the model the egress phase and the caches', async (t) => {
    if (skip) return t.skip(skip);
    const d = (await toolchain('fetch', 'read-only').describe()) as unknown as Record<string, unknown>;
    assert.equal(d.egress, 'fetch');
    assert.deepEqual(
      (d.caches as Array<{ name: string; access: string }>).map((c) => [c.name, c.access]),
      [
        ['dl', 'read-only'],
        ['bd', 'read-only'],
        ['ro', 'read-only'],
      ],
    );
  });

  it('offers no fetch tool without egressProxy', (t) => {
    if (skip) return t.skip(skip);
    const tc = new Toolchain({
      config: makeConfig(ws, { tools: { mode: 'structured', presets: ['node', 'go', 'cargo', 'python'] } }),
      env: { PATH: process.env.PATH },
      log: () => {},
      probeVersions: false,
    });
    const names = tc.listedTools.map((tool) => tool.name);
    for (const name of ['npm_ci_fetch', 'go_mod_download', 'cargo_fetch', 'pip_download', 'uv_sync_fetch'])
      assert.ok(!names.includes(name), `${name} offered without egressProxy`);
    assert.ok(!tc.presetStatus.some((p) => p.missing.includes('pip')));
  });
});
