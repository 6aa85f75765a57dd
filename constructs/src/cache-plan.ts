/**
 * The caches' part of the plan: each declared cache with its pinned path, volume and claim name, each
 * toolchain's uses of them, and what a toolchain's calls get from them (variables, offline settings, the
 * server config's `caches`). Read by the constructs, the checks, `explain`, `diff` and the fleet views.
 */
import type { Cache, CacheUse, Toolchain } from '../../schema/src/types.generated.ts';
import type { CacheAccess, ToolPreset } from '../../toolchain-server/src/config.ts';
import { CACHE_ECOSYSTEM_NAMES, cacheEcosystem, isCacheEcosystem } from './cache-ecosystems.ts';
import * as D from './defaults.ts';
import type { AgentNames } from './names.ts';
import { existingOrNewClaim } from './plan-claim.ts';
import type { PlannedCache, PlannedCacheUse, PlannedCacheVolume, PlannedToolchain } from './plan-types.ts';

/** The pinned mount path of a cache. */
export function cachePath(name: string): string {
  return `${D.PATHS.caches}/${name}`;
}

/** The pod volume of a cache. */
export function cacheVolumeName(name: string): string {
  return `cache-${name}`;
}

export function planCaches(caches: readonly Cache[] | undefined, names: AgentNames): PlannedCache[] {
  return (caches ?? []).map((cache, i) => {
    const volume = planCacheVolume(cache, names);
    return {
      name: cache.name,
      ecosystem: cache.ecosystem,
      ...(isCacheEcosystem(cache.ecosystem) ? { kind: cacheEcosystem(cache.ecosystem).kind } : {}),
      path: cachePath(cache.name),
      volumeName: cacheVolumeName(cache.name),
      volume,
      shared: volume.kind === 'existingClaim' && volume.readWriteMany,
      specPath: `/spec/workspace/caches/${i}`,
    };
  });
}

function planCacheVolume(cache: Cache, names: AgentNames): PlannedCacheVolume {
  const volume = cache.volume;
  if (volume && 'persistentVolumeClaim' in volume) {
    const claim = existingOrNewClaim(volume.persistentVolumeClaim);
    if (claim.kind === 'existingClaim') return claim;
    return { kind: 'newClaim', claimName: names.cacheClaim(cache.name), ...claim.settings };
  }
  return { kind: 'emptyDir', sizeLimit: volume?.emptyDir.sizeLimit ?? D.DEFAULT_CACHE_SIZE_LIMIT };
}

export function planCacheUses(
  uses: readonly CacheUse[] | undefined,
  caches: readonly PlannedCache[],
  toolchainIndex: number,
): PlannedCacheUse[] {
  return (uses ?? []).map((use, j) => {
    const cache = caches.find((c) => c.name === use.name);
    return {
      name: use.name,
      access: use.access ?? 'read-write',
      ...(cache ? { cache } : {}),
      specPath: `/spec/toolchains/${toolchainIndex}/caches/${j}`,
    };
  });
}

export function planEgressPhase(egress: NonNullable<Toolchain['network']>['egress']): 'always' | 'fetch' {
  return typeof egress === 'object' && egress.phase ? egress.phase : D.DEFAULT_EGRESS_PHASE;
}

/** A use whose cache is declared with a known ecosystem. */
export interface ResolvedCacheUse {
  readonly use: PlannedCacheUse;
  readonly cache: PlannedCache;
  readonly ecosystem: ReturnType<typeof cacheEcosystem>;
}

export function resolvedCacheUses(toolchain: PlannedToolchain): ResolvedCacheUse[] {
  return toolchain.caches.flatMap((use) =>
    use.cache && isCacheEcosystem(use.cache.ecosystem)
      ? [{ use, cache: use.cache, ecosystem: cacheEcosystem(use.cache.ecosystem) }]
      : [],
  );
}

/** The variables a toolchain's caches set, in its container and in every call. */
export function cacheEnv(toolchain: PlannedToolchain): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { use, cache, ecosystem } of resolvedCacheUses(toolchain))
    Object.assign(env, ecosystem.variables(cache.path, use.access));
  return env;
}

/**
 * What a call that is not a fetch call gets under `phase: fetch`: the offline settings of the toolchain's
 * caches' ecosystems and of its presets' ecosystems (their defaults live in HOME without a cache).
 */
export function offlineEnv(toolchain: PlannedToolchain): Record<string, string> {
  if (toolchain.egressPhase !== 'fetch') return {};
  const env: Record<string, string> = {};
  const presets = new Set<ToolPreset>(toolchain.presets);
  for (const name of CACHE_ECOSYSTEM_NAMES) {
    const ecosystem = cacheEcosystem(name);
    if (ecosystem.preset && presets.has(ecosystem.preset))
      Object.assign(env, ecosystem.offline(D.PATHS.home));
  }
  for (const { cache, ecosystem } of resolvedCacheUses(toolchain))
    Object.assign(env, ecosystem.offline(cache.path));
  return env;
}

/** The server config's `caches`: each cache the toolchain uses, at its path, with its access. */
export function serverCaches(toolchain: PlannedToolchain): {
  name: string;
  ecosystem: string;
  path: string;
  access: CacheAccess;
  kind: 'download' | 'build';
}[] {
  return resolvedCacheUses(toolchain).map(({ use, cache, ecosystem }) => ({
    name: cache.name,
    ecosystem: cache.ecosystem,
    path: cache.path,
    access: use.access,
    kind: ecosystem.kind,
  }));
}
