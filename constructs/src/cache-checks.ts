/**
 * Semantic checks of caches and egress phases (docs/caches.md): names and ecosystems that exist, one cache per
 * ecosystem in a toolchain, access the tool can live with, the sharing rules that keep a cache shared between
 * agents from being poisoned, what `phase: fetch` needs, and claims every consuming pod can mount.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { CACHE_ECOSYSTEM_NAMES, cacheEcosystem, isCacheEcosystem } from './cache-ecosystems.ts';
import { cacheEnv, resolvedCacheUses } from './cache-plan.ts';
import { PATHS } from './defaults.ts';
import type { AgentPlan, PlannedCache, PlannedToolchain } from './plan.ts';
import { NO_REJECTED_ENTRIES, type RejectedEntries } from './rejected-entries.ts';

const MAX_NAME = 63;
const RWX = 'ReadWriteMany';

export function checkCaches(plan: AgentPlan, rejected: RejectedEntries = NO_REJECTED_ENTRIES): SpecProblem[] {
  return [
    ...checkDeclaredCaches(plan, rejected),
    ...plan.toolchains.flatMap((t, i) => checkCacheUses(plan, t, i, rejected)),
    ...checkSharing(plan),
    ...plan.toolchains.flatMap((t, i) => checkPhase(plan, t, i)),
    ...checkCachePaths(plan),
  ];
}

function checkDeclaredCaches(plan: AgentPlan, rejected: RejectedEntries): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const first = new Map<string, PlannedCache>();
  for (const cache of plan.caches) {
    const earlier = first.get(cache.name);
    if (earlier)
      problems.push({
        path: `${cache.specPath}/name`,
        message: `duplicate cache name "${cache.name}"`,
        hint: `already used at ${earlier.specPath}/name; each cache has its own mount path /var/cache/toolyard/<name>`,
      });
    else first.set(cache.name, cache);
    if (!isCacheEcosystem(cache.ecosystem)) {
      const guess = closestMatch(cache.ecosystem, CACHE_ECOSYSTEM_NAMES);
      problems.push({
        path: `${cache.specPath}/ecosystem`,
        message: `unknown cache ecosystem "${cache.ecosystem}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        hint: `cache ecosystems: ${CACHE_ECOSYSTEM_NAMES.join(', ')}`,
      });
    }
    if (cache.volumeName.length > MAX_NAME)
      problems.push({
        path: `${cache.specPath}/name`,
        message: `volume name "${cache.volumeName}" would be ${cache.volumeName.length} characters, more than Kubernetes allows (${MAX_NAME})`,
        hint: 'shorten the cache name',
      });
    // A toolchain the schema rejected may be the one that uses it.
    if (
      !rejected.any('toolchains') &&
      !plan.toolchains.some((t) => t.caches.some((use) => use.name === cache.name))
    )
      problems.push({
        path: `${cache.specPath}/name`,
        message: `cache "${cache.name}" is declared, but no toolchain uses it`,
        hint: `list it in a toolchain's caches ([{ name: ${cache.name} }]), or remove it`,
      });
    const volume = cache.volume;
    if (
      volume.kind === 'newClaim' &&
      volume.accessModes.includes('ReadWriteOncePod') &&
      volume.accessModes.length > 1
    )
      problems.push({
        path: `${cache.specPath}/volume/persistentVolumeClaim/accessModes`,
        message: 'ReadWriteOncePod cannot be combined with other access modes',
        hint: 'Kubernetes rejects such a claim; list ReadWriteOncePod alone, or leave it out',
      });
  }
  return problems;
}

function checkCacheUses(
  plan: AgentPlan,
  toolchain: PlannedToolchain,
  index: number,
  rejected: RejectedEntries,
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const declared = [...new Set(plan.caches.map((c) => c.name))];
  const seen = new Map<string, string>();
  const ecosystems = new Map<string, string>();
  for (const use of toolchain.caches) {
    if (!use.cache) {
      if (rejected.has('caches', use.name)) continue;
      const guess = closestMatch(use.name, declared);
      problems.push({
        path: `${use.specPath}/name`,
        message: `toolchain "${toolchain.name}" uses cache "${use.name}", which spec.workspace.caches does not declare${guess ? ` (did you mean "${guess}"?)` : ''}`,
        hint:
          declared.length > 0
            ? `declared caches: ${declared.join(', ')}`
            : `declare it: spec.workspace.caches: [{ name: ${use.name}, ecosystem: <${CACHE_ECOSYSTEM_NAMES.slice(0, 3).join(' | ')} | …> }]`,
      });
      continue;
    }
    const twice = seen.get(use.name);
    if (twice) {
      problems.push({
        path: `${use.specPath}/name`,
        message: `toolchain "${toolchain.name}" lists cache "${use.name}" twice`,
        hint: `already at ${twice}; list each cache once, with one access`,
      });
      continue;
    }
    seen.set(use.name, use.specPath);
    const ecosystem = use.cache.ecosystem;
    if (!isCacheEcosystem(ecosystem)) continue;
    const other = ecosystems.get(ecosystem);
    if (other)
      problems.push({
        path: `${use.specPath}/name`,
        message: `toolchain "${toolchain.name}" uses two ${ecosystem} caches ("${other}" and "${use.name}"); its tool has one set of variables`,
        hint: 'use one cache per ecosystem in a toolchain',
      });
    else ecosystems.set(ecosystem, use.name);
    if (use.access === 'read-only' && cacheEcosystem(ecosystem).needsWrite)
      problems.push({
        path: `${use.specPath}/access`,
        message: `toolchain "${toolchain.name}" uses the ${ecosystem} cache "${use.name}" read-only, but its tool cannot run with it read-only`,
        hint: `${cacheEcosystem(ecosystem).note} Use it read-write (a build cache is then this agent's own), or remove it from the toolchain`,
      });
    if (toolchain.pod && use.cache.volume.kind !== 'emptyDir' && !claimIsRwx(use.cache))
      problems.push({
        path: `${use.cache.specPath}/volume/persistentVolumeClaim`,
        message: `toolchain "${toolchain.name}" has placement: pod, so cache "${use.name}" must be a ReadWriteMany claim (its pod may run on another node than the agent pod)`,
        hint:
          use.cache.volume.kind === 'newClaim'
            ? 'set accessModes: [ReadWriteMany] and a storageClassName that provides it (NFS, CephFS, EFS, Filestore, Azure Files, Longhorn)'
            : 'if the claim is ReadWriteMany, declare it with readWriteMany: true; otherwise use a ReadWriteMany claim',
      });
  }
  const set = cacheEnv(toolchain);
  for (const name of Object.keys(toolchain.env))
    if (Object.hasOwn(set, name))
      problems.push({
        path: `/spec/toolchains/${index}/env/${name}`,
        message: `environment variable "${name}" is set by toolyard: it points the tool at a cache of this toolchain`,
        hint: 'remove it from env; the cache table (docs/caches.md) sets it to the pinned path',
      });
  return problems;
}

function claimIsRwx(cache: PlannedCache): boolean {
  const volume = cache.volume;
  if (volume.kind === 'existingClaim') return volume.readWriteMany;
  if (volume.kind === 'newClaim') return volume.accessModes.includes(RWX);
  return false;
}

/**
 * A cache on a shared claim (an existing ReadWriteMany claim other agents may mount): a build cache never has a
 * read-write consumer; a download cache has one only where its tool verifies what it reads, or where the consumer
 * fetches in a phase of its own (only fetch calls, which run no project code, may then write it).
 */
function checkSharing(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const toolchain of plan.toolchains)
    for (const { use, cache, ecosystem } of resolvedCacheUses(toolchain)) {
      if (!cache.shared || use.access !== 'read-write') continue;
      const claim = cache.volume.kind === 'existingClaim' ? cache.volume.claimName : cache.name;
      if (ecosystem.kind === 'build')
        problems.push({
          path: `${use.specPath}/access`,
          message: `toolchain "${toolchain.name}" would write the build cache "${cache.name}" on the shared claim "${claim}": build outputs are never shared read-write between agents`,
          hint: 'give this agent a build cache of its own (emptyDir or a new claim: persistentVolumeClaim: { storage: 10Gi }), or declare the claim without readWriteMany if no other agent mounts it',
        });
      else if (!ecosystem.verifiesOnRead && toolchain.egressPhase !== 'fetch')
        problems.push({
          path: `${use.specPath}/access`,
          message: `toolchain "${toolchain.name}" would write the ${cache.ecosystem} cache "${cache.name}" on the shared claim "${claim}", and ${cache.ecosystem} does not verify what it reads from it: project code could plant content other agents then use`,
          hint: `set network.egress.phase: fetch on this toolchain (only its fetch tools then write the cache), or use the cache read-only (access: read-only)`,
        });
    }
  return problems;
}

function checkPhase(plan: AgentPlan, toolchain: PlannedToolchain, index: number): SpecProblem[] {
  if (toolchain.egressPhase !== 'fetch') return [];
  const path = `/spec/toolchains/${index}/network/egress/phase`;
  if (!plan.broker.enabled)
    return [
      {
        path,
        message: `toolchain "${toolchain.name}" has phase: fetch, which needs the broker: only the broker's proxy can give egress to one call and not the next`,
        hint: 'set spec.broker.enabled: true, or remove phase',
      },
    ];
  const fetchTools = CACHE_ECOSYSTEM_NAMES.map(cacheEcosystem).filter(
    (e) => e.preset !== undefined && toolchain.presets.includes(e.preset) && e.fetchTools.length > 0,
  );
  if (fetchTools.length === 0)
    return [
      {
        path,
        message: `toolchain "${toolchain.name}" has phase: fetch, but none of its presets has a fetch tool, so no call could ever use its egress`,
        hint: 'fetch tools come with the presets cargo (cargo_fetch), go (go_mod_download), node (npm_ci_fetch) and python (pip_download); add one, or remove phase',
      },
    ];
  return [];
}

function checkCachePaths(plan: AgentPlan): SpecProblem[] {
  const mountPath = plan.workspace.mountPath;
  const root = PATHS.caches;
  if (plan.caches.length === 0) return [];
  if (mountPath === root || mountPath.startsWith(`${root}/`) || root.startsWith(`${mountPath}/`))
    return [
      {
        path: '/spec/workspace/mountPath',
        message: `"${mountPath}" overlaps "${root}", where toolyard mounts the caches`,
        hint: 'mount the workspace elsewhere, e.g. /workspace',
      },
    ];
  return [];
}
