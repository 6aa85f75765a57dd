/**
 * Pod templates of a generated chart: what of a rendered pod spec and its containers becomes values —
 * scheduling, pull secrets, security contexts (merged over the restricted defaults), extra volumes, mounts,
 * env and envFrom, images, resources — and the workspace (persistence). Everything else is the rendered
 * object, written back as it is.
 */
import type { PlannedBackend, PlannedToolchain } from '../../constructs/src/plan.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import { cacheOfVolume, cacheVolumeLines } from './cache-values.ts';
import { parseImage } from './image-reference.ts';
import { imageValues } from './image-values.ts';
import type { ObjectLifter } from './object-lifter.ts';
import { emitSeq, entry, expr, goString } from './template-yaml.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { pad, valuesKey, valuesRef } from './values-refs.ts';
import {
  AFFINITY,
  CONTAINER_SECURITY_CONTEXT,
  ENV_FROM_LIST,
  ENV_LIST,
  LABELS,
  OBJECT_NAME,
  OPTIONAL_OBJECT_NAME,
  POD_SECURITY_CONTEXT,
  PRIORITY_CLASS,
  QUANTITY,
  RESOURCES,
  STORAGE_CLASS,
  TOLERATIONS,
  TOPOLOGY_SPREAD,
  VOLUME_LIST,
  VOLUME_MOUNT_LIST,
} from './values-schemas.ts';

type Path = readonly (string | number)[];
type Json = Readonly<Record<string, unknown>>;

const WORKSPACE_VOLUME = 'workspace';

const SCHEDULING: readonly [string, string, Readonly<Record<string, unknown>>, unknown][] = [
  ['nodeSelector', 'Node labels the pods must match.', LABELS, {}],
  ['tolerations', 'Tolerations of the pods.', TOLERATIONS, []],
  ['affinity', 'Affinity rules of the pods.', AFFINITY, {}],
  ['topologySpreadConstraints', 'Topology spread constraints of the pods.', TOPOLOGY_SPREAD, []],
  ['priorityClassName', 'PriorityClass of the pods.', PRIORITY_CLASS, ''],
];

/**
 * Map entries in key order, lifted entries (`\u0000key`) among them by their key: the renderer writes pod
 * specs and containers with sorted keys, so a lifted field the spec sets (imagePullSecrets) lands where synth
 * has it and parity stays byte for byte.
 */
function sortedEntries(out: Record<string, unknown>): Record<string, unknown> {
  const bare = (k: string): string => (k.startsWith('\u0000') ? k.slice(1) : k);
  return Object.fromEntries(
    Object.entries(out).sort(([a], [b]) => (bare(a) < bare(b) ? -1 : bare(a) > bare(b) ? 1 : 0)),
  );
}

/** `key:` with a list of literal items, then the items of a values list (extraVolumes, …) appended. */
function listWithExtra(
  items: readonly unknown[],
  extraRef: string,
  key: string,
  indent: number,
  before: readonly string[] = [],
): string[] {
  return [
    `${pad(indent)}${key}:`,
    ...before,
    ...emitSeq(items, indent + 2),
    `${pad(indent + 2)}{{- with ${extraRef} }}`,
    `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
    `${pad(indent + 2)}{{- end }}`,
  ];
}

/** `key:` only when a values list (extraEnv, …) is not empty. */
function optionalList(ref: string, key: string, indent: number): string[] {
  return [
    `${pad(indent)}{{- with ${ref} }}`,
    `${pad(indent)}${key}:`,
    `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
    `${pad(indent)}{{- end }}`,
  ];
}

function securityContextLines(builder: ObjectLifter, ref: string, indent: number): string[] {
  return [
    `${pad(indent)}securityContext:`,
    `${pad(indent + 2)}{{- include ${builder.helper('securityContext')} (dict "context" $ "securityContext" ${ref}) | nindent ${indent + 2} }}`,
  ];
}

/** A value of `agent.persistence`, which also governs the toolchain pods' workspace. */
export function persistenceRef(builder: ObjectLifter, key: string): string {
  return valuesRef([...persistence(builder), key]);
}

/** The agent's `persistence` values, created once: what the workspace volume can become. */
function persistence(builder: ObjectLifter): readonly string[] {
  const values = builder.componentValues('agent');
  const path = [...values.path, 'persistence'];
  if (values.workload.some((n) => n.key === 'persistence')) return path;
  const volume = builder.plan.workspace.volume;
  const children: ValueNode[] = [];
  if (volume.kind === 'existingClaim') {
    children.push(
      leaf(
        'existingClaim',
        'PersistentVolumeClaim mounted as the shared workspace.',
        OBJECT_NAME,
        volume.claimName,
      ),
    );
  } else {
    children.push(
      leaf(
        'existingClaim',
        volume.kind === 'emptyDir'
          ? "An existing PersistentVolumeClaim to mount as the workspace instead of the spec's emptyDir (the Deployment then replaces pods with the Recreate strategy)."
          : volume.kind === 'sharedClaim'
            ? 'An existing ReadWriteMany PersistentVolumeClaim to mount as the workspace of the agent pod and every toolchain pod instead of the generated claim.'
            : 'An existing PersistentVolumeClaim to mount as the workspace instead of a claim per pod (volumeClaimTemplates). Set it at install: Kubernetes does not let a StatefulSet change its claim templates.',
        OPTIONAL_OBJECT_NAME,
        '',
      ),
    );
  }
  if (volume.kind === 'claimTemplate' || volume.kind === 'sharedClaim') {
    children.push(
      leaf(
        'storageClass',
        'StorageClass of the workspace claim; "" uses the cluster default, "-" sets storageClassName "" (no dynamic provisioning).',
        STORAGE_CLASS,
        volume.storageClassName ?? '',
      ),
      leaf('size', 'Requested size of the workspace claim.', QUANTITY, volume.storage),
    );
  }
  values.workload.push(group('persistence', 'The shared workspace volume.', children));
  return path;
}

/** The rendered workspace volume, as the persistence values make it (the same in the agent and toolchain pods). */
function workspaceVolumeLines(
  builder: ObjectLifter,
  item: Json,
  rendered: unknown,
  indent: number,
): string[] {
  const volume = builder.plan.workspace.volume;
  const existingClaim = valuesRef([...persistence(builder), 'existingClaim']);
  if (volume.kind === 'existingClaim') {
    return emitSeq(
      [
        {
          ...item,
          persistentVolumeClaim: {
            ...(item['persistentVolumeClaim'] as Json),
            claimName: expr(
              `required "agent.persistence.existingClaim: name the claim of the workspace" ${existingClaim} | quote`,
            ),
          },
        },
      ],
      indent,
    );
  }
  return [
    `${pad(indent)}{{- with ${existingClaim} }}`,
    ...emitSeq([{ name: WORKSPACE_VOLUME, persistentVolumeClaim: { claimName: expr('. | quote') } }], indent),
    `${pad(indent)}{{- else }}`,
    ...emitSeq([rendered], indent),
    `${pad(indent)}{{- end }}`,
  ];
}

/** A pod spec: lifted fields become values, containers are lifted one by one. */
export function podSpec(
  builder: ObjectLifter,
  object: KubeObject,
  spec: Json,
  component: string,
  path: Path,
) {
  const values = builder.componentValues(component);
  const ref = (k: string): string => valuesRef([...values.path, k]);
  const isAgent = component === 'agent';
  // The agent pod and toolchain pods mount the workspace that agent.persistence describes.
  const mountsWorkspace = isAgent || builder.toolchainOf(component) !== undefined;
  const out: Record<string, unknown> = {};
  const lifted = new Set(SCHEDULING.map(([k]) => k).concat('imagePullSecrets'));
  values.pod.push(
    leaf(
      'extraVolumes',
      'Extra volumes of the pods (types Pod Security restricted allows).',
      VOLUME_LIST,
      [],
    ),
  );
  for (const [key, value] of Object.entries(spec)) {
    if (lifted.has(key)) continue;
    if (key === 'containers' || key === 'initContainers') {
      out[key] = (value as Json[]).map((c, i) =>
        container(builder, object, c, component, key, [...path, key, i]),
      );
    } else if (key === 'securityContext') {
      values.pod.push(
        leaf(
          'podSecurityContext',
          'Security context of the pods, merged over these restricted defaults; null removes a field.',
          POD_SECURITY_CONTEXT,
          value,
        ),
      );
      out[key] = entry((indent) => securityContextLines(builder, ref('podSecurityContext'), indent));
    } else if (key === 'volumes') {
      const items = value as Json[];
      const workspace = mountsWorkspace ? items.find((v) => v['name'] === WORKSPACE_VOLUME) : undefined;
      const renderedWorkspace = workspace
        ? builder.transform(object, workspace, [...path, key, items.indexOf(workspace)], component)
        : undefined;
      // Cache volumes follow the workspace, each as agent.caches.<name> makes it.
      const caches = items.flatMap((v, i) => {
        const cache = cacheOfVolume(builder, v);
        return cache ? [{ cache, rendered: builder.transform(object, v, [...path, key, i], component) }] : [];
      });
      const rest = items.flatMap((v, i) =>
        v === workspace || cacheOfVolume(builder, v)
          ? []
          : [builder.transform(object, v, [...path, key, i], component)],
      );
      const claimTemplate = isAgent && builder.plan.workspace.volume.kind === 'claimTemplate';
      const existingClaim = isAgent ? valuesRef([...persistence(builder), 'existingClaim']) : '';
      out[key] = entry((indent) => {
        const cacheLines = caches.flatMap(({ cache, rendered }) =>
          cacheVolumeLines(builder, cache, rendered, indent + 2),
        );
        const before = workspace
          ? [...workspaceVolumeLines(builder, workspace, renderedWorkspace, indent + 2), ...cacheLines]
          : claimTemplate
            ? [
                `${pad(indent + 2)}{{- with ${existingClaim} }}`,
                ...emitSeq(
                  [{ name: WORKSPACE_VOLUME, persistentVolumeClaim: { claimName: expr('. | quote') } }],
                  indent + 2,
                ),
                `${pad(indent + 2)}{{- end }}`,
                ...cacheLines,
              ]
            : cacheLines;
        return listWithExtra(rest, ref('extraVolumes'), key, indent, before);
      });
    } else out[key] = builder.transform(object, value, [...path, key], component);
  }
  if (isAgent) persistence(builder);
  if (!('securityContext' in spec))
    throw new Error(`${object.kind}/${object.metadata.name}: no pod securityContext`);
  if (!('volumes' in spec))
    out['\u0000volumes'] = entry((indent) => optionalList(ref('extraVolumes'), 'volumes', indent));
  for (const [key, description, schema, fallback] of SCHEDULING) {
    values.pod.push(leaf(key, description, schema, spec[key] ?? fallback));
    out[`\u0000${key}`] = entry((indent) =>
      key === 'priorityClassName'
        ? [
            `${pad(indent)}{{- with ${ref(key)} }}`,
            `${pad(indent)}priorityClassName: {{ . | quote }}`,
            `${pad(indent)}{{- end }}`,
          ]
        : optionalList(ref(key), key, indent),
    );
  }
  out['\u0000imagePullSecrets'] = entry((indent) => [
    `${pad(indent)}{{- with include ${builder.helper('imagePullSecrets')} $ }}`,
    `${pad(indent)}imagePullSecrets:`,
    `${pad(indent + 2)}{{- . | nindent ${indent + 2} }}`,
    `${pad(indent)}{{- end }}`,
  ]);
  return sortedEntries(out);
}

function containerDescription(builder: ObjectLifter, component: string, name: string, init: boolean): string {
  const plan = builder.plan;
  const own = builder.toolchainOf(component);
  if (own) {
    if (init) return `Init container "${name}" (copies the toolchain server into the pod).`;
    return `Toolchain "${own.name}" (toolchain server on the pod IP, port ${own.port}, behind its Service).`;
  }
  if (component !== 'agent') return `Container "${name}" of the gateway.`;
  if (init) return `Init container "${name}" (copies the toolchain server into the pod).`;
  const backend: PlannedBackend | undefined = plan.backends.find((b) => b.name === name);
  if (backend) return `Backend "${name}" (${backend.type}), port ${backend.port}.`;
  const toolchain: PlannedToolchain | undefined = plan.toolchains.find((t) => t.containerName === name);
  if (toolchain) {
    return `Toolchain "${toolchain.name}" sidecar (toolchain server on 127.0.0.1:${toolchain.port}, tools ${toolchain.mode}${
      toolchain.presets.length > 0 ? ` ${toolchain.presets.join(', ')}` : ''
    }).`;
  }
  return `Container "${name}".`;
}

/** The values of one container: image, resources, security context and the extension points. */
function containerLeaves(container: Json): ValueNode[] {
  const image = parseImage(String(container['image']));
  return [
    imageValues('Container image.', image, container['imagePullPolicy'] ?? 'IfNotPresent'),
    leaf('resources', 'Resource requests and limits.', RESOURCES, container['resources'] ?? {}),
    leaf(
      'securityContext',
      'Security context, merged over these restricted defaults; null removes a field. privileged and allowPrivilegeEscalation cannot be turned on.',
      CONTAINER_SECURITY_CONTEXT,
      container['securityContext'],
    ),
    leaf(
      'extraEnv',
      'Extra environment variables; one named like a generated variable replaces it.',
      ENV_LIST,
      [],
    ),
    leaf('extraEnvFrom', 'Extra envFrom sources (ConfigMaps, Secrets).', ENV_FROM_LIST, []),
    leaf(
      'extraVolumeMounts',
      'Extra volume mounts (of the pod volumes, extraVolumes included).',
      VOLUME_MOUNT_LIST,
      [],
    ),
  ];
}

/** `env:` — each generated variable unless extraEnv names it, then extraEnv. */
function envLines(items: readonly unknown[], names: readonly string[], extraRef: string, indent: number) {
  const lines = [
    `${pad(indent)}env:`,
    `${pad(indent + 2)}{{- $replaced := dict }}{{ range ${extraRef} }}{{ $_ := set $replaced .name true }}{{ end }}`,
  ];
  items.forEach((item, i) => {
    lines.push(
      `${pad(indent + 2)}{{- if not (hasKey $replaced ${goString(names[i]!)}) }}`,
      ...emitSeq([item], indent + 2),
      `${pad(indent + 2)}{{- end }}`,
    );
  });
  lines.push(
    `${pad(indent + 2)}{{- with ${extraRef} }}`,
    `${pad(indent + 2)}{{- toYaml . | nindent ${indent + 2} }}`,
    `${pad(indent + 2)}{{- end }}`,
  );
  return lines;
}

function container(
  builder: ObjectLifter,
  object: KubeObject,
  container: Json,
  component: string,
  listKey: string,
  path: Path,
): Json {
  const values = builder.componentValues(component);
  const name = String(container['name']);
  const init = listKey === 'initContainers';
  const key = valuesKey(name);
  const valuesPath = values.flatContainer
    ? values.path
    : [...values.path, init ? 'initContainers' : 'containers', key];
  const list = values.flatContainer ? values.container : init ? values.initContainers : values.containers;
  if (!values.flatContainer && list.some((n) => n.key === key))
    throw new Error(`two containers map to values key ${key}`);
  if (values.flatContainer && list.some((n) => n.key === 'image'))
    throw new Error(`${component} has two containers`);
  const leaves = containerLeaves(container);
  if (values.flatContainer) list.push(...leaves);
  else list.push(group(key, containerDescription(builder, component, name, init), leaves));
  const ref = (k: string): string => valuesRef([...valuesPath, k]);
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(container)) {
    const at = [...path, k];
    if (k === 'image') {
      out[k] = expr(
        `include ${builder.helper('image')} (dict "image" ${ref('image')} "global" $.Values.global) | quote`,
      );
    } else if (k === 'imagePullPolicy') out[k] = expr(`${ref('image')}.pullPolicy | quote`);
    else if (k === 'resources') {
      out[k] = entry((indent) => [
        `${pad(indent)}resources:`,
        `${pad(indent + 2)}{{- toYaml ${ref('resources')} | nindent ${indent + 2} }}`,
      ]);
    } else if (k === 'securityContext') {
      out[k] = entry((indent) => securityContextLines(builder, ref('securityContext'), indent));
    } else if (k === 'env') {
      const env = value as Json[];
      const items = builder.transform(object, env, at, component) as unknown[];
      out[k] = entry((indent) =>
        envLines(
          items,
          env.map((e) => String(e['name'])),
          ref('extraEnv'),
          indent,
        ),
      );
    } else if (k === 'envFrom' || k === 'volumeMounts') {
      const items = builder.transform(object, value, at, component) as unknown[];
      const extra = k === 'envFrom' ? 'extraEnvFrom' : 'extraVolumeMounts';
      out[k] = entry((indent) => listWithExtra(items, ref(extra), k, indent));
    } else out[k] = builder.transform(object, value, at, component);
  }
  if (!('env' in container))
    out['\u0000env'] = entry((indent) => optionalList(ref('extraEnv'), 'env', indent));
  if (!('envFrom' in container))
    out['\u0000envFrom'] = entry((indent) => optionalList(ref('extraEnvFrom'), 'envFrom', indent));
  if (!('volumeMounts' in container)) {
    out['\u0000volumeMounts'] = entry((indent) =>
      optionalList(ref('extraVolumeMounts'), 'volumeMounts', indent),
    );
  }
  if (!('resources' in container)) throw new Error(`container ${name} has no resources`);
  if (!('securityContext' in container)) throw new Error(`container ${name} has no securityContext`);
  return sortedEntries(out);
}

/** A workspace claim's spec (the shared claim, or a claim template's): size and class from `agent.persistence`. */
export function claimSpec(
  builder: ObjectLifter,
  object: KubeObject,
  spec: Json,
  component: string,
  path: Path,
) {
  const p = (k: string): string => persistenceRef(builder, k);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'storageClassName') continue;
    if (key === 'resources') {
      const resources = value as Json;
      out[key] = {
        ...resources,
        requests: { ...(resources['requests'] as Json), storage: expr(`${p('size')} | quote`) },
      };
    } else out[key] = builder.transform(object, value, [...path, key], component);
  }
  out['\u0000storageClassName'] = entry((indent) => [
    `${pad(indent)}{{- with ${p('storageClass')} }}`,
    `${pad(indent)}storageClassName: {{ if eq . "-" }}""{{ else }}{{ . | quote }}{{ end }}`,
    `${pad(indent)}{{- end }}`,
  ]);
  // Among the other keys by its name, as the renderer writes it (before `volumeMode`).
  return sortedEntries(out);
}

/** The StatefulSet's workspace claim template, sized and classed by `agent.persistence`; none with an existing claim. */
export function volumeClaimTemplates(
  builder: ObjectLifter,
  object: KubeObject,
  templates: readonly Json[],
  component: string,
  path: Path,
) {
  const persistencePath = persistence(builder);
  const p = (k: string): string => valuesRef([...persistencePath, k]);
  const items = templates.map((template, i) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) {
      if (k === 'metadata')
        out[k] = builder.metadataEntry(object, v as Json, component, 'claim', [...path, i, k]);
      else if (
        k === 'spec' &&
        template['metadata'] &&
        (template['metadata'] as Json)['name'] === WORKSPACE_VOLUME
      ) {
        out[k] = claimSpec(builder, object, v as Json, component, [...path, i, k]);
      } else out[k] = builder.transform(object, v, [...path, i, k], component);
    }
    return out;
  });
  return entry((indent, key) => [
    `${pad(indent)}{{- if not ${p('existingClaim')} }}`,
    `${pad(indent)}${key}:`,
    ...emitSeq(items, indent + 2),
    `${pad(indent)}{{- end }}`,
  ]);
}
