/**
 * JSON Schemas (draft-07) of the values a generated chart lifts. Security contexts and volumes accept only
 * what Pod Security "restricted" allows — a value can remove a default (`null`), never make a pod privileged.
 */
import agentSchema from '../../schema/agent.schema.json' with { type: 'json' };
import type { JsonSchema } from './values-model.ts';

/** A definition of the Agent schema, so values follow the rules the spec's own fields follow. */
const specRule = (name: 'LabelKey' | 'LabelValue' | 'Quantity' | 'DnsSubdomain' | 'DnsLabel'): JsonSchema => {
  const { pattern, maxLength } = (
    agentSchema.definitions as Record<string, { pattern?: string; maxLength?: number }>
  )[name]!;
  return { type: 'string', ...(pattern ? { pattern } : {}), ...(maxLength ? { maxLength } : {}) };
};

const described = (description: string, schema: JsonSchema): JsonSchema => ({ description, ...schema });
const nullable = (type: string): { type: string[] } => ({ type: [type, 'null'] });

/** Labels (also a nodeSelector): keys and values as Kubernetes takes them, as for the spec's metadata.labels. */
export const LABELS: JsonSchema = {
  type: 'object',
  propertyNames: specRule('LabelKey'),
  additionalProperties: specRule('LabelValue'),
};

/** Annotations: keys as label keys, values any text. */
export const ANNOTATIONS: JsonSchema = {
  type: 'object',
  propertyNames: specRule('LabelKey'),
  additionalProperties: { type: 'string' },
};

/** A Kubernetes resource quantity such as 20Gi, 500M or 1.5, not negative (the spec's own rule). */
export const QUANTITY: JsonSchema = specRule('Quantity');

const QUANTITY_MAP: JsonSchema = {
  type: 'object',
  additionalProperties: { anyOf: [QUANTITY, { type: 'number', minimum: 0 }] },
};

/** A StorageClass: "" for the cluster default, "-" for none (storageClassName ""), else its name. */
export const STORAGE_CLASS: JsonSchema = {
  type: 'string',
  pattern: `^$|^-$|${specRule('DnsSubdomain').pattern}`,
  maxLength: 253,
};

/** A PriorityClass name, or "" for none. */
export const PRIORITY_CLASS: JsonSchema = {
  type: 'string',
  pattern: `^$|${specRule('DnsSubdomain').pattern}`,
  maxLength: 253,
};

/** A DNS-1123 subdomain: the name of a Secret, a claim, a ServiceAccount. */
export const OBJECT_NAME: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
};

/** An object name, or "" for "not set". */
export const OPTIONAL_OBJECT_NAME: JsonSchema = {
  type: 'string',
  pattern: '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
};

export const RESOURCES: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limits: { description: 'Resource limits (cpu, memory, ephemeral-storage, …).', ...QUANTITY_MAP },
    requests: { description: 'Resource requests.', ...QUANTITY_MAP },
  },
};

export const ENV_LIST: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: {
        description: 'Variable name: printable ASCII without "=" (Kubernetes\' rule).',
        type: 'string',
        pattern: '^[ -<>-~]+$',
      },
      value: { description: 'Literal value.', type: 'string' },
      valueFrom: { description: 'Source of the value (core/v1 EnvVarSource).', type: 'object' },
    },
  },
};

const REF = (what: string): JsonSchema => ({
  description: `The ${what} to read.`,
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: described(`Name of the ${what}.`, OBJECT_NAME),
    optional: { description: `Start even when the ${what} does not exist.`, type: 'boolean' },
  },
});

export const ENV_FROM_LIST: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    properties: {
      prefix: { description: 'Prefix of every variable name.', type: 'string' },
      configMapRef: REF('ConfigMap'),
      secretRef: REF('Secret'),
    },
  },
};

export const VOLUME_MOUNT_LIST: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'mountPath'],
    properties: {
      name: { description: 'Name of a volume of the pod.', type: 'string', minLength: 1 },
      mountPath: { description: 'Path in the container.', type: 'string', minLength: 1 },
      readOnly: { description: 'Mount read-only.', type: 'boolean' },
      recursiveReadOnly: {
        description: 'Read-only also for sub-mounts.',
        type: 'string',
        enum: ['Disabled', 'IfPossible', 'Enabled'],
      },
      subPath: { description: 'Path within the volume.', type: 'string' },
      subPathExpr: { description: 'subPath with $(VAR) expansion.', type: 'string' },
      mountPropagation: {
        description: 'None or HostToContainer (Bidirectional needs a privileged container).',
        type: 'string',
        enum: ['None', 'HostToContainer'],
      },
    },
  },
};

/** Volume types Pod Security "restricted" allows; hostPath and the in-tree network disks are not among them. */
const RESTRICTED_VOLUME_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
] as const;

export const VOLUME_LIST: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    minProperties: 2,
    maxProperties: 2,
    properties: {
      name: { description: 'Volume name, unique in the pod (a DNS-1123 label).', ...specRule('DnsLabel') },
      ...Object.fromEntries(
        RESTRICTED_VOLUME_SOURCES.map((source) => [
          source,
          { description: `A ${source} volume (core/v1).`, type: 'object' },
        ]),
      ),
    },
  },
};

export const IMAGE_PULL_POLICY: JsonSchema = { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] };

export const TOLERATIONS: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    properties: {
      key: { type: 'string' },
      operator: { type: 'string', enum: ['Exists', 'Equal'] },
      value: { type: 'string' },
      effect: { type: 'string', enum: ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
      tolerationSeconds: { type: 'integer' },
    },
  },
};

export const AFFINITY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    nodeAffinity: { type: 'object', description: 'Node affinity (core/v1 NodeAffinity).' },
    podAffinity: { type: 'object', description: 'Pod affinity (core/v1 PodAffinity).' },
    podAntiAffinity: { type: 'object', description: 'Pod anti-affinity (core/v1 PodAntiAffinity).' },
  },
};

export const TOPOLOGY_SPREAD: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
    properties: {
      maxSkew: { type: 'integer', minimum: 1 },
      topologyKey: { type: 'string' },
      whenUnsatisfiable: { type: 'string', enum: ['DoNotSchedule', 'ScheduleAnyway'] },
      labelSelector: { type: 'object' },
      minDomains: { type: 'integer' },
      matchLabelKeys: { type: 'array', items: { type: 'string' } },
      nodeAffinityPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
      nodeTaintsPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
    },
  },
};

/** Pull secrets as names or `{name: …}` maps, as most charts accept them. */
export const PULL_SECRETS: JsonSchema = {
  type: 'array',
  items: {
    anyOf: [
      OBJECT_NAME,
      {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: described('Name of a Secret of type kubernetes.io/dockerconfigjson.', OBJECT_NAME),
        },
      },
    ],
  },
};

/** Extra manifests: YAML maps or strings, rendered through `tpl`. */
export const EXTRA_OBJECTS: JsonSchema = {
  type: 'array',
  items: { type: ['object', 'string'] },
};

// ------------------------------------------------------------------ security contexts

const SECCOMP_PROFILE: JsonSchema = {
  description: 'RuntimeDefault or Localhost (Unconfined is refused).',
  ...nullable('object'),
  additionalProperties: false,
  properties: {
    type: { description: 'Profile type.', enum: ['RuntimeDefault', 'Localhost', null] },
    localhostProfile: { description: 'Profile file on the node, for Localhost.', ...nullable('string') },
  },
};

const APP_ARMOR_PROFILE: JsonSchema = {
  description: 'RuntimeDefault or Localhost (Unconfined is refused).',
  ...nullable('object'),
  additionalProperties: false,
  properties: {
    type: { description: 'Profile type.', enum: ['RuntimeDefault', 'Localhost', null] },
    localhostProfile: { description: 'Profile name on the node, for Localhost.', ...nullable('string') },
  },
};

const SE_LINUX_OPTIONS: JsonSchema = {
  description: 'SELinux labels (OpenShift assigns level through the namespace).',
  ...nullable('object'),
  additionalProperties: false,
  properties: {
    level: { description: 'SELinux level, e.g. s0:c123,c456.', ...nullable('string') },
    role: { description: 'SELinux role.', ...nullable('string') },
    type: { description: 'SELinux type.', ...nullable('string') },
    user: { description: 'SELinux user.', ...nullable('string') },
  },
};

const WINDOWS_OPTIONS: JsonSchema = {
  description: 'Windows-specific options (hostProcess is refused).',
  ...nullable('object'),
  additionalProperties: false,
  properties: {
    gmsaCredentialSpec: { description: 'GMSA credential spec.', ...nullable('string') },
    gmsaCredentialSpecName: { description: 'GMSA credential spec name.', ...nullable('string') },
    hostProcess: { description: 'Must stay false.', enum: [false, null] },
    runAsUserName: { description: 'User name.', ...nullable('string') },
  },
};

const RUN_AS_USER: JsonSchema = {
  description: 'User id (never 0); null leaves it to the image or the platform (OpenShift assigns one).',
  ...nullable('integer'),
  minimum: 1,
};
const RUN_AS_GROUP: JsonSchema = {
  description: 'Group id; null leaves it to the image or the platform.',
  ...nullable('integer'),
  minimum: 0,
};
const RUN_AS_NON_ROOT: JsonSchema = {
  description: 'Must stay true; null removes the check.',
  enum: [true, null],
};

/** core/v1 SecurityContext of a container, as far as Pod Security "restricted" permits it. */
export const CONTAINER_SECURITY_CONTEXT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    allowPrivilegeEscalation: { description: 'Must stay false; null removes it.', enum: [false, null] },
    appArmorProfile: APP_ARMOR_PROFILE,
    capabilities: {
      description: 'Capabilities: drop as you like, add at most NET_BIND_SERVICE.',
      ...nullable('object'),
      additionalProperties: false,
      properties: {
        add: {
          description: 'Added capabilities: only NET_BIND_SERVICE.',
          ...nullable('array'),
          items: { enum: ['NET_BIND_SERVICE'] },
        },
        drop: { description: 'Dropped capabilities.', ...nullable('array'), items: { type: 'string' } },
      },
    },
    privileged: { description: 'Must stay false; null removes it.', enum: [false, null] },
    procMount: { description: 'Only Default.', enum: ['Default', null] },
    readOnlyRootFilesystem: { description: 'Read-only root filesystem.', ...nullable('boolean') },
    runAsGroup: RUN_AS_GROUP,
    runAsNonRoot: RUN_AS_NON_ROOT,
    runAsUser: RUN_AS_USER,
    seLinuxOptions: SE_LINUX_OPTIONS,
    seccompProfile: SECCOMP_PROFILE,
    windowsOptions: WINDOWS_OPTIONS,
  },
};

/** core/v1 PodSecurityContext, as far as Pod Security "restricted" permits it. */
export const POD_SECURITY_CONTEXT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    appArmorProfile: APP_ARMOR_PROFILE,
    fsGroup: {
      description: 'Group that owns mounted volumes; null leaves it to the platform.',
      ...nullable('integer'),
      minimum: 0,
    },
    fsGroupChangePolicy: {
      description: 'When to change volume ownership.',
      enum: ['OnRootMismatch', 'Always', null],
    },
    runAsGroup: RUN_AS_GROUP,
    runAsNonRoot: RUN_AS_NON_ROOT,
    runAsUser: RUN_AS_USER,
    seLinuxChangePolicy: {
      description: 'How SELinux labels are applied to volumes.',
      enum: ['MountOption', 'Recursive', null],
    },
    seLinuxOptions: SE_LINUX_OPTIONS,
    seccompProfile: SECCOMP_PROFILE,
    supplementalGroups: {
      description: 'Extra group ids.',
      ...nullable('array'),
      items: { type: 'integer', minimum: 0 },
    },
    supplementalGroupsPolicy: { description: 'Merge or Strict.', enum: ['Merge', 'Strict', null] },
    sysctls: {
      description: 'Namespaced sysctls.',
      ...nullable('array'),
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'value'],
        properties: { name: { type: 'string' }, value: { type: 'string' } },
      },
    },
    windowsOptions: WINDOWS_OPTIONS,
  },
};
