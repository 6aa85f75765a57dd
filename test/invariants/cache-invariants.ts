/**
 * The caches' invariants (issue 21), read from the rendered objects and the spec alone: no cache is mounted in a
 * backend, gateway or broker (nor in a toolchain that does not list it); no build cache on a shared claim is
 * mounted read-write; every cache variable a toolchain container or its server config sets points inside a
 * volume that container mounts; read-only consumers have readOnly mounts and read-only server config entries.
 */
import { CACHE_ECOSYSTEM_NAMES, cacheEcosystem } from '../../constructs/src/cache-ecosystems.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import type { Cache, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { podSpecsOf } from '../support/pod-security.ts';

type Json = Record<string, unknown>;
type Check = (objects: readonly KubeObject[], agent: ToolyardAgent) => string[];

const CACHE_ROOT = '/var/cache/toolyard';
const asObject = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** Every variable the cache table can set, for any consumer. */
const CACHE_VARIABLES = new Set(
  CACHE_ECOSYSTEM_NAMES.flatMap((name) => {
    const e = cacheEcosystem(name);
    return [...Object.keys(e.variables('/x', 'read-write')), ...Object.keys(e.variables('/x', 'read-only'))];
  }),
);

interface MountedContainer {
  readonly where: string;
  readonly container: Json;
  /** The pod's volumes by name. */
  readonly volumes: Map<string, Json>;
}

function containersOf(objects: readonly KubeObject[]): MountedContainer[] {
  return objects.flatMap((o) =>
    podSpecsOf(o).flatMap(({ where, podSpec }) => {
      const volumes = new Map(asList(podSpec['volumes']).map((v) => [String(v['name']), v]));
      return [...asList(podSpec['initContainers']), ...asList(podSpec['containers'])].map((container) => ({
        where: `${where} container ${String(container['name'])}`,
        container,
        volumes,
      }));
    }),
  );
}

const mountsOf = (c: Json) => asList(c['volumeMounts']);
const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir.replace(/\/$/, '')}/`);
const declared = (agent: ToolyardAgent): Cache[] => agent.spec.workspace?.caches ?? [];
const toolchainOf = (agent: ToolyardAgent, containerName: string) =>
  (agent.spec.toolchains ?? []).find((t) => `toolchain-${t.name}` === containerName);

/** A cache is mounted only in the toolchain containers that list it: never a backend, gateway or the broker. */
function cachesOnlyInTheirToolchains(objects: readonly KubeObject[], agent: ToolyardAgent): string[] {
  const violations: string[] = [];
  for (const { where, container, volumes } of containersOf(objects)) {
    const toolchain = toolchainOf(agent, String(container['name']));
    const listed = new Set((toolchain?.caches ?? []).map((use) => `cache-${use.name}`));
    for (const mount of mountsOf(container)) {
      const name = String(mount['name']);
      const path = String(mount['mountPath']);
      const claim = String(asObject(volumes.get(name)?.['persistentVolumeClaim'])['claimName'] ?? '');
      const isCache =
        isUnder(path, CACHE_ROOT) ||
        declared(agent).some(
          (c) => `cache-${c.name}` === name || claim === `${agent.metadata.name}-cache-${c.name}`,
        );
      if (isCache && !listed.has(name))
        violations.push(`${where} mounts cache volume ${name} at ${path} without listing it`);
    }
  }
  return violations;
}

/** A build cache on a shared claim (existing, ReadWriteMany) is never mounted read-write. */
function noBuildCacheSharedReadWrite(objects: readonly KubeObject[], agent: ToolyardAgent): string[] {
  const shared = new Set(
    declared(agent)
      .filter((c) => {
        const claim = asObject(asObject(c.volume)['persistentVolumeClaim']);
        const known = CACHE_ECOSYSTEM_NAMES.find((n) => n === c.ecosystem);
        return (
          typeof claim['claimName'] === 'string' &&
          claim['readWriteMany'] === true &&
          known !== undefined &&
          cacheEcosystem(known).kind === 'build'
        );
      })
      .map((c) => `cache-${c.name}`),
  );
  return containersOf(objects).flatMap(({ where, container }) =>
    mountsOf(container)
      .filter((m) => shared.has(String(m['name'])) && m['readOnly'] !== true)
      .map((m) => `${where} mounts the shared build cache ${String(m['name'])} read-write`),
  );
}

/** The path a cache variable names (MAVEN_ARGS carries it in -Dmaven.repo.local=). */
function pathOf(name: string, value: string): string | undefined {
  if (name === 'MAVEN_ARGS') return /-Dmaven\.repo\.local=(\S+)/.exec(value)?.[1];
  return value;
}

/** Every cache variable of a toolchain container (and of its server config) points inside a volume it mounts. */
function cacheVariablesInsideMounts(objects: readonly KubeObject[], agent: ToolyardAgent): string[] {
  const violations: string[] = [];
  const configs = new Map(
    objects
      .filter((o) => o.kind === 'ConfigMap' && typeof asObject(o['data'])['config.json'] === 'string')
      .map((o) => [o.metadata.name, JSON.parse(String(asObject(o['data'])['config.json'])) as Json]),
  );
  for (const { where, container } of containersOf(objects)) {
    const toolchain = toolchainOf(agent, String(container['name']));
    if (!toolchain) continue;
    const mounts = mountsOf(container).map((m) => String(m['mountPath']));
    const config = configs.get(`${agent.metadata.name}-toolchain-${toolchain.name}`);
    const set = asObject(asObject(config?.['env'])['set']) as Record<string, string>;
    const env = Object.fromEntries(
      asList(container['env']).map((e) => [String(e['name']), String(e['value'])]),
    );
    for (const [source, vars] of [
      ['env', env],
      ['server config env.set', set],
    ] as const)
      for (const [name, value] of Object.entries(vars)) {
        if (!CACHE_VARIABLES.has(name)) continue;
        const path = pathOf(name, value);
        if (!path || !mounts.some((m) => isUnder(path, m)))
          violations.push(`${where}: ${source} ${name}=${value} points outside every mounted volume`);
        else if (isUnder(path, CACHE_ROOT) && !mounts.some((m) => isUnder(m, CACHE_ROOT) && isUnder(path, m)))
          violations.push(
            `${where}: ${source} ${name}=${value} points into the cache root, not into a mounted cache`,
          );
      }
  }
  return violations;
}

/** Read-only consumers: a readOnly mount and a read-only server config entry; read-write ones neither. */
function readOnlyConsumersMountReadOnly(objects: readonly KubeObject[], agent: ToolyardAgent): string[] {
  const violations: string[] = [];
  const containers = containersOf(objects);
  for (const toolchain of agent.spec.toolchains ?? []) {
    const config = objects.find(
      (o) =>
        o.kind === 'ConfigMap' && o.metadata.name === `${agent.metadata.name}-toolchain-${toolchain.name}`,
    );
    const serverCaches = asList(
      asObject(JSON.parse(String(asObject(config?.['data'])['config.json'] ?? '{}')))['caches'],
    );
    for (const use of toolchain.caches ?? []) {
      const readOnly = use.access === 'read-only';
      const mounts = containers
        .filter((c) => c.container['name'] === `toolchain-${toolchain.name}`)
        .flatMap((c) => mountsOf(c.container).filter((m) => m['name'] === `cache-${use.name}`));
      if (mounts.length === 0)
        violations.push(`toolchain ${toolchain.name}: cache ${use.name} is not mounted`);
      for (const m of mounts)
        if ((m['readOnly'] === true) !== readOnly)
          violations.push(
            `toolchain ${toolchain.name}: cache ${use.name} is mounted readOnly=${String(m['readOnly'])}`,
          );
      const entry = serverCaches.find((c) => c['name'] === use.name);
      if (entry?.['access'] !== (use.access ?? 'read-write'))
        violations.push(
          `toolchain ${toolchain.name}: server config gives cache ${use.name} ${String(entry?.['access'])}`,
        );
    }
  }
  return violations;
}

export const CACHE_INVARIANTS: Readonly<Record<string, Check>> = {
  cachesOnlyInTheirToolchains,
  noBuildCacheSharedReadWrite,
  cacheVariablesInsideMounts,
  readOnlyConsumersMountReadOnly,
};
