/**
 * Caches across a fleet (docs/caches.md): every toolchain's use of a cache, the existing claims several agents
 * mount (who uses them, read-write or read-only), and the fleet-level sharing rules that one spec cannot see —
 * a build cache written by two agents, or a download cache several agents mount that one of them writes without
 * its tool verifying on read and without a fetch phase. Used by `validate`, `synth`, `site` and `diff` (through
 * `checkSpecSources`), the fleet site's Caches section and `diff`'s widening rule.
 */
import { cacheEcosystem, isCacheEcosystem } from '../../../constructs/src/cache-ecosystems.ts';
import type { AgentPlan } from '../../../constructs/src/plan.ts';
import type { SpecError } from '../../../schema/src/load.ts';

export interface FleetCacheUse {
  readonly agent: string;
  readonly namespace: string;
  readonly toolchain: string;
  readonly cache: string;
  readonly ecosystem: string;
  readonly kind: 'download' | 'build';
  readonly access: 'read-write' | 'read-only';
  /** `fetch`: only fetch calls write its download caches. */
  readonly phase: 'always' | 'fetch';
  /** The existing claim it lives on, if any (`namespace/claimName` identifies it). */
  readonly claim?: string;
  /** Declared `readWriteMany: true` on an existing claim. */
  readonly shared: boolean;
  readonly verifiesOnRead: boolean;
  /** JSON Pointer of the use in its spec. */
  readonly specPath: string;
}

export function fleetCacheUses(plan: AgentPlan): FleetCacheUse[] {
  return plan.toolchains.flatMap((t) =>
    t.caches.flatMap((use) => {
      const cache = use.cache;
      if (!cache || !isCacheEcosystem(cache.ecosystem)) return [];
      const ecosystem = cacheEcosystem(cache.ecosystem);
      return [
        {
          agent: plan.name,
          namespace: plan.namespace,
          toolchain: t.name,
          cache: cache.name,
          ecosystem: cache.ecosystem,
          kind: ecosystem.kind,
          access: use.access,
          phase: t.egressPhase,
          ...(cache.volume.kind === 'existingClaim' ? { claim: cache.volume.claimName } : {}),
          shared: cache.shared,
          verifiesOnRead: ecosystem.verifiesOnRead,
          specPath: use.specPath,
        },
      ];
    }),
  );
}

export interface SharedClaim {
  readonly namespace: string;
  readonly claim: string;
  readonly agents: readonly string[];
  readonly uses: readonly FleetCacheUse[];
}

/** Existing claims that more than one agent mounts as a cache, in namespace and name order. */
export function sharedClaims(uses: readonly FleetCacheUse[]): SharedClaim[] {
  const byClaim = new Map<string, FleetCacheUse[]>();
  for (const use of uses) {
    if (use.claim === undefined) continue;
    const key = `${use.namespace}/${use.claim}`;
    byClaim.set(key, [...(byClaim.get(key) ?? []), use]);
  }
  return [...byClaim.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([, list]) => {
      const agents = [...new Set(list.map((u) => u.agent))].sort();
      return agents.length > 1
        ? [{ namespace: list[0]!.namespace, claim: list[0]!.claim!, agents, uses: list }]
        : [];
    });
}

/** `agent/toolchain writes|reads <cache> (<ecosystem>, <kind>)` — one line per use of a shared claim. */
export function describeSharedClaim(shared: SharedClaim): string[] {
  return [
    `claim ${shared.namespace}/${shared.claim}, shared by ${shared.agents.join(', ')}:`,
    ...shared.uses.map(
      (u) =>
        `  ${u.agent}/${u.toolchain}: ${u.access === 'read-write' ? (u.phase === 'fetch' && u.kind === 'download' ? 'writes (fetch calls only)' : 'writes') : 'reads'} cache ${u.cache} (${u.ecosystem}, ${u.kind})`,
    ),
  ];
}

/** A spec of the fleet, with where its fields are (for errors). */
export interface FleetSpec {
  readonly file: string;
  readonly plan: AgentPlan;
  lineOf(pointer: string): number;
}

/**
 * The sharing rules over the whole fleet: on a claim several agents mount, a build cache has a writer in one
 * agent at most, and a download cache's writers are all verified on read or fetch in a phase of their own.
 */
export function fleetCacheErrors(specs: readonly FleetSpec[]): SpecError[] {
  const bySpec = new Map(specs.map((s) => [s.plan.name, s]));
  const errors: SpecError[] = [];
  for (const shared of sharedClaims(specs.flatMap((s) => fleetCacheUses(s.plan)))) {
    const others = (u: FleetCacheUse) => shared.agents.filter((a) => a !== u.agent).join(', ');
    const error = (u: FleetCacheUse, message: string, hint: string) => {
      const spec = bySpec.get(u.agent)!;
      errors.push({
        file: spec.file,
        line: spec.lineOf(`${u.specPath}/access`),
        path: `${u.specPath}/access`,
        message,
        hint,
      });
    };
    const buildWriters = shared.uses.filter((u) => u.kind === 'build' && u.access === 'read-write');
    const firstWriter = buildWriters[0]?.agent;
    for (const u of buildWriters)
      if (u.agent !== firstWriter)
        error(
          u,
          `toolchain "${u.toolchain}" writes the build cache "${u.cache}" on claim ${shared.claim}, which agent "${firstWriter}" writes too: build outputs are never shared read-write between agents`,
          'give each agent a build cache of its own (emptyDir or a new claim)',
        );
    for (const u of shared.uses)
      if (u.kind === 'download' && u.access === 'read-write' && !u.verifiesOnRead && u.phase !== 'fetch')
        error(
          u,
          `toolchain "${u.toolchain}" writes the ${u.ecosystem} cache "${u.cache}" on claim ${shared.claim}, which agent(s) ${others(u)} also mount, and ${u.ecosystem} does not verify what it reads: project code could plant content they then use`,
          'set network.egress.phase: fetch on this toolchain (only its fetch tools then write the cache), or use the cache read-only',
        );
  }
  return errors;
}

/**
 * An agent's cache uses for `diff`, keyed rename-proof (toolchain, cache or claim, access). A key that starts
 * with `writes-claim|` is a read-write use of an existing claim — a cache other agents may mount — and adding
 * one (a new writer, or read-only → read-write) widens.
 */
export function cacheUseLines(uses: readonly FleetCacheUse[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const u of uses) {
    const where = u.claim !== undefined ? `claim ${u.claim}` : `its own ${u.cache}`;
    const writesClaim = u.claim !== undefined && u.access === 'read-write';
    const how =
      u.access === 'read-write'
        ? u.phase === 'fetch' && u.kind === 'download'
          ? 'writes (fetch calls only)'
          : 'writes'
        : 'reads';
    out.set(
      `${writesClaim ? 'writes-claim' : 'use'}|${u.toolchain}|${u.claim ?? u.cache}|${u.access}|${u.phase}`,
      `toolchain ${u.toolchain} ${how} cache ${u.cache} (${u.ecosystem}, ${u.kind}) on ${where}${u.shared ? ', shared with other agents' : ''}`,
    );
  }
  return out;
}

export const isWideningCacheKey = (key: string): boolean => key.startsWith('writes-claim|');
