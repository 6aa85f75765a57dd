/**
 * The sandbox manager's fixed paths and file names, zod-free so the renderer (and the browser playground) can
 * share them with the manager's config contract (config.ts).
 */

/** Paths inside the manager's container, as the renderer mounts them. */
export const SANDBOX_MANAGER_PATHS = {
  configDir: '/etc/toolyard/sandboxes/config',
  authDir: '/etc/toolyard/sandboxes/auth',
  bootstrapDir: '/etc/toolyard/sandboxes/bootstrap',
  serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount',
} as const;

export const SANDBOX_MANAGER_CONFIG_FILE = 'config.json';

/** The manager's bundle file, beside the toolchain server's under /opt/toolyard in its image. */
export const SANDBOX_MANAGER_BUNDLE_FILE = 'toolyard-sandbox-manager.mjs';

/** Where a sandbox pod mounts the bootstrap token (its server reads it at start; no call can). */
export const SANDBOX_BOOTSTRAP_DIR = '/etc/toolyard/sandbox/bootstrap';

/** The name of the workspace volume (and claim template) of every sandbox pod. */
export const SANDBOX_WORKSPACE_VOLUME = 'workspace';
