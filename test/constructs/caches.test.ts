/**
 * Declared caches as rendered: the claim of a new cache, the pod volumes, the mounts at the pinned paths (only
 * in the consuming toolchain containers, read-only for read-only consumers), the tools' variables in the
 * container and in the server config's `env.set`, and the server config's `caches`, `egressProxy.phase` and
 * `offlineEnv`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentSpec, Toolchain } from '../../schema/src/types.generated.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { find, type Json, labelsFor, minimalAgent, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

const rustCaches: AgentSpec['workspace'] = {
  caches: [
    {
      name: 'cargo',
      ecosystem: 'cargo',
      volume: { persistentVolumeClaim: { storage: '20Gi', storageClassName: 'fast' } },
    },
    { name: 'target', ecosystem: 'cargo-target' },
  ],
};
const rustFetching: Toolchain = {
  ...rustToolchain,
  caches: [{ name: 'cargo' }, { name: 'target' }],
  network: { egress: { ecosystems: ['crates'], phase: 'fetch' } },
};
const container = (pod: Json, name: string) => pod.containers.find((c: Json) => c.name === name);
const envOf = (c: Json) => Object.fromEntries(c.env.map((e: Json) => [e.name, e.value]));
const serverConfig = (objects: readonly Json[], toolchain: string) =>
  JSON.parse((find(objects, 'ConfigMap', `tiny-toolchain-${toolchain}`) as Json).data['config.json']);

describe('caches', () => {
  const objects = objectsOf(minimalAgent({ workspace: rustCaches, toolchains: [rustFetching] }));
  const pod = podSpecOf(objects, 'tiny');

  it('a new claim is the PersistentVolumeClaim <agent>-cache-<name>, this agent’s own', () => {
    assert.deepEqual(find(objects, 'PersistentVolumeClaim', 'tiny-cache-cargo'), {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'tiny-cache-cargo', namespace: 'agents', labels: labelsFor('tiny', 'agent') },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '20Gi' } },
        storageClassName: 'fast',
      },
    });
    assert.equal(objects.filter((o) => o.kind === 'PersistentVolumeClaim').length, 1, 'emptyDir: no claim');
  });

  it('the agent pod has one volume per cache its sidecars use; a claim that one node mounts means Recreate', () => {
    const caches = pod.volumes.filter((v: Json) => v.name.startsWith('cache-'));
    assert.deepEqual(caches, [
      { name: 'cache-cargo', persistentVolumeClaim: { claimName: 'tiny-cache-cargo' } },
      { name: 'cache-target', emptyDir: { sizeLimit: '5Gi' } },
    ]);
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tiny') as Json;
    assert.equal(deployment.spec.strategy.type, 'Recreate');
  });

  it('mounts each cache at /var/cache/toolyard/<name> in the toolchain and sets its variables there', () => {
    const rust = container(pod, 'toolchain-rust');
    assert.deepEqual(
      rust.volumeMounts.filter((m: Json) => m.name.startsWith('cache-')),
      [
        { name: 'cache-cargo', mountPath: '/var/cache/toolyard/cargo' },
        { name: 'cache-target', mountPath: '/var/cache/toolyard/target' },
      ],
    );
    const env = envOf(rust);
    assert.equal(env.CARGO_HOME, '/var/cache/toolyard/cargo');
    assert.equal(env.CARGO_TARGET_DIR, '/var/cache/toolyard/target');
    assert.equal(env.GOCACHE, '/home/toolyard/.cache/go-build', 'ecosystems without a cache keep HOME');
  });

  it('never mounts a cache in a backend', () => {
    const claude = container(pod, 'claude');
    assert.ok(!claude.volumeMounts.some((m: Json) => m.name.startsWith('cache-')));
    assert.ok(!claude.env.some((e: Json) => e.name === 'CARGO_HOME' || e.name === 'CARGO_TARGET_DIR'));
  });

  it('gives the server the caches, the phase and the offline settings, in the shape it parses', () => {
    const config = serverConfig(objects, 'rust');
    assert.deepEqual(config.caches, [
      {
        name: 'cargo',
        ecosystem: 'cargo',
        path: '/var/cache/toolyard/cargo',
        access: 'read-write',
        kind: 'download',
      },
      {
        name: 'target',
        ecosystem: 'cargo-target',
        path: '/var/cache/toolyard/target',
        access: 'read-write',
        kind: 'build',
      },
    ]);
    assert.equal(config.egressProxy.phase, 'fetch');
    assert.deepEqual(config.offlineEnv, { CARGO_NET_OFFLINE: 'true' });
    assert.equal(config.env.set.CARGO_HOME, '/var/cache/toolyard/cargo');
    assert.equal(config.env.set.CARGO_TARGET_DIR, '/var/cache/toolyard/target');
    const parsed = parseToolchainServerConfig(config);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.config.caches, config.caches);
  });

  it('without caches or phase the server config carries neither (the server defaults them)', () => {
    const plain = objectsOf(minimalAgent({ toolchains: [rustToolchain] }));
    const config = serverConfig(plain, 'rust');
    assert.equal(config.caches, undefined);
    assert.equal(config.offlineEnv, undefined);
    const parsed = parseToolchainServerConfig(config);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.config.caches, []);
    assert.deepEqual(parsed.config.offlineEnv, {});
  });

  it('a read-only consumer gets a readOnly mount and the read-only variables', () => {
    const shared = minimalAgent({
      workspace: {
        caches: [
          {
            name: 'gradle',
            ecosystem: 'gradle',
            volume: { persistentVolumeClaim: { claimName: 'team-gradle', readWriteMany: true } },
          },
        ],
      },
      toolchains: [{ ...rustToolchain, name: 'jvm', caches: [{ name: 'gradle', access: 'read-only' }] }],
    });
    const objects = objectsOf(shared);
    const jvm = container(podSpecOf(objects, 'tiny'), 'toolchain-jvm');
    assert.deepEqual(
      jvm.volumeMounts.find((m: Json) => m.name === 'cache-gradle'),
      { name: 'cache-gradle', mountPath: '/var/cache/toolyard/gradle', readOnly: true },
    );
    const env = envOf(jvm);
    assert.equal(env.GRADLE_RO_DEP_CACHE, '/var/cache/toolyard/gradle/caches');
    assert.equal(env.GRADLE_USER_HOME, undefined, 'its own GRADLE_USER_HOME (init scripts) stays in HOME');
    assert.equal(serverConfig(objects, 'jvm').caches[0].access, 'read-only');
    assert.equal(objects.filter((o) => o.kind === 'PersistentVolumeClaim').length, 0, 'an existing claim');
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tiny') as Json;
    assert.equal(deployment.spec.strategy.type, 'RollingUpdate', 'a ReadWriteMany claim rolls');
  });

  it('a toolchain pod mounts its caches; the agent pod only those its sidecars use', () => {
    const objects = objectsOf(
      minimalAgent({
        workspace: {
          volume: { persistentVolumeClaim: { storage: '20Gi', accessModes: ['ReadWriteMany'] } },
          caches: [
            {
              name: 'go',
              ecosystem: 'go',
              volume: { persistentVolumeClaim: { storage: '20Gi', accessModes: ['ReadWriteMany'] } },
            },
            { name: 'npm', ecosystem: 'npm' },
          ],
        },
        toolchains: [
          {
            name: 'go',
            placement: 'pod',
            image: { repository: 'docker.io/library/golang', tag: '1.23' },
            port: 8703,
            tools: { presets: ['go'] },
            auth: { bearerTokenSecret: { name: 'tiny-go-token', key: 'token' } },
            caches: [{ name: 'go' }],
          },
          {
            name: 'node',
            image: { repository: 'docker.io/library/node', tag: '22' },
            port: 8704,
            tools: { presets: ['node'] },
            caches: [{ name: 'npm' }],
          },
        ],
      }),
    );
    const cacheVolumes = (pod: Json) =>
      pod.volumes.filter((v: Json) => v.name.startsWith('cache-')).map((v: Json) => v.name);
    assert.deepEqual(cacheVolumes(podSpecOf(objects, 'tiny-toolchain-go')), ['cache-go']);
    assert.deepEqual(cacheVolumes(podSpecOf(objects, 'tiny')), ['cache-npm']);
    const go = container(podSpecOf(objects, 'tiny-toolchain-go'), 'toolchain-go');
    assert.equal(envOf(go).GOMODCACHE, '/var/cache/toolyard/go');
  });
});
