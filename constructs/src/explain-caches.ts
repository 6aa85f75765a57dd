/**
 * `explain`'s caches section: per toolchain container, each cache it mounts (path, access, shared or its
 * agent's own, kind, whether the tool verifies what it reads) and its egress phase. Data for the CLI and the
 * site; `formatCachesReport` prints it.
 */
import type { CacheAccess, CacheKind, EgressPhase } from '../../toolchain-server/src/config.ts';
import { cacheEcosystem, isCacheEcosystem } from './cache-ecosystems.ts';
import { offlineEnv } from './cache-plan.ts';
import type { AgentPlan, PlannedCache } from './plan.ts';

export interface CacheMountReport {
  readonly name: string;
  readonly ecosystem: string;
  readonly kind: CacheKind;
  readonly path: string;
  readonly access: CacheAccess;
  /** `shared`: an existing ReadWriteMany claim other agents may mount; `own`: this agent's alone. */
  readonly sharing: 'shared' | 'own';
  /** Where it lives: `emptyDir`, `claim <name>` (new), `existing claim <name>`. */
  readonly storage: string;
  readonly verifiesOnRead: boolean;
}

export interface CacheContainerReport {
  readonly container: string;
  readonly pod: string;
  readonly phase: EgressPhase;
  readonly caches: readonly CacheMountReport[];
  /** With `phase: fetch`: the offline settings of calls that are not fetch calls. */
  readonly offlineEnv?: Readonly<Record<string, string>>;
}

function storage(cache: PlannedCache): string {
  const volume = cache.volume;
  if (volume.kind === 'emptyDir') return `emptyDir (${volume.sizeLimit})`;
  if (volume.kind === 'newClaim') return `claim ${volume.claimName} (${volume.storage}, new)`;
  return `existing claim ${volume.claimName}${volume.readWriteMany ? ' (ReadWriteMany)' : ''}`;
}

/** Toolchain containers with caches or a fetch phase; empty when the agent has neither. */
export function explainCaches(plan: AgentPlan): CacheContainerReport[] {
  return plan.toolchains
    .filter((t) => t.caches.length > 0 || t.egressPhase === 'fetch')
    .map((t) => ({
      container: t.containerName,
      pod: t.pod?.objectName ?? plan.names.workload,
      phase: t.egressPhase,
      ...(t.egressPhase === 'fetch' ? { offlineEnv: offlineEnv(t) } : {}),
      caches: t.caches.flatMap((use) => {
        const cache = use.cache;
        if (!cache || !isCacheEcosystem(cache.ecosystem)) return [];
        const ecosystem = cacheEcosystem(cache.ecosystem);
        return [
          {
            name: cache.name,
            ecosystem: cache.ecosystem,
            kind: ecosystem.kind,
            path: cache.path,
            access: use.access,
            sharing: cache.shared ? ('shared' as const) : ('own' as const),
            storage: storage(cache),
            verifiesOnRead: ecosystem.verifiesOnRead,
          },
        ];
      }),
    }));
}

export function formatCachesReport(reports: readonly CacheContainerReport[]): string[] {
  if (reports.length === 0) return [];
  const lines = ['', 'Caches (per toolchain container; never mounted in backends, gateways or the broker):'];
  for (const r of reports) {
    const phase =
      r.phase === 'fetch'
        ? 'phase fetch: only fetch tools get egress and write download caches; other calls run offline'
        : 'phase always: every call may use its egress';
    lines.push(`  ${r.container} (pod ${r.pod}), ${phase}:`);
    if (r.offlineEnv && Object.keys(r.offlineEnv).length > 0)
      lines.push(
        `    offline settings of other calls: ${Object.entries(r.offlineEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
      );
    if (r.caches.length === 0) lines.push('    no caches');
    for (const c of r.caches) {
      const writes =
        c.access === 'read-write' && r.phase === 'fetch' && c.kind === 'download'
          ? 'read-write for fetch calls, read-only for the others'
          : c.access;
      lines.push(
        `    ${c.path}: ${c.name} (${c.ecosystem}, ${c.kind}), ${writes}, ${c.sharing === 'shared' ? 'shared with other agents' : "the agent's own"}, ${c.storage}, ${c.verifiesOnRead ? 'verified on read' : 'not verified on read'}`,
      );
    }
  }
  return lines;
}
