/**
 * Shared caches and egress only while fetching, end to end with rustup's cargo, Debian's go, npm and pip and PyPI's uv: the real
 * toolchain server (source entry, `limits.confinement: required`) runs in the agent pod's network namespace,
 * whose one reachable address is the real broker (its rendered pod, config and caller tokens); fake registries
 * serve the real names over TLS behind it (registry-world.ts, shared with package-managers.test.ts). The
 * server's config is the rendered one plus what issue 21's renderer emits: `caches` (one directory each, shared
 * by every "pod" of the test as a claim would be), `egressProxy.phase: fetch` and `offlineEnv`.
 *
 * - pod A's fetch tools (cargo_fetch, go_mod_download, npm_ci_fetch, pip_download, uv_sync_fetch) fill the caches
 *   through the broker and run no project code (cargo's build.rs and a rustc wrapper from .cargo/config.toml,
 *   npm's preinstall, the interpreter a uv project's .python-version names: each leaves a marker when it runs, and
 *   pod B's build is the control that it does);
 * - pod B (a fresh server and workspace, the same caches) builds and tests each project offline, and the broker
 *   sees no connection from it;
 * - a non-fetch call has no proxy variable or token in its environment and cannot connect to the broker (the
 *   control, a `phase: always` pod, connects);
 * - project code cannot plant a file in a download cache, neither from a read-write consumer's non-fetch call
 *   nor from a read-only consumer (the control, a `phase: always` read-write pod, can); a read-only consumer
 *   still builds from the caches;
 * - a tampered npm cache entry is refused by npm's integrity check (control: the untampered entry installs).
 * The world (registries, broker, pods) is caches-fixture.ts, shared with bench/caches.ts.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROXY_ENV_NAMES } from '../../toolchain-server/src/policy/proxy-env.ts';
import { canEmulatePods } from '../backends/pod-emulation.ts';
import { PROJECT_CODE_MARKERS, SDIST_PACKAGE } from './cache-projects.ts';
import {
  BROKER_PORT,
  buildAndTest,
  type CacheSet,
  CachesFixture,
  DOWNLOAD_TOOLS,
  FETCH,
  type Pod,
  TOOLS,
} from './caches-fixture.ts';
import { NPM_PACKAGE, npmRegistry } from './fake-registries.ts';
import { BROKER_AGENT_SIDE } from './topology.ts';

describe('caches and the fetch phase: rustup cargo, Debian go, npm and pip, PyPI uv through the real server and broker', {
  timeout: 20 * 60_000,
}, () => {
  // Root (namespaces) is the one prerequisite a machine may genuinely lack; CI runs as root.
  const skip = canEmulatePods();
  let fixture: CachesFixture;
  let cache: CacheSet;
  let podA: Pod;
  let podB: Pod;
  let podAlways: Pod;
  let podReadOnly: Pod;

  before(async () => {
    if (skip) return;
    const missing = CachesFixture.missing();
    if (missing) throw new Error(missing);
    fixture = await CachesFixture.start();
    cache = fixture.cacheSet('shared');
  });

  after(async () => {
    await fixture?.stop();
  });

  for (const tool of TOOLS)
    it(`${tool}: a fetch call (${FETCH[tool].tool}) fills the cache through the broker`, async (t) => {
      if (skip) return t.skip(skip);
      podA ??= await fixture.startPod('a', { phase: 'fetch', caches: cache });
      const before = fixture.tunnels().length;
      const r = await fixture.call(podA, FETCH[tool].tool, { cwd: tool });
      assert.equal(r.exitCode, 0, `${FETCH[tool].tool}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`);
      assert.ok(FETCH[tool].filled(cache), `${tool}: the cache holds nothing after the fetch`);
      for (const marker of PROJECT_CODE_MARKERS[tool])
        assert.ok(
          !existsSync(join(podA.workspace, tool, marker)),
          `${FETCH[tool].tool} ran project code (${marker})`,
        );
      for (const host of FETCH[tool].hosts)
        assert.ok(
          fixture
            .tunnels()
            .slice(before)
            .some((line) => line['decision'] === 'allowed' && line['target'] === `${host}:443`),
          `${tool}: no allowed tunnel to ${host} in the broker's audit`,
        );
      // The repository commits its lockfile: later pods check out the one the fetch resolved.
      if (tool === 'cargo')
        cpSync(join(podA.workspace, 'cargo', 'Cargo.lock'), join(fixture.projectsDir, 'cargo', 'Cargo.lock'));
      if (tool === 'uv')
        cpSync(join(podA.workspace, 'uv', 'uv.lock'), join(fixture.projectsDir, 'uv', 'uv.lock'));
    });

  it('pip: pip_download refuses an sdist (its setup.py never runs); the control (plain pip download) runs setup.py', async (t) => {
    if (skip) return t.skip(skip);
    podA ??= await fixture.startPod('a', { phase: 'fetch', caches: cache });
    podAlways ??= await fixture.startPod('always', { phase: 'always', caches: cache });
    const marker = join(cache.pip, SDIST_PACKAGE.marker);
    const r = await fixture.call(podA, 'pip_download', { cwd: 'pip-sdist' });
    assert.notEqual(r.exitCode, 0, r.stdout);
    assert.match(r.stderr, /No matching distribution found/);
    assert.ok(!existsSync(marker), "pip_download ran the sdist's setup.py");
    // Control: pip download without --only-binary prepares the sdist, which runs its setup.py.
    const control = await fixture.exec(podAlways, 'pip-sdist', [
      'pip',
      'download',
      '--no-build-isolation',
      '--no-deps',
      '--dest',
      'dl',
      '--requirement',
      'requirements.txt',
    ]);
    assert.ok(existsSync(marker), `control: setup.py did not run\n${control.stdout}\n${control.stderr}`);
    rmSync(marker);
  });

  for (const tool of TOOLS)
    it(`${tool}: a second pod (fresh server and workspace, same cache) builds and tests offline; the broker sees nothing`, async (t) => {
      if (skip) return t.skip(skip);
      podB ??= await fixture.startPod('b', { phase: 'fetch', caches: cache });
      const tunnels = fixture.tunnels().length;
      const requests = fixture.registryRequests();
      await buildAndTest(fixture, podB, tool);
      // Control for the fetch test: the build does run the project code the fetch did not.
      for (const marker of PROJECT_CODE_MARKERS[tool])
        assert.ok(existsSync(join(podB.workspace, tool, marker)), `the build did not run ${marker}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fixture.tunnels().length, tunnels, `${tool}: the offline build opened a tunnel`);
      assert.equal(fixture.registryRequests(), requests, `${tool}: a registry saw a request`);
    });

  it('a non-fetch call has no proxy variable or token and cannot connect to the broker; the control (phase always) can', async (t) => {
    if (skip) return t.skip(skip);
    podB ??= await fixture.startPod('b', { phase: 'fetch', caches: cache });
    podAlways ??= await fixture.startPod('always', { phase: 'always', caches: cache });
    const { token } = fixture;
    const env = await fixture.exec(podB, '.', ['printenv']);
    assert.equal(env.exitCode, 0, env.stderr);
    assert.ok(
      !env.stdout.includes(token) && !env.stdout.includes(encodeURIComponent(token)),
      'token in a build call',
    );
    for (const name of PROXY_ENV_NAMES) assert.doesNotMatch(env.stdout, new RegExp(`^${name}=`, 'm'));
    assert.match(env.stdout, /^CARGO_NET_OFFLINE=true$/m);
    const connect = await fixture.exec(podB, '.', [
      'bash',
      'connect.sh',
      BROKER_AGENT_SIDE,
      String(BROKER_PORT),
    ]);
    assert.notEqual(connect.exitCode, 0);
    assert.match(connect.stderr, /Permission denied/);
    const controlEnv = await fixture.exec(podAlways, '.', ['printenv', 'HTTPS_PROXY']);
    assert.ok(controlEnv.stdout.includes(encodeURIComponent(token)), 'control: phase always has no token');
    const control = await fixture.exec(podAlways, '.', [
      'bash',
      'connect.sh',
      BROKER_AGENT_SIDE,
      String(BROKER_PORT),
    ]);
    assert.equal(control.stdout, 'connected\n', control.stderr);
  });

  it('with limits.connect: pod (the rendered default) a non-fetch call may open a socket to the broker but gets no tunnel: 407, no token; the control (phase always) gets its tunnel', async (t) => {
    if (skip) return t.skip(skip);
    const podOpen = await fixture.startPod('pod-connect', { phase: 'fetch', caches: cache, connect: 'pod' });
    podAlways ??= await fixture.startPod('always', { phase: 'always', caches: cache });
    const host = `${FETCH.npm.hosts[0]}:443`;
    const refused = await fixture.exec(podOpen, '.', [
      'bash',
      'tunnel.sh',
      BROKER_AGENT_SIDE,
      String(BROKER_PORT),
      host,
    ]);
    assert.equal(refused.exitCode, 0, refused.stderr);
    assert.match(refused.stdout, /^HTTP\/1\.1 407 /);
    const control = await fixture.exec(podAlways, '.', [
      'bash',
      'tunnel.sh',
      BROKER_AGENT_SIDE,
      String(BROKER_PORT),
      host,
    ]);
    assert.match(control.stdout, /^HTTP\/1\.1 200 /, control.stderr);
  });

  for (const tool of DOWNLOAD_TOOLS)
    it(`${tool}: project code cannot plant a file in the download cache (read-write consumer's build call, read-only consumer); the control (phase always, read-write) can; the read-only consumer still builds`, async (t) => {
      if (skip) return t.skip(skip);
      podB ??= await fixture.startPod('b', { phase: 'fetch', caches: cache });
      podAlways ??= await fixture.startPod('always', { phase: 'always', caches: cache });
      podReadOnly ??= await fixture.startPod('ro', { phase: 'fetch', access: 'read-only', caches: cache });
      const target = cache[tool];
      for (const pod of [podB, podReadOnly]) {
        const r = await fixture.exec(pod, '.', ['sh', 'plant.sh', target, pod.name]);
        assert.notEqual(r.exitCode, 0, `${pod.name} planted into ${tool}'s cache`);
        assert.match(r.stderr, /Permission denied/);
        assert.ok(!existsSync(join(target, `planted-${pod.name}`)));
      }
      const control = await fixture.exec(podAlways, '.', ['sh', 'plant.sh', target, 'control']);
      assert.equal(control.stdout, 'wrote\n', control.stderr);
      rmSync(join(target, 'planted-control'));
      await buildAndTest(fixture, podReadOnly, tool);
    });

  it("npm: a tampered cache entry is refused by npm's integrity check; the control (restored entry) installs", async (t) => {
    if (skip) return t.skip(skip);
    podB ??= await fixture.startPod('b', { phase: 'fetch', caches: cache });
    const hex = Buffer.from(fixture.npmIntegrity.slice('sha512-'.length), 'base64').toString('hex');
    const entry = join(
      cache.npm,
      '_cacache',
      'content-v2',
      'sha512',
      hex.slice(0, 2),
      hex.slice(2, 4),
      hex.slice(4),
    );
    const original = readFileSync(entry);
    try {
      // Someone with write access (another consumer, the node) swaps the tarball for one with other code.
      const evil = npmRegistry(join(fixture.dir, 'evil'), 'https://registry.npmjs.org', 'planted-marker');
      writeFileSync(
        entry,
        evil.get(`/${NPM_PACKAGE.name}/-/${NPM_PACKAGE.name}-${NPM_PACKAGE.version}.tgz`)!.body,
      );
      rmSync(join(podB.workspace, 'npm', 'node_modules'), { recursive: true, force: true });
      const r = await fixture.exec(podB, 'npm', ['npm', 'ci', '--no-audit', '--no-fund']);
      assert.notEqual(r.exitCode, 0, r.stdout);
      // npm checks the entry's sha512 on read, calls it corrupted and would refetch: this build call may neither
      // delete the entry (the download cache is read-only to it) nor reach the registry.
      assert.match(r.stderr, /seems to be corrupted|EINTEGRITY/);
      assert.ok(!existsSync(join(podB.workspace, 'npm', 'node_modules', NPM_PACKAGE.name, 'index.js')));
    } finally {
      writeFileSync(entry, original);
    }
    await buildAndTest(fixture, podB, 'npm');
  });
});
