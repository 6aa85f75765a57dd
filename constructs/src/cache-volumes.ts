/**
 * Declared caches as Kubernetes objects: each cache's pod volume (in the pods of the toolchains that use it,
 * and nowhere else), each toolchain's mounts at the pinned paths (read-only for read-only consumers), and one
 * PersistentVolumeClaim `<agent>-cache-<name>` per cache declared with a new claim.
 */
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import type { AgentPlan, PlannedCache, PlannedToolchain } from './plan.ts';

/** The pod volumes of the caches these toolchains (one pod's) use, in declaration order. */
export function cacheVolumes(plan: AgentPlan, toolchains: readonly PlannedToolchain[]): k8s.Volume[] {
  const used = new Set(toolchains.flatMap((t) => t.caches.map((use) => use.name)));
  return plan.caches.filter((cache) => used.has(cache.name)).map(cacheVolume);
}

function cacheVolume(cache: PlannedCache): k8s.Volume {
  const volume = cache.volume;
  switch (volume.kind) {
    case 'emptyDir':
      return { name: cache.volumeName, emptyDir: { sizeLimit: k8s.Quantity.fromString(volume.sizeLimit) } };
    case 'existingClaim':
    case 'newClaim':
      return { name: cache.volumeName, persistentVolumeClaim: { claimName: volume.claimName } };
  }
}

/**
 * Whether a pod using these toolchains' caches mounts a claim only one node can mount: then an old and a new
 * pod cannot run at once, and its Deployment replaces pods with the Recreate strategy.
 */
export function mountsSingleNodeCacheClaim(
  plan: AgentPlan,
  toolchains: readonly PlannedToolchain[],
): boolean {
  const used = new Set(toolchains.flatMap((t) => t.caches.map((use) => use.name)));
  return plan.caches.some((cache) => {
    if (!used.has(cache.name)) return false;
    const volume = cache.volume;
    if (volume.kind === 'existingClaim') return !volume.readWriteMany;
    if (volume.kind === 'newClaim') return !volume.accessModes.includes('ReadWriteMany');
    return false;
  });
}

/** A toolchain's cache mounts at the pinned paths, in its spec order. */
export function cacheMounts(toolchain: PlannedToolchain): k8s.VolumeMount[] {
  return toolchain.caches.flatMap((use) =>
    use.cache
      ? [
          {
            name: use.cache.volumeName,
            mountPath: use.cache.path,
            ...(use.access === 'read-only' ? { readOnly: true } : {}),
          },
        ]
      : [],
  );
}

export interface CacheClaimsProps {
  readonly plan: AgentPlan;
}

/** The PersistentVolumeClaims of the caches declared with a new claim (`storage`): this agent's own. */
export class CacheClaims extends Construct {
  readonly claims: readonly k8s.KubePersistentVolumeClaim[];

  constructor(scope: Construct, id: string, props: CacheClaimsProps) {
    super(scope, id);
    const { plan } = props;
    const labels = plan.names.labels('agent', plan.labels);
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    this.claims = plan.caches.flatMap((cache) => {
      const volume = cache.volume;
      if (volume.kind !== 'newClaim') return [];
      return [
        new k8s.KubePersistentVolumeClaim(this, cache.name, {
          metadata: { name: volume.claimName, namespace: plan.namespace, labels, ...annotations },
          spec: {
            accessModes: [...volume.accessModes],
            resources: { requests: { storage: k8s.Quantity.fromString(volume.storage) } },
            ...(volume.storageClassName ? { storageClassName: volume.storageClassName } : {}),
          },
        }),
      ];
    });
  }
}
