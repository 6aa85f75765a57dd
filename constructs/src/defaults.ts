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
export const DEFAULT_API_SERVER_EGRESS = { cidrs: ['0.0.0.0/0'], ports: [443, 6443] };
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
} as const;

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
