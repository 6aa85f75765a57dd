/**
 * Declared caches as chart values, `agent.caches.<name>`: an emptyDir's `sizeLimit`, a new claim's `size` and
 * `storageClass`, and for every cache an `existingClaim` that replaces the rendered volume (required for a cache
 * the spec puts on an existing claim). At the defaults `helm template` renders exactly what synth does. The values
 * are the agent's: a cache used by a toolchain pod is the same volume there.
 */
import type { PlannedCache } from '../../constructs/src/plan.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import type { ObjectLifter } from './object-lifter.ts';
import { emitSeq, entry, expr } from './template-yaml.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { pad, valuesKey, valuesRef } from './values-refs.ts';
import { OBJECT_NAME, OPTIONAL_OBJECT_NAME, QUANTITY, STORAGE_CLASS } from './values-schemas.ts';

type Json = Readonly<Record<string, unknown>>;
type Path = readonly (string | number)[];

/** The cache a pod volume or a claim object stands for, if any. */
export function cacheOfVolume(builder: ObjectLifter, volume: Json): PlannedCache | undefined {
  return builder.plan.caches.find((c) => c.volumeName === volume['name']);
}

export function cacheOfClaim(builder: ObjectLifter, object: KubeObject): PlannedCache | undefined {
  if (object.kind !== 'PersistentVolumeClaim') return undefined;
  return builder.plan.caches.find(
    (c) => c.volume.kind === 'newClaim' && c.volume.claimName === object.metadata.name,
  );
}

/** `agent.caches.<name>.<key>`, creating the caches' values on first use. */
function cacheRef(builder: ObjectLifter, cache: PlannedCache, key: string): string {
  const values = builder.componentValues('agent');
  const path = [...values.path, 'caches'];
  if (!values.workload.some((n) => n.key === 'caches'))
    values.workload.push(
      group(
        'caches',
        'Package caches (spec.workspace.caches), mounted at /var/cache/toolyard/<name> in the toolchains that use them.',
        builder.plan.caches.map(cacheGroup),
      ),
    );
  return valuesRef([...path, valuesKey(cache.name), key]);
}

function cacheGroup(cache: PlannedCache): ValueNode {
  const volume = cache.volume;
  const children: ValueNode[] = [];
  if (volume.kind === 'existingClaim')
    children.push(
      leaf(
        'existingClaim',
        `PersistentVolumeClaim of the ${cache.ecosystem} cache${volume.readWriteMany ? ' (ReadWriteMany: other agents may share it)' : ''}.`,
        OBJECT_NAME,
        volume.claimName,
      ),
    );
  else
    children.push(
      leaf(
        'existingClaim',
        `An existing PersistentVolumeClaim to mount as the ${cache.ecosystem} cache instead of the ${volume.kind === 'emptyDir' ? 'emptyDir' : 'generated claim'}.`,
        OPTIONAL_OBJECT_NAME,
        '',
      ),
    );
  if (volume.kind === 'emptyDir')
    children.push(leaf('sizeLimit', 'Upper bound of the emptyDir cache.', QUANTITY, volume.sizeLimit));
  if (volume.kind === 'newClaim')
    children.push(
      leaf(
        'storageClass',
        'StorageClass of the cache claim; "" uses the cluster default, "-" sets storageClassName "" (no dynamic provisioning).',
        STORAGE_CLASS,
        volume.storageClassName ?? '',
      ),
      leaf('size', 'Requested size of the cache claim.', QUANTITY, volume.storage),
    );
  return group(
    valuesKey(cache.name),
    `Cache "${cache.name}" (${cache.ecosystem}, ${cache.kind ?? 'unknown'}).`,
    children,
  );
}

/** The lines of a cache's pod volume, as its values make it. */
export function cacheVolumeLines(
  builder: ObjectLifter,
  cache: PlannedCache,
  rendered: unknown,
  indent: number,
): string[] {
  const existing = cacheRef(builder, cache, 'existingClaim');
  if (cache.volume.kind === 'existingClaim')
    return emitSeq(
      [
        {
          name: cache.volumeName,
          persistentVolumeClaim: {
            claimName: expr(
              `required "agent.caches.${valuesKey(cache.name)}.existingClaim: name the claim of the cache" ${existing} | quote`,
            ),
          },
        },
      ],
      indent,
    );
  const fallback =
    cache.volume.kind === 'emptyDir'
      ? {
          // Keys in the order synth writes them (sorted).
          emptyDir: { sizeLimit: expr(`${cacheRef(builder, cache, 'sizeLimit')} | quote`) },
          name: cache.volumeName,
        }
      : rendered;
  return [
    `${pad(indent)}{{- with ${existing} }}`,
    ...emitSeq([{ name: cache.volumeName, persistentVolumeClaim: { claimName: expr('. | quote') } }], indent),
    `${pad(indent)}{{- else }}`,
    ...emitSeq([fallback], indent),
    `${pad(indent)}{{- end }}`,
  ];
}

/** A new cache claim is rendered unless an existing claim replaces it. */
export function cacheClaimCondition(builder: ObjectLifter, cache: PlannedCache): string {
  return `not ${cacheRef(builder, cache, 'existingClaim')}`;
}

/** A new cache claim's spec: size and class from its values. */
export function cacheClaimSpec(
  builder: ObjectLifter,
  object: KubeObject,
  cache: PlannedCache,
  spec: Json,
  component: string,
  path: Path,
) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'storageClassName') continue;
    if (key === 'resources') {
      const resources = value as Json;
      out[key] = {
        ...resources,
        requests: {
          ...(resources['requests'] as Json),
          storage: expr(`${cacheRef(builder, cache, 'size')} | quote`),
        },
      };
    } else out[key] = builder.transform(object, value, [...path, key], component);
  }
  out['\u0000storageClassName'] = entry((indent) => [
    `${pad(indent)}{{- with ${cacheRef(builder, cache, 'storageClass')} }}`,
    `${pad(indent)}storageClassName: {{ if eq . "-" }}""{{ else }}{{ . | quote }}{{ end }}`,
    `${pad(indent)}{{- end }}`,
  ]);
  return out;
}
