/**
 * Every default the renderer applies, in one place. The schema's `default` annotations document the same
 * values; `test/constructs/schema-defaults.test.ts` proves the two agree by rendering both ways.
 */
import type { Resources } from '../../schema/src/types.generated.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_WORKSPACE_MOUNT_PATH = '/workspace';
export const DEFAULT_WORKSPACE_SIZE_LIMIT = '10Gi';
export const DEFAULT_CLAIM_ACCESS_MODES = ['ReadWriteOnce'] as const;
export const DEFAULT_MCP_CONFIG_PATH = '/etc/toolyard/mcp';
export const DEFAULT_GATEWAY_PATH = '/mcp';
export const DEFAULT_GATEWAY_REPLICAS = 1;
export const DEFAULT_TOOLCHAIN_PLACEMENT = 'sidecar';
/** Replicas of a toolchain's own Deployment (`placement: pod`); MCP sessions live in one server process. */
export const TOOLCHAIN_POD_REPLICAS = 1;
/** Where a toolchain in its own pod listens: every address of its pod (the pod IP), behind its NetworkPolicy. */
export const TOOLCHAIN_POD_LISTEN_HOST = '0.0.0.0';
export const DEFAULT_GATEWAY_PRE_APPROVED = true;
export const DEFAULT_GATEWAY_TOOL_TIMEOUT_SECONDS = 600;
/**
 * Added to a toolchain's `maxTimeoutSeconds` for the client-side tool timeout, so a long call always ends by
 * the toolchain's own timeout (which kills the process group and reports it), never by the client giving up.
 */
export const CLIENT_TIMEOUT_MARGIN_SECONDS = 60;
export const DEFAULT_PULL_POLICY = 'IfNotPresent';
export const HEALTH_PORT_OFFSET = 1000;

export const DEFAULT_BACKEND_RESOURCES: Resources = {
  requests: { cpu: '250m', memory: '512Mi' },
  limits: { memory: '1Gi' },
};
export const DEFAULT_TOOLCHAIN_RESOURCES: Resources = {
  requests: { cpu: '500m', memory: '1Gi' },
  limits: { memory: '2Gi' },
};
export const DEFAULT_GATEWAY_RESOURCES: Resources = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { memory: '256Mi' },
};
/** The init container only copies files. */
export const INSTALLER_RESOURCES: Resources = {
  requests: { cpu: '50m', memory: '32Mi' },
  limits: { memory: '64Mi' },
};

export const DEFAULT_LIMITS = {
  defaultTimeoutSeconds: 300,
  maxTimeoutSeconds: 1800,
  maxOutputBytes: 1048576,
  maxConcurrency: 2,
  maxQueue: 16,
} as const;

export const DEFAULT_MODEL_EGRESS = { cidrs: ['0.0.0.0/0'], ports: [443] };
export const DEFAULT_REGISTRY_EGRESS = { cidrs: ['0.0.0.0/0'], ports: [443] };
export const DEFAULT_DNS = { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } };

/** Where toolyard's own images are published: `<prefix>/<image name>:<package version>`. */
export const TOOLYARD_IMAGE_PREFIX = 'ghcr.io/toolyard';

/** The image the init container copies the server from; its tag is the package version. */
export const DEFAULT_TOOLCHAIN_SERVER_IMAGE = {
  repository: `${TOOLYARD_IMAGE_PREFIX}/toolchain-server`,
  tag: PACKAGE_VERSION,
} as const;

/** Where each CLI reads its system-wide (managed) configuration; toolyard mounts its generated files there. */
export const CLIENT_CONFIG_PATHS = {
  claudeCode: '/etc/claude-code',
  codex: '/etc/codex',
  geminiCliSettings: '/etc/gemini-cli/settings.json',
} as const;

/** Fixed paths inside generated containers. */
export const PATHS = {
  home: '/home/toolyard',
  tmp: '/tmp',
  serverBundle: '/opt/toolyard',
  toolchainConfigDir: '/etc/toolyard/toolchain',
  /** Where a toolchain's or a deployed gateway's bearer token is mounted, as the file `token`. */
  authDir: '/etc/toolyard/auth',
  serviceAccount: '/var/run/secrets/kubernetes.io/serviceaccount',
  /** Every declared cache is mounted at `<caches>/<name>` (docs/caches.md). */
  caches: '/var/cache/toolyard',
} as const;

/** Size of a cache's emptyDir when the spec gives none. */
export const DEFAULT_CACHE_SIZE_LIMIT = '5Gi';
/** A toolchain's egress phase when the spec gives none: every call may use its egress. */
export const DEFAULT_EGRESS_PHASE = 'always';

/** The file, under `PATHS.authDir`, that holds a bearer token. */
export const TOKEN_FILE_NAME = 'token';
/**
 * Mode of a mounted token file: owner root, group fsGroup (65532), readable by the group only. 0400 would
 * leave it to kubelet's fsGroup handling to add the group bit; 0440 says what the container actually gets.
 */
export const TOKEN_FILE_MODE = 0o440;
/** The variable that names a deployed gateway's token file (a path, not the token). */
export const BEARER_TOKEN_FILE_ENV = 'TOOLYARD_BEARER_TOKEN_FILE';

/** The uid/gid every generated container runs as (the conventional "nonroot" id of distroless images). */
export const RUN_AS_ID = 65532;

/** The broker image: toolyard's own `toolyard-broker` server; its tag is the package version. */
export const DEFAULT_BROKER_IMAGE = {
  repository: `${TOOLYARD_IMAGE_PREFIX}/toolyard-broker`,
  tag: PACKAGE_VERSION,
} as const;
export const DEFAULT_BROKER_REPLICAS = 1;
export const DEFAULT_BROKER_EGRESS_PORTS = [443] as const;
export const DEFAULT_BROKER_RESOURCES: Resources = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { memory: '256Mi' },
};
/** The Secret of the callers' broker tokens when the spec names none. */
export function defaultBrokerTokensSecret(agent: string): string {
  return `${agent}-broker-tokens`;
}
/** Port of a named egress host that gives none (`registry.npmjs.org` means `registry.npmjs.org:443`). */
export const DEFAULT_EGRESS_HOST_PORT = 443;

/** Where each backend type's model route forwards to when `model.upstream` is not set. */
export const DEFAULT_MODEL_UPSTREAMS = {
  claude: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  gemini: 'https://generativelanguage.googleapis.com',
} as const;
/** The header each provider reads its API key from, set by the broker on the model route. */
export const DEFAULT_MODEL_CREDENTIAL_HEADERS = {
  claude: { name: 'x-api-key', prefix: '' },
  openai: { name: 'authorization', prefix: 'Bearer ' },
  gemini: { name: 'x-goog-api-key', prefix: '' },
} as const;
/**
 * The variable each CLI reads its API key from. With the broker on it carries the backend's broker token (the
 * broker drops it and sets the real key); with the broker off, the provider key from `model.apiKeySecret`.
 */
export const MODEL_KEY_ENV = {
  claude: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
} as const;
/** Variables that hold a provider credential: a backend may not take them from `secretEnv` while the broker is on. */
export const PROVIDER_KEY_ENVS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
] as const;
/** A container's own broker token: env in backends (client configs and proxy URLs name it, never its value). */
export const BROKER_TOKEN_ENV = 'TOOLYARD_BROKER_TOKEN';
/** A backend's model route base URL (the documented contract of `custom` backends). */
export const BROKER_URL_ENV = 'TOOLYARD_BROKER_URL';
/** Where a toolchain's own broker token is mounted, as the file `token` (never in its environment). */
export const BROKER_TOKEN_DIR = '/etc/toolyard/broker';
/** Where code mode's tokens for other servers are mounted in a toolchain: `<dir>/<server>/token`. */
export const CODE_MODE_TOKEN_DIR = '/etc/toolyard/code-mode';

/*
 * The broker contract's constants, repeated here so the renderer stays free of zod in the browser bundle
 * (toolchain-server/broker/config.ts defines them with its schema); test/constructs/broker-contract.test.ts
 * proves the two agree.
 */
/** The broker's listener ports, where its pod mounts its files, and the ranges it refuses after resolution: the
 * contract's own constants (zod-free, so the playground bundle shares them too). */
export {
  BROKER_PATHS as BROKER_POD_PATHS,
  BROKER_PORTS as BROKER_PORTS_DEFAULT,
  DEFAULT_DENIED_CIDRS,
} from '../../toolchain-server/broker/constants.ts';
