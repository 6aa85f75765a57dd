/**
 * The cache invariants can fail (each tampered rendering is caught, the untampered one passes), and the
 * generated specs the invariant suite runs them over cover caches: every volume kind, both accesses, shared
 * claims, `phase: fetch` and toolchain pods.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkSpecSources } from '../../cli/src/read-specs.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { minimalAgent, rustToolchain } from '../constructs/fixtures.ts';
import { generateSpec } from '../support/spec-generator.ts';
import { CACHE_INVARIANTS } from './cache-invariants.ts';

// biome-ignore lint/suspicious/noExplicitAny: tampering reaches deep into untyped rendered JSON
type Loose = any;

const agent: ToolyardAgent = minimalAgent({
  workspace: {
    caches: [
      {
        name: 'cargo',
        ecosystem: 'cargo',
        volume: { persistentVolumeClaim: { claimName: 'team-cargo', readWriteMany: true } },
      },
      { name: 'target', ecosystem: 'cargo-target' },
    ],
  },
  toolchains: [
    {
      ...rustToolchain,
      caches: [{ name: 'cargo', access: 'read-only' }, { name: 'target' }],
    },
  ],
});
const rendered = renderAgent(agent).objects;

function tampered(edit: (objects: Loose[]) => void): KubeObject[] {
  const objects = structuredClone(rendered) as Loose[];
  edit(objects);
  return objects;
}
const pod = (objects: Loose[]) =>
  objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tiny').spec.template.spec;
const container = (objects: Loose[], name: string) =>
  pod(objects).containers.find((c: Loose) => c.name === name);
function expectViolation(
  check: keyof typeof CACHE_INVARIANTS,
  objects: readonly KubeObject[],
  pattern: RegExp,
  spec = agent,
) {
  const violations = CACHE_INVARIANTS[check]!(objects, spec);
  assert.ok(
    violations.some((v) => pattern.test(v)),
    `${check} should report ${pattern}, got:\n${violations.join('\n')}`,
  );
}

describe('cache invariants fail on tampered renderings', () => {
  it('the untampered rendering passes them all', () => {
    for (const [name, check] of Object.entries(CACHE_INVARIANTS))
      assert.deepEqual(check(rendered, agent), [], name);
  });

  it('cachesOnlyInTheirToolchains: a cache mounted in a backend', () => {
    const objects = tampered((o) => {
      container(o, 'claude').volumeMounts.push({
        name: 'cache-target',
        mountPath: '/var/cache/toolyard/target',
      });
    });
    expectViolation(
      'cachesOnlyInTheirToolchains',
      objects,
      /container claude mounts cache volume cache-target/,
    );
  });

  it('noBuildCacheSharedReadWrite: a build cache on a shared claim, written', () => {
    const spec = structuredClone(agent) as Loose;
    spec.spec.workspace.caches[1].volume = {
      persistentVolumeClaim: { claimName: 'team-target', readWriteMany: true },
    };
    expectViolation(
      'noBuildCacheSharedReadWrite',
      rendered,
      /shared build cache cache-target read-write/,
      spec,
    );
  });

  it('cacheVariablesInsideMounts: a variable that points outside every mount, and one into the bare cache root', () => {
    const objects = tampered((o) => {
      const env = container(o, 'toolchain-rust').env;
      env.find((e: Loose) => e.name === 'CARGO_TARGET_DIR').value = '/opt/target';
      env.find((e: Loose) => e.name === 'CARGO_HOME').value = '/var/cache/toolyard/elsewhere';
      container(o, 'toolchain-rust').volumeMounts.push({ name: 'x', mountPath: '/var/cache' });
    });
    expectViolation(
      'cacheVariablesInsideMounts',
      objects,
      /env CARGO_TARGET_DIR=\/opt\/target points outside/,
    );
    expectViolation('cacheVariablesInsideMounts', objects, /CARGO_HOME=.*into the cache root/);
  });

  it('readOnlyConsumersMountReadOnly: a read-only consumer with a writable mount', () => {
    const objects = tampered((o) => {
      const mount = container(o, 'toolchain-rust').volumeMounts.find((m: Loose) => m.name === 'cache-cargo');
      delete mount.readOnly;
    });
    expectViolation('readOnlyConsumersMountReadOnly', objects, /cache cargo is mounted readOnly=undefined/);
  });
});

describe('generated specs cover caches', () => {
  it('volume kinds, accesses, shared claims, phase: fetch and toolchain pods', () => {
    const specs = Array.from({ length: 250 }, (_, i) => generateSpec(20250101 + i));
    const caches = specs.flatMap((s) => s.spec.workspace?.caches ?? []);
    const kinds = new Set(
      caches.map((c) => {
        const v = c.volume as Loose;
        if (!v) return 'default';
        if (v.emptyDir) return 'emptyDir';
        if (v.persistentVolumeClaim.claimName)
          return v.persistentVolumeClaim.readWriteMany ? 'shared' : 'existing';
        return 'new';
      }),
    );
    assert.deepEqual([...kinds].sort(), ['default', 'emptyDir', 'existing', 'new', 'shared']);
    const uses = specs.flatMap((s) => (s.spec.toolchains ?? []).flatMap((t) => t.caches ?? []));
    assert.deepEqual([...new Set(uses.map((u) => u.access ?? 'default'))].sort(), [
      'default',
      'read-only',
      'read-write',
    ]);
    const toolchains = specs.flatMap((s) => s.spec.toolchains ?? []);
    assert.ok(
      toolchains.some((t) => typeof t.network?.egress === 'object' && t.network.egress.phase === 'fetch'),
    );
    assert.ok(toolchains.some((t) => t.placement === 'pod' && (t.caches ?? []).length > 0));
    assert.ok(new Set(caches.map((c) => c.ecosystem)).size >= 8, 'most ecosystems');
  });

  it('a fleet of generated specs passes the fleet-wide sharing rules, and shares claims', () => {
    const sources = Array.from({ length: 250 }, (_, i) => {
      const spec = generateSpec(20250101 + i);
      spec.metadata.name = `gen-${i}`;
      return { file: `gen-${i}.yaml`, text: stringify(spec) };
    });
    const { specs, errors } = checkSpecSources(sources);
    assert.deepEqual(errors, []);
    const claims = specs.flatMap((s) =>
      (s.agent.spec.workspace?.caches ?? []).flatMap((c) => {
        const claim = (c.volume as Loose)?.persistentVolumeClaim?.claimName;
        return claim ? [`${s.agent.metadata.namespace ?? 'default'}/${claim}|${s.agent.metadata.name}`] : [];
      }),
    );
    const agentsPerClaim = new Map<string, Set<string>>();
    for (const entry of claims) {
      const [claim, agent] = entry.split('|') as [string, string];
      agentsPerClaim.set(claim, (agentsPerClaim.get(claim) ?? new Set()).add(agent));
    }
    assert.ok(
      [...agentsPerClaim.values()].some((agents) => agents.size > 1),
      'some claim shared by agents',
    );
  });
});
