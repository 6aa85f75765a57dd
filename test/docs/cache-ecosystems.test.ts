/**
 * The cache table in docs/caches.md is generated from constructs/src/cache-ecosystems.ts; the schema's
 * description of `ecosystem` names the same ecosystems; every variable the table sets lies inside the cache.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  CACHE_ECOSYSTEM_NAMES,
  cacheEcosystem,
  cacheEcosystemsMarkdownTable,
} from '../../constructs/src/cache-ecosystems.ts';
import { markedRegion, normalizeMarkdownTable } from '../support/generated-table.ts';
import { REPO_ROOT } from '../support/golden.ts';

describe('cache ecosystems', () => {
  it('docs/caches.md carries the table generated from the one cache table', () => {
    const region = markedRegion(join(REPO_ROOT, 'docs', 'caches.md'), 'caches');
    assert.ok(region !== undefined, 'docs/caches.md has the caches markers');
    assert.equal(normalizeMarkdownTable(region), normalizeMarkdownTable(cacheEcosystemsMarkdownTable()));
  });

  it("the schema's description of a cache's ecosystem names exactly the table's ecosystems", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'agent.schema.json'), 'utf8'));
    const description: string = schema.definitions.Cache.properties.ecosystem.description;
    const named = [...description.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
    assert.deepEqual(named, CACHE_ECOSYSTEM_NAMES);
  });

  it('every variable points inside the cache, for both accesses; only cargo-target and uv cannot be read-only', () => {
    const path = '/var/cache/toolyard/x';
    for (const name of CACHE_ECOSYSTEM_NAMES) {
      const e = cacheEcosystem(name);
      for (const access of ['read-write', 'read-only'] as const)
        for (const [variable, value] of Object.entries(e.variables(path, access))) {
          const target = variable === 'MAVEN_ARGS' ? /-Dmaven\.repo\.local=(\S+)/.exec(value)?.[1] : value;
          assert.ok(
            target === path || target?.startsWith(`${path}/`),
            `${name} ${access}: ${variable}=${value}`,
          );
        }
      assert.equal(e.needsWrite, name === 'cargo-target' || name === 'uv', name);
      // uv's cache is a build cache only because uv cannot read it read-only; its fetch tool fills it.
      if (e.kind === 'build' && name !== 'uv')
        assert.deepEqual(e.fetchTools, [], `${name}: a build cache has no fetch tool`);
    }
  });
});

describe('toolchain egress by name', () => {
  it("has NamedEgress's hosts and ecosystems, field for field, plus phase", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'agent.schema.json'), 'utf8'));
    const { hosts, ecosystems, phase, ...rest } = schema.definitions.ToolchainNamedEgress.properties;
    assert.deepEqual({ hosts, ecosystems }, schema.definitions.NamedEgress.properties);
    assert.deepEqual(rest, {});
    assert.deepEqual(phase.enum, ['always', 'fetch']);
  });
});
