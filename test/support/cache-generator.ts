/**
 * Caches for generated specs: declared caches of the toolchains' presets' ecosystems on every kind of volume,
 * read-write and read-only consumers, shared claims and `phase: fetch` — valid by construction under the
 * sharing rules (docs/caches.md). Drawn from a random stream of its own, so the rest of a generated spec stays
 * what its seed made before caches existed.
 */
import { type CacheEcosystemName, cacheEcosystem } from '../../constructs/src/cache-ecosystems.ts';
import type {
  Cache,
  CacheUse,
  CacheVolume,
  Toolchain,
  ToolyardAgent,
} from '../../schema/src/types.generated.ts';
import { Random } from './spec-generator.ts';

const PRESET_CACHES: Readonly<Record<string, readonly CacheEcosystemName[]>> = {
  cargo: ['cargo', 'cargo-target'],
  go: ['go', 'go-build'],
  node: ['npm'],
  python: ['pip', 'uv'],
  terraform: ['terraform'],
  helm: [],
};
/** Ecosystems without a preset, used by exec-mode toolchains. */
const OTHER_CACHES: readonly CacheEcosystemName[] = ['maven', 'gradle'];
const FETCH_PRESETS = new Set(['cargo', 'go', 'node', 'python']);

export function withCaches(agent: ToolyardAgent, seed: number): ToolyardAgent {
  const random = new Random(seed ^ 0x0cace5);
  const toolchains = agent.spec.toolchains ?? [];
  if (toolchains.length === 0 || !random.bool(0.45)) return agent;
  const brokerOn = agent.spec.broker?.enabled ?? true;
  const caches: Cache[] = [];
  const nextToolchains = toolchains.map((toolchain): Toolchain => {
    const presets = toolchain.tools?.presets ?? [];
    const candidates = [...new Set([...presets.flatMap((p) => PRESET_CACHES[p] ?? []), ...OTHER_CACHES])];
    const chosen = random.subset(candidates).slice(0, 3);
    if (chosen.length === 0) return toolchain;
    const egress = toolchain.network?.egress;
    const canFetch = brokerOn && typeof egress === 'object' && presets.some((p) => FETCH_PRESETS.has(p));
    const fetching = canFetch && random.bool(0.6);
    const inPod = toolchain.placement === 'pod';
    const uses: CacheUse[] = chosen.map((ecosystem) => {
      const info = cacheEcosystem(ecosystem);
      // Another toolchain's cache of this ecosystem, reused (one agent may share its caches freely).
      const reuse = caches.find(
        (c) =>
          c.ecosystem === ecosystem && random.bool(0.5) && claimFits(c, inPod) && sharedFits(c, info.kind),
      );
      const cache = reuse ?? declare(random, caches, ecosystem, inPod, seed);
      const shared = isShared(cache);
      const mayWrite = !shared || info.verifiesOnRead || fetching;
      const readOnly = !info.needsWrite && (!mayWrite || random.bool(0.25));
      return {
        name: cache.name,
        ...(readOnly
          ? { access: 'read-only' as const }
          : random.bool(0.3)
            ? { access: 'read-write' as const }
            : {}),
      };
    });
    return {
      ...toolchain,
      caches: uses,
      ...(fetching && typeof egress === 'object'
        ? { network: { ...toolchain.network, egress: { ...egress, phase: 'fetch' as const } } }
        : {}),
    };
  });
  return {
    ...agent,
    spec: {
      ...agent.spec,
      workspace: { ...agent.spec.workspace, caches },
      toolchains: nextToolchains,
    },
  };
}

function isShared(cache: Cache): boolean {
  const volume = cache.volume;
  return (
    volume !== undefined &&
    'persistentVolumeClaim' in volume &&
    'claimName' in volume.persistentVolumeClaim &&
    volume.persistentVolumeClaim.readWriteMany === true
  );
}

function isRwxClaim(cache: Cache): boolean {
  const volume = cache.volume;
  if (!volume || !('persistentVolumeClaim' in volume)) return true; // an emptyDir: each pod its own
  const claim = volume.persistentVolumeClaim;
  if ('claimName' in claim) return claim.readWriteMany === true;
  const modes: readonly string[] = claim.accessModes ?? [];
  return modes.includes('ReadWriteMany');
}

function claimFits(cache: Cache, inPod: boolean): boolean {
  return !inPod || isRwxClaim(cache);
}

function sharedFits(cache: Cache, kind: 'download' | 'build'): boolean {
  return kind === 'download' || !isShared(cache);
}

function declare(
  random: Random,
  caches: Cache[],
  ecosystem: CacheEcosystemName,
  inPod: boolean,
  seed: number,
): Cache {
  const name = caches.some((c) => c.name === ecosystem) ? `${ecosystem}-${caches.length}` : ecosystem;
  const build = cacheEcosystem(ecosystem).kind === 'build';
  const rwx = inPod || random.bool(0.3);
  const volume = random.pick<() => CacheVolume | undefined>([
    () => undefined,
    () => ({ emptyDir: random.bool() ? { sizeLimit: '2Gi' } : {} }),
    () => ({
      persistentVolumeClaim: {
        storage: `${random.int(1, 50)}Gi`,
        ...(random.bool() ? { storageClassName: rwx ? 'nfs-csi' : 'fast' } : {}),
        ...(rwx
          ? { accessModes: ['ReadWriteMany'] as ['ReadWriteMany'] }
          : random.bool()
            ? { accessModes: ['ReadWriteOnce'] as ['ReadWriteOnce'] }
            : {}),
      },
    }),
    // An existing claim: the team's, shared with other agents, when ReadWriteMany (never for a build cache);
    // else one of this spec's own, so a fleet of generated specs never has two agents write one claim.
    () =>
      !build && rwx
        ? { persistentVolumeClaim: { claimName: `team-${name}`, readWriteMany: true } }
        : { persistentVolumeClaim: { claimName: `own-${seed}-${name}` } },
  ])();
  // A build cache on an existing claim in a toolchain pod would need readWriteMany (shared): keep it new.
  const fixed =
    build &&
    inPod &&
    volume &&
    'persistentVolumeClaim' in volume &&
    'claimName' in volume.persistentVolumeClaim
      ? { persistentVolumeClaim: { storage: '5Gi', accessModes: ['ReadWriteMany'] as ['ReadWriteMany'] } }
      : volume;
  const cache: Cache = { name, ecosystem, ...(fixed ? { volume: fixed } : {}) };
  caches.push(cache);
  return cache;
}
